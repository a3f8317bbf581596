// Walrus encoding arithmetic and blob-id derivation, shared by the chain (walrus-calls.ts) and the
// storage nodes. From MystenLabs/walrus:
// - mainnet-contracts/walrus/sources/system/redstuff.move: encoded_blob_length = n_shards ×
//   ((primary + secondary source symbols) × symbol_size + n_shards × 2 × 32 + 32), symbol_size =
//   ⌈max(len, 1) / (primary × secondary)⌉ rounded up to even; max_byzantine = (n − 1) / 3.
// - system/encoding.move: only RS2 (encoding type 1) is accepted.
// - system/blob.move derive_blob_id, walrus-core lib.rs BlobId::from_metadata: blob id =
//   Blake2b-256(BCS BlobIdDerivation { encoding_type: u8, size: u64, root_hash: u256 }).
// - walrus-core merkle.rs / metadata.rs: root hash = Merkle root (leaf = H(0x00 ‖ x), inner =
//   H(0x01 ‖ l ‖ r), an odd level padded with an all-zero node) over primary_hash ‖ secondary_hash
//   of each sliver pair.

import { bcs } from '@mysten/sui/bcs';
import { blake2b256 } from './sui-formats.js';

export const RS2 = 1;
export const BYTES_PER_UNIT_SIZE = 1024n * 1024n;

export function sourceSymbols(nShards: number): { primary: number; secondary: number } {
  const f = Math.floor((nShards - 1) / 3);
  return { primary: nShards - 2 * f, secondary: nShards - f };
}

export function symbolSize(unencodedLength: bigint, nShards: number): number {
  const { primary, secondary } = sourceSymbols(nShards);
  const len = unencodedLength === 0n ? 1n : unencodedLength;
  let size = Number((len - 1n) / BigInt(primary * secondary) + 1n);
  if (size % 2 === 1) size += 1;
  return size;
}

export function encodedBlobLength(unencodedLength: bigint, nShards: number): bigint {
  const { primary, secondary } = sourceSymbols(nShards);
  const sliversSize = BigInt(primary + secondary) * BigInt(symbolSize(unencodedLength, nShards));
  const metadataSize = BigInt(nShards) * 32n * 2n + 32n;
  return BigInt(nShards) * (sliversSize + metadataSize);
}

export function storageUnits(size: bigint): bigint {
  return (size + BYTES_PER_UNIT_SIZE - 1n) / BYTES_PER_UNIT_SIZE;
}

const BlobIdDerivation = bcs.struct('BlobIdDerivation', { encoding_type: bcs.u8(), size: bcs.u64(), root_hash: bcs.u256() });

/** The blob id (as u256) that root hash, encoding type and size authenticate. */
export function deriveBlobId(rootHash: bigint, encodingType: number, size: bigint): bigint {
  const hash = blake2b256(BlobIdDerivation.serialize({ encoding_type: encodingType, size, root_hash: rootHash }).toBytes());
  return BigInt(bcs.u256().parse(hash));
}

function node(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  const data = new Uint8Array(1 + parts.reduce((n, p) => n + p.length, 0));
  data[0] = prefix;
  let at = 1;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return blake2b256(data);
}

/** The Merkle root over the sliver-pair hashes of a blob's metadata (32 bytes; 0-filled = Empty). */
export function metadataRootHash(pairs: { primary: Uint8Array; secondary: Uint8Array }[]): Uint8Array {
  let level = pairs.map((p) => node(0, p.primary, p.secondary));
  if (level.length === 0) return new Uint8Array(32);
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(new Uint8Array(32));
    const up: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(node(1, level[i]!, level[i + 1]!));
    level = up;
  }
  return level[0]!;
}
