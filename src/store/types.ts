// The storage engine's contract with the faces above it (S3 handlers, embedded storage nodes).
// Records are plain data so that they serialize into LMDB values unchanged.

export type CannedAcl =
  | 'private'
  | 'public-read'
  | 'public-read-write'
  | 'authenticated-read'
  | 'bucket-owner-read'
  | 'bucket-owner-full-control'
  | 'aws-exec-read'
  | 'log-delivery-write';

export type VersioningState = 'Unversioned' | 'Enabled' | 'Suspended';

export interface BucketRecord {
  name: string;
  /** canonical id of the owning account */
  owner: string;
  /** creation time, ms since the epoch */
  created: number;
  acl: CannedAcl;
  objectLock: boolean;
  versioning: VersioningState;
  objectOwnership?: string;
  /** default encryption of new objects (PutBucketEncryption) */
  encryption?: BucketEncryption;
}

export interface BucketEncryption {
  algorithm: 'AES256';
  bucketKeyEnabled: boolean;
}

/**
 * Encryption at rest as the S3 face recorded it (src/s3/sse): the engine stores the sealed bytes
 * as any other body; `size` and the extents count sealed bytes, `plaintextSize` the object's.
 */
export interface ObjectEncryption {
  mode: 'SSE-S3' | 'SSE-C';
  plaintextSize: number;
  blockSize: number;
  /** base64 of the per-object nonce prefix */
  noncePrefix: string;
  /** base64 of the data key wrapped by the master key (SSE-S3) or the customer's key (SSE-C) */
  wrappedKey: string;
  /** SSE-C: base64 MD5 of the customer's key, checked on every read */
  customerKeyMD5?: string;
}

export type ChecksumAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';

export interface StoredChecksum {
  algorithm: ChecksumAlgorithm;
  /** base64 of the big-endian digest */
  value: string;
  type: 'FULL_OBJECT' | 'COMPOSITE';
}

/** Where body bytes live: a contiguous run of one segment file. */
export interface Extent {
  segment: number;
  /** byte offset of the first body byte in the segment file */
  offset: number;
  length: number;
}

/** Everything the S3 face stores about an object besides its bytes. */
export interface ObjectMeta {
  size: number;
  /** lower-case hex MD5 (or `<hex>-<parts>`), without quotes */
  etag: string;
  /** ms since the epoch */
  lastModified: number;
  contentType: string;
  storageClass: string;
  acl: CannedAcl;
  /** stored system headers, lower-case names: cache-control, content-disposition, content-encoding, content-language, expires, x-amz-website-redirect-location */
  headers: Record<string, string>;
  /** user metadata: lower-cased name without the `x-amz-meta-` prefix → value */
  meta: Record<string, string>;
  checksum?: StoredChecksum;
  /** version id; 'null' for the null version (s3.md §3.0.7). Versioning itself comes later. */
  versionId: string;
  encryption?: ObjectEncryption;
}

export interface ObjectRecord extends ObjectMeta {
  key: string;
  /** body location; one extent for PutObject, several for multipart (later) */
  extents: Extent[];
}

/** Conditions evaluated inside the index write transaction (style.md §7, s3.md §3.0.5). */
export interface WriteCondition {
  /** `If-None-Match: *`: fail with PreconditionFailed if a current object exists */
  ifNoneMatchStar?: boolean;
  /** `If-Match: <etag>` (unquoted, lower-case): NoSuchKey if absent, PreconditionFailed on mismatch */
  ifMatch?: string;
}

export interface ListOptions {
  prefix: string;
  delimiter: string;
  /** exclusive start position (marker / start-after / decoded continuation token); '' = from the beginning */
  startAfter: string;
  maxKeys: number;
}

export type ListItem = { kind: 'object'; record: ObjectRecord } | { kind: 'prefix'; prefix: string };

export interface ListResult {
  items: ListItem[];
  isTruncated: boolean;
}

/** A body being streamed into its reserved extent. */
export interface BodyWriter {
  readonly size: number;
  /** Bytes accepted so far. */
  readonly written: number;
  /** Writes the next chunk at its own offset; resolves when the caller may send more. The caller must not reuse `chunk`. */
  write(chunk: Buffer): Promise<void>;
  /** Leaves a dead extent; never visible. Idempotent. */
  abort(): Promise<void>;
  /**
   * Makes the body durable (group commit), then commits the index entry if `condition` holds.
   * Throws S3Error PreconditionFailed / NoSuchKey / ConditionalRequestConflict (and aborts) otherwise.
   */
  commit(bucket: string, key: string, meta: ObjectMeta, condition?: WriteCondition): Promise<ObjectRecord>;
}

/** A streamed, back-pressured read of part of a body. */
export interface BodyReader {
  /** Next chunk (at most `maxBytes`), or null at the end. The returned buffer is valid until the next call. */
  read(maxBytes: number): Promise<Buffer | null>;
  /** Idempotent; releases the segment for compaction. */
  close(): void;
}

export type DeleteBucketResult = 'deleted' | 'not-empty' | 'missing';

export interface Store {
  getBucket(name: string): BucketRecord | undefined;
  /** Creates the bucket if no bucket of that name exists (atomic). */
  createBucket(record: BucketRecord): Promise<'created' | 'exists'>;
  putBucket(record: BucketRecord): Promise<void>;
  /** Deletes the bucket only if it holds no objects (atomic check and delete). */
  deleteBucket(name: string): Promise<DeleteBucketResult>;
  /** Buckets in name order; only `owner`'s when given. */
  listBuckets(owner?: string): BucketRecord[];

  getObject(bucket: string, key: string): ObjectRecord | undefined;
  /** Reserves an extent of `size` body bytes in the active segment. */
  beginWrite(size: number): BodyWriter;
  /** Removes the current object; 'missing' when there was none. Throws PreconditionFailed on an If-Match mismatch. */
  deleteObject(bucket: string, key: string, condition?: { ifMatch?: string }): Promise<'deleted' | 'missing'>;
  /** One page of a listing in UTF-8 byte order (s3.md §3.0.8), read in one LMDB read transaction. */
  list(bucket: string, options: ListOptions): ListResult;
  /** Reads body bytes [start, end) of the record. Small ranges should be served in one read. */
  openRead(record: ObjectRecord, start: number, end: number): BodyReader;

  /** Flushes and closes everything (SIGTERM). */
  close(): Promise<void>;
}

export interface StoreOptions {
  dataDir: string;
  /** 'strict' (default): acknowledged means fdatasync'ed. 'relaxed': no flush (benchmarks, caches). */
  durability: 'strict' | 'relaxed';
  /** Segment size in bytes (default 1 GiB); bodies larger than this get a segment of their own. */
  segmentSize?: number;
}
