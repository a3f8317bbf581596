// The engine's failures, in its own words. Each face maps them to its own errors in one place
// (S3: src/s3/store-errors.ts; storage nodes: src/publisher/nodes/sliver-store.ts).

export type StoreErrorKind =
  /** a key, version, upload or part named by the caller does not exist */
  | 'not-found'
  /** a write condition (If-Match, If-None-Match, part etag) did not hold in the commit transaction */
  | 'condition-failed'
  /** the bucket does not exist */
  | 'namespace-missing'
  /** a name the engine cannot store (empty, too long, 0x00 in a bucket name) */
  | 'invalid-name'
  /** the disk reserve is reached, or the disk is full */
  | 'out-of-space'
  /** stored bytes are damaged: they do not match their checksum, or are missing (damage.ts) */
  | 'corrupt'
  /** a read replica found a segment gone that its index snapshot still named (compaction moved the
   * body meanwhile): the same read, tried again, finds the new place */
  | 'moved';

/** What a 'not-found' or 'condition-failed' refers to. */
export type StoreSubject = 'bucket' | 'key' | 'version' | 'upload' | 'part';

export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    readonly subject?: StoreSubject,
    readonly detail: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export function isStoreError(e: unknown, kind?: StoreErrorKind): e is StoreError {
  return e instanceof StoreError && (kind === undefined || e.kind === kind);
}

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** A file system or LMDB failure for lack of space becomes 'out-of-space'; anything else is rethrown as is. */
export function asStoreError(e: unknown): unknown {
  const code = (e as { code?: unknown } | undefined)?.code;
  const message = String((e as Error | undefined)?.message ?? '');
  if ((typeof code === 'string' && NO_SPACE.has(code)) || /MDB_MAP_FULL|No space left|ENOSPC/.test(message)) {
    return new StoreError('out-of-space', `no space left on the data directory's device (${message})`);
  }
  return e;
}
