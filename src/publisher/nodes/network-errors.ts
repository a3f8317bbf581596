// Failures of the storage network as a whole (one node's failures are StorageNodeError, errors.ts).

/** Fewer shards than a quorum signed valid confirmations (walrus.md §10.4: publisher answers 504 INSUFFICIENT_CONFIRMATIONS). */
export class InsufficientConfirmationsError extends Error {
  readonly code = 'INSUFFICIENT_CONFIRMATIONS';

  constructor(
    readonly confirmedShards: number,
    readonly neededShards: number,
    readonly failures: ReadonlyArray<{ nodeId: string; error: Error }>,
  ) {
    super(
      `storage nodes holding ${confirmedShards} shards confirmed, a quorum needs ${neededShards}` +
        (failures.length ? `; failed: ${failures.map((f) => `${f.nodeId} (${f.error.message})`).join('; ')}` : ''),
    );
    this.name = 'InsufficientConfirmationsError';
  }
}

/** Not enough primary slivers could be read to decode the blob (walrus.md §11: aggregator 503 BLOB_UNAVAILABLE or 404). */
export class NotEnoughSliversError extends Error {
  readonly code = 'NOT_ENOUGH_SLIVERS';

  constructor(
    readonly found: number,
    readonly wanted: number,
  ) {
    super(`read ${found} primary slivers from the storage nodes, decoding needs ${wanted}`);
    this.name = 'NotEnoughSliversError';
  }
}
