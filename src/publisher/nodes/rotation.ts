// Sliver pair ↔ shard rotation (walrus.md §12.1): rot = blob id as a big-endian 256-bit integer mod n.

/** (blob id read big-endian) mod nShards, computed byte by byte so no 256-bit arithmetic is needed. */
export function blobRotation(blobId: Uint8Array, nShards: number): number {
  let rot = 0;
  for (const byte of blobId) rot = (rot * 256 + byte) % nShards;
  return rot;
}

/** The shard that stores sliver pair `pairIndex` of the blob. */
export function pairToShard(pairIndex: number, blobId: Uint8Array, nShards: number): number {
  return (pairIndex + blobRotation(blobId, nShards)) % nShards;
}

/** The sliver pair that shard `shard` stores for the blob (mod taken non-negative). */
export function shardToPair(shard: number, blobId: Uint8Array, nShards: number): number {
  return (((shard - blobRotation(blobId, nShards)) % nShards) + nShards) % nShards;
}
