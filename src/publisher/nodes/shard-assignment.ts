// Which shards each storage node holds: contiguous ranges for the embedded network, `a-b,c-d` lists
// for `tusk storage-node --shards`.

/** Splits shards 0..nShards−1 into `nodeCount` contiguous ranges whose sizes differ by at most one. */
export function shardAssignment(nShards: number, nodeCount: number): number[][] {
  if (!Number.isSafeInteger(nodeCount) || nodeCount < 1 || nodeCount > nShards) {
    throw new RangeError(`node count must be in 1..${nShards}, got ${nodeCount}`);
  }
  const out: number[][] = [];
  for (let node = 0; node < nodeCount; node++) {
    const start = Math.floor((node * nShards) / nodeCount);
    const end = Math.floor(((node + 1) * nShards) / nodeCount);
    out.push(Array.from({ length: end - start }, (_, i) => start + i));
  }
  return out;
}

/** Parses `a-b[,c-d][,e]` (inclusive ranges) into sorted distinct shard indices below nShards. */
export function parseShardRanges(text: string, nShards: number): number[] {
  const shards = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) throw new RangeError(`invalid shard range '${part}' (expected a-b or a)`);
    const first = Number(m[1]);
    const last = m[2] === undefined ? first : Number(m[2]);
    if (first > last || last >= nShards) throw new RangeError(`shard range '${part}' is not within 0..${nShards - 1}`);
    for (let s = first; s <= last; s++) shards.add(s);
  }
  return [...shards].sort((a, b) => a - b);
}

/** Formats sorted shard indices as inclusive ranges, the inverse of parseShardRanges. */
export function formatShardRanges(shards: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < shards.length; ) {
    let j = i;
    while (j + 1 < shards.length && shards[j + 1] === shards[j]! + 1) j++;
    parts.push(i === j ? `${shards[i]}` : `${shards[i]}-${shards[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
