// One body holding a node's whole share of a blob — its metadata and both slivers of every pair of
// its shards — so that storing it is one record and one index commit instead of 2·shards + 1
// (issue 14 item 5: the per-sliver records were most of the publish time). A header indexes where
// each part lies, so a single sliver is read (and verified) without reading the others.
//
// Layout, all integers little-endian (documented in docs/FORMAT.md, "Storage-node blob bundles"):
//   0  magic "TBN1" (4 bytes; the digit is the format version)
//   4  u32 part count P
//   8  P entries of 16 bytes: u32 part key, u32 length, u64 offset from the start of the body
//   8 + 16·P  the parts, in entry order
// Part key: 0xFFFFFFFF for the metadata, else 2·pair + (0 primary | 1 secondary).

import type { IndexedSliverPair, SliverAxis } from './types.js';

export const BUNDLE_MAGIC = Buffer.from('TBN1', 'latin1');
const PREAMBLE = 8;
const ENTRY = 16;
const METADATA_PART = 0xffff_ffff;

export interface PartLocation {
  offset: number;
  length: number;
}

/** Where each part of a bundle lies in its body. */
export class BundleIndex {
  constructor(private readonly parts: ReadonlyMap<number, PartLocation>) {}

  get metadata(): PartLocation | undefined {
    return this.parts.get(METADATA_PART);
  }

  sliver(pairIndex: number, axis: SliverAxis): PartLocation | undefined {
    return this.parts.get(sliverPart(pairIndex, axis));
  }

  hasPair(pairIndex: number): boolean {
    return this.parts.has(sliverPart(pairIndex, 'primary')) && this.parts.has(sliverPart(pairIndex, 'secondary'));
  }
}

function sliverPart(pairIndex: number, axis: SliverAxis): number {
  return pairIndex * 2 + (axis === 'primary' ? 0 : 1);
}

/** The header bytes to read for a bundle of at most `maxPairs` pairs (enough to parse its index). */
export function maxHeaderLength(maxPairs: number): number {
  return PREAMBLE + ENTRY * (2 * maxPairs + 1);
}

/** The whole header's length, from its first 8 bytes (when a first read of maxHeaderLength fell short). */
export function headerLength(head: Buffer): number {
  if (head.length < PREAMBLE) throw new Error('blob bundle shorter than its preamble');
  return PREAMBLE + ENTRY * head.readUInt32LE(4);
}

/**
 * The bundle body as chunks: the header, then the parts as views of the caller's buffers, nothing
 * copied. Primaries go in ascending and secondaries in descending pair order, and neighbouring views
 * of one buffer are joined: in the encoder's result primary p sits before p + 1 and secondary
 * n − 1 − p after it (rs2/encoded-blob.ts), so a node's share is a handful of chunks, not 2·pairs + 1.
 */
export function bundleChunks(metadataBcs: Buffer, pairs: readonly IndexedSliverPair[]): Buffer[] {
  const ascending = [...pairs].sort((a, b) => a.pairIndex - b.pairIndex);
  const parts: Array<[number, Buffer]> = [
    [METADATA_PART, metadataBcs],
    ...ascending.map((p): [number, Buffer] => [sliverPart(p.pairIndex, 'primary'), p.primary]),
    ...ascending.reverse().map((p): [number, Buffer] => [sliverPart(p.pairIndex, 'secondary'), p.secondary]),
  ];
  const header = Buffer.alloc(PREAMBLE + ENTRY * parts.length);
  BUNDLE_MAGIC.copy(header, 0);
  header.writeUInt32LE(parts.length, 4);
  let offset = header.length;
  parts.forEach(([key, body], i) => {
    const at = PREAMBLE + ENTRY * i;
    header.writeUInt32LE(key, at);
    header.writeUInt32LE(body.length, at + 4);
    header.writeBigUInt64LE(BigInt(offset), at + 8);
    offset += body.length;
  });
  return [header, ...joinAdjacent(parts.map(([, body]) => body))];
}

/** Views that continue one another in the same memory become one view. */
function joinAdjacent(views: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  for (const view of views) {
    const last = out.at(-1);
    if (last && last.buffer === view.buffer && last.byteOffset + last.length === view.byteOffset) {
      out[out.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + view.length);
    } else {
      out.push(view);
    }
  }
  return out;
}

/** Parses the index from the first bytes of a bundle of `bodySize` bytes; throws on anything malformed. */
export function parseBundleIndex(head: Buffer, bodySize: number): BundleIndex {
  if (head.length < PREAMBLE || !head.subarray(0, 4).equals(BUNDLE_MAGIC)) throw new Error('not a blob bundle (bad magic)');
  const count = head.readUInt32LE(4);
  const dataStart = PREAMBLE + ENTRY * count;
  if (head.length < dataStart) throw new Error(`blob bundle header needs ${dataStart} bytes, have ${head.length}`);
  const parts = new Map<number, PartLocation>();
  for (let i = 0; i < count; i++) {
    const at = PREAMBLE + ENTRY * i;
    const key = head.readUInt32LE(at);
    const length = head.readUInt32LE(at + 4);
    const offset = Number(head.readBigUInt64LE(at + 8));
    if (offset < dataStart || offset + length > bodySize) throw new Error(`blob bundle part ${key} lies outside the body`);
    parts.set(key, { offset, length });
  }
  return new BundleIndex(parts);
}
