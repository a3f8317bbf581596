// The directory `tusk encode` writes and `tusk decode` reads: the BCS bodies a storage node
// receives (walrus.md §8), one file each, plus a small JSON manifest for people and scripts.
//
//   blob.json                   { blobId, nShards, unencodedLength, encodedLength, symbolSize, rootHash }
//   metadata.bcs                BlobMetadataWithId (§8.2)
//   pair-<p>.primary.bcs        SliverData of primary sliver p (§8.1)
//   pair-<p>.secondary.bcs      SliverData of secondary sliver n − 1 − p
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { BlobIdInfo, EncodedBlob } from '../rs2/codec-types.js';
import type { SliverAxis } from '../rs2/rs2-native.js';

export const MANIFEST_FILE = 'blob.json';
export const METADATA_FILE = 'metadata.bcs';
const SLIVER_FILE = /^pair-(\d+)\.(primary|secondary)\.bcs$/;

export function sliverFileName(pair: number, axis: SliverAxis): string {
  return `pair-${pair}.${axis}.bcs`;
}

export function manifest(info: BlobIdInfo): Record<string, string | number> {
  return {
    blobId: info.blobIdText,
    nShards: info.nShards,
    unencodedLength: info.unencodedLength,
    encodedLength: info.encodedLength,
    symbolSize: info.symbolSize,
    rootHash: info.rootHash.toString('hex'),
  };
}

export async function writeSliverDir(dir: string, blob: EncodedBlob): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, METADATA_FILE), blob.metadataBcs);
  for (let p = 0; p < blob.nShards; p++) {
    const { primary, secondary } = blob.sliverPair(p);
    await writeFile(join(dir, sliverFileName(p, 'primary')), primary);
    await writeFile(join(dir, sliverFileName(p, 'secondary')), secondary);
  }
  await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest(blob), null, 2) + '\n');
}

export async function readMetadata(dir: string): Promise<Buffer> {
  return readFile(join(dir, METADATA_FILE));
}

/** Pair indices of the sliver files of `axis` present in `dir`, ascending. */
export async function sliverPairsPresent(dir: string, axis: SliverAxis): Promise<number[]> {
  const pairs: number[] = [];
  for (const name of await readdir(dir)) {
    const m = SLIVER_FILE.exec(name);
    if (m && m[2] === axis) pairs.push(Number(m[1]));
  }
  return pairs.sort((a, b) => a - b);
}

export async function readSliver(dir: string, pair: number, axis: SliverAxis): Promise<Buffer> {
  return readFile(join(dir, sliverFileName(pair, axis)));
}
