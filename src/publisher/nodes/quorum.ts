// Byzantine thresholds over shards (walrus.md §2 and §9.3).

/** f = floor((n − 1) / 3): shards that may be faulty or down. */
export function maxFaultyShards(nShards: number): number {
  return Math.floor((nShards - 1) / 3);
}

/** Certification needs signers holding `weight` shards with 3·weight ≥ 2n + 1 (bls_aggregate.move `is_quorum`). */
export function isQuorum(weight: number, nShards: number): boolean {
  return 3 * weight >= 2 * nShards + 1;
}

/** The smallest quorum weight: ceil((2n + 1) / 3), e.g. 7 of 10 and 667 of 1000. */
export function quorumWeight(nShards: number): number {
  return Math.ceil((2 * nShards + 1) / 3);
}
