// The BCS bodies a storage node receives (walrus.md §8): SliverData and BlobMetadataWithId. Parsing
// checks structure only; whether hashes and blob id are right is the verifier's job (verifier.ts).

import { StorageNodeError } from './errors.js';
import { BLOB_ID_BYTES } from './identifiers.js';

const METADATA_V1 = 0x00;
const ENCODING_RS2 = 0x01;
/** BCS enum `Node { Empty = 0, Digest([u8; 32]) = 1 }` (walrus.md §8.2). */
const NODE_DIGEST = 0x01;
const HASH_BYTES = 32;

export interface SliverPairHashes {
  primary: Buffer;
  secondary: Buffer;
}

export interface BlobMetadata {
  blobId: Buffer;
  unencodedLength: number;
  /** the number of sliver pairs: n_shards */
  pairCount: number;
  /** one entry per sliver pair, views of `bcs` made on first use (a node storing a share never needs them) */
  readonly hashes: SliverPairHashes[];
  /** the BCS bytes it was parsed from */
  bcs: Buffer;
}

export interface SliverData {
  /** the sliver's symbols concatenated */
  data: Buffer;
  symbolSize: number;
  /** primary sliver index = pair index; secondary sliver index = n − 1 − pair index */
  index: number;
}

export function ulebLength(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

export function writeUleb128(value: number, out: Buffer, offset: number): number {
  while (value >= 0x80) {
    out[offset++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  out[offset++] = value;
  return offset;
}

/** Reads a canonical ULEB128 of at most 32 bits (BCS lengths and variant indices). */
export function readUleb128(buf: Buffer, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (offset + i >= buf.length) return undefined;
    const byte = buf[offset + i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) {
      // Non-canonical: a trailing zero continuation group (except for the value 0 itself).
      if (byte === 0 && i > 0) return undefined;
      return value > 0xffff_ffff ? undefined : { value, next: offset + i + 1 };
    }
  }
  return undefined;
}

export function parseSliverData(bcs: Buffer): SliverData {
  const len = readUleb128(bcs, 0);
  if (!len) throw new StorageNodeError('INVALID_SLIVER', 'bad length prefix');
  if (bcs.length !== len.next + len.value + 4) {
    throw new StorageNodeError('INVALID_SLIVER', `body is ${bcs.length} bytes, its length prefix says ${len.next + len.value + 4}`);
  }
  const end = len.next + len.value;
  return { data: bcs.subarray(len.next, end), symbolSize: bcs.readUInt16LE(end), index: bcs.readUInt16LE(end + 2) };
}

export function encodeSliverData(sliver: SliverData): Buffer {
  const out = Buffer.allocUnsafe(ulebLength(sliver.data.length) + sliver.data.length + 4);
  let at = writeUleb128(sliver.data.length, out, 0);
  at += sliver.data.copy(out, at);
  out.writeUInt16LE(sliver.symbolSize, at);
  out.writeUInt16LE(sliver.index, at + 2);
  return out;
}

export function metadataLength(nShards: number): number {
  return BLOB_ID_BYTES + 2 + 8 + ulebLength(nShards) + nShards * 2 * (1 + HASH_BYTES);
}

export function parseBlobMetadata(bcs: Buffer): BlobMetadata {
  const fail = (why: string) => new StorageNodeError('INVALID_METADATA', why);
  if (bcs.length < BLOB_ID_BYTES + 2 + 8 + 1) throw fail(`only ${bcs.length} bytes`);
  if (bcs[BLOB_ID_BYTES] !== METADATA_V1) throw fail(`unknown metadata version ${bcs[BLOB_ID_BYTES]}`);
  // Encoding type 0 was RaptorQ and is rejected (walrus.md §8.2).
  if (bcs[BLOB_ID_BYTES + 1] !== ENCODING_RS2) throw fail(`unsupported encoding type ${bcs[BLOB_ID_BYTES + 1]}`);
  const length = bcs.readBigUInt64LE(BLOB_ID_BYTES + 2);
  if (length > BigInt(Number.MAX_SAFE_INTEGER)) throw fail(`unencoded length ${length} is too large`);
  const count = readUleb128(bcs, BLOB_ID_BYTES + 10);
  if (!count) throw fail('bad hash count');
  if (bcs.length !== count.next + count.value * 2 * (1 + HASH_BYTES)) {
    throw fail(`${bcs.length} bytes do not hold exactly ${count.value} pairs of hashes`);
  }
  const first = count.next;
  const hashAt = (i: number) => first + i * (1 + HASH_BYTES);
  for (let i = 0; i < 2 * count.value; i++) {
    if (bcs[hashAt(i)] !== NODE_DIGEST) throw fail(`hash at byte ${hashAt(i)} is not a digest`);
  }
  const digest = (i: number) => bcs.subarray(hashAt(i) + 1, hashAt(i + 1));
  let hashes: SliverPairHashes[] | undefined;
  return {
    blobId: bcs.subarray(0, BLOB_ID_BYTES),
    unencodedLength: Number(length),
    pairCount: count.value,
    bcs,
    get hashes() {
      return (hashes ??= Array.from({ length: count.value }, (_, p) => ({ primary: digest(2 * p), secondary: digest(2 * p + 1) })));
    },
  };
}

export function encodeBlobMetadata(metadata: Pick<BlobMetadata, 'blobId' | 'unencodedLength' | 'hashes'>): Buffer {
  const n = metadata.hashes.length;
  const out = Buffer.allocUnsafe(metadataLength(n));
  metadata.blobId.copy(out, 0);
  out[BLOB_ID_BYTES] = METADATA_V1;
  out[BLOB_ID_BYTES + 1] = ENCODING_RS2;
  out.writeBigUInt64LE(BigInt(metadata.unencodedLength), BLOB_ID_BYTES + 2);
  let at = writeUleb128(n, out, BLOB_ID_BYTES + 10);
  for (const { primary, secondary } of metadata.hashes) {
    out[at++] = NODE_DIGEST;
    at += primary.copy(out, at, 0, HASH_BYTES);
    out[at++] = NODE_DIGEST;
    at += secondary.copy(out, at, 0, HASH_BYTES);
  }
  return out;
}
