// The storage engine's contract with the faces above it (the S3 handlers, the embedded storage
// nodes). The engine speaks its own vocabulary: namespaces (buckets), keys with version chains,
// bodies made of extents, multipart uploads, and typed failures (./errors.ts). What a face stores
// about an object besides that (content type, ACL, tags, …) is its own `attrs`, opaque here.
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

/** How new writes to a bucket get version ids (s3.md §3.0.7): never versioned, enabled, suspended. */
export type VersioningState = 'Unversioned' | 'Enabled' | 'Suspended';

/** A namespace. The engine reads `name` and `versioning`; the other fields belong to the face that made it. */
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
}

/** Where body bytes live: the whole body of one segment record. */
export interface Extent {
  segment: number;
  /** byte offset of the first body byte in the segment file */
  offset: number;
  length: number;
  /**
   * CRC32C of every BLOCK_SIZE block of the body (the last one may be shorter), little-endian
   * uint32s; absent on bodies written by format version 1, which carry one CRC for the whole body.
   */
  blockCrcs?: Uint8Array;
}

/** The null version's id (s3.md §3.0.7): the version of unversioned and suspended writes. */
export const NULL_VERSION = 'null';

/** One version of a key: an object, or a delete marker (no body). */
export interface ObjectVersion<A = unknown> {
  key: string;
  /** NULL_VERSION or a generated id: 32 URL-safe characters, time-ordered */
  versionId: string;
  deleteMarker: boolean;
  size: number;
  /** the face's entity tag (the engine only compares it for conditions) */
  etag: string;
  /** ms since the epoch */
  lastModified: number;
  extents: Extent[];
  /** the face's metadata; opaque to the engine */
  attrs: A;
  /**
   * Body bytes lost to a disk or file-system fault (found at start-up: damage.ts); absent when the
   * body is whole. Every read of such a version fails with 'corrupt', and it cannot be copied.
   */
  damaged?: number;
}

/**
 * A face's request that a change be announced (bucket notifications): plain data, opaque to the
 * engine but for `live`, stored with the change in the same commit (index-db.ts `notices`) and
 * replayed with it. Either way it is told to the store's `onLive` after the commit.
 */
export type Notice = Record<string, unknown> & {
  /** only for live listeners (ListenBucketNotification): not stored in `notices` */
  live?: true;
};

/** What the face supplies when it commits a body or makes a version without one. */
export interface VersionInput<A = unknown> {
  etag: string;
  lastModified: number;
  attrs: A;
  /** announce this change (stored with it; never part of the version) */
  notice?: Notice;
}

/**
 * Conditions checked inside the commit's index transaction (style.md §7), never before it: the
 * engine fails with 'condition-failed' (or 'not-found' for ifMatch on a missing key).
 */
export interface WriteCondition {
  /** fail if the key has a current object (not a delete marker) */
  ifNoneMatchStar?: boolean;
  /** the current object's etag must equal this; '*' matches any current object */
  ifMatch?: string;
}

export interface ListOptions {
  prefix: string;
  delimiter: string;
  /** exclusive start position (marker / start-after / decoded continuation token); '' = from the beginning */
  startAfter: string;
  maxKeys: number;
}

export type ListItem<A = unknown> = { kind: 'object'; record: ObjectVersion<A> } | { kind: 'prefix'; prefix: string };

export interface ListResult<A = unknown> {
  items: ListItem<A>[];
  isTruncated: boolean;
}

export interface ListVersionsOptions {
  prefix: string;
  delimiter: string;
  /** start after this key (all its versions), or after `versionIdMarker` of it */
  keyMarker: string;
  versionIdMarker: string;
  maxKeys: number;
}

export type VersionListItem<A = unknown> =
  | { kind: 'version'; version: ObjectVersion<A>; isLatest: boolean }
  | { kind: 'prefix'; prefix: string };

export interface ListVersionsResult<A = unknown> {
  items: VersionListItem<A>[];
  isTruncated: boolean;
  nextKeyMarker?: string;
  nextVersionIdMarker?: string;
}

export interface Upload<A = unknown> {
  bucket: string;
  key: string;
  uploadId: string;
  /** ms since the epoch */
  initiated: number;
  attrs: A;
}

export interface Part<P = unknown> {
  partNumber: number;
  size: number;
  etag: string;
  lastModified: number;
  extents: Extent[];
  attrs: P;
  /** body bytes lost (ObjectVersion.damaged): such a part cannot be completed into an object */
  damaged?: number;
}

export interface ListUploadsOptions {
  prefix: string;
  delimiter: string;
  keyMarker: string;
  uploadIdMarker: string;
  maxUploads: number;
}

export type UploadListItem<A = unknown> = { kind: 'upload'; upload: Upload<A> } | { kind: 'prefix'; prefix: string };

export interface ListUploadsResult<A = unknown> {
  items: UploadListItem<A>[];
  isTruncated: boolean;
}

export interface ListPartsResult<P = unknown> {
  parts: Part<P>[];
  isTruncated: boolean;
}

/** A part chosen for completion: its number and the etag the client saw. */
export interface PartChoice {
  partNumber: number;
  etag: string;
}

export interface DeleteOptions<A = unknown> {
  versionId?: string;
  condition?: WriteCondition;
  /**
   * Checked inside the transaction on a version about to be removed for good (object lock, s3.md
   * §3.0.9): false fails the delete with 'condition-failed' (subject 'version', condition 'guard').
   */
  mayRemove?: (version: ObjectVersion<A>) => boolean;
  /** announce the removal or the delete marker (VersionInput.notice) */
  notice?: Notice;
}

export type DeleteOutcome<A = unknown> =
  /** nothing to delete (unversioned bucket, no such key or version) */
  | { kind: 'missing' }
  /** a version was removed for good */
  | { kind: 'removed'; version: ObjectVersion<A> }
  /** versioned bucket without a version id: a delete marker is now the latest version */
  | { kind: 'marker'; marker: ObjectVersion<A> };

/** A body being streamed into its reserved extent. */
export interface BodyWriter<A = unknown, P = unknown> {
  readonly size: number;
  /** Bytes accepted so far. */
  readonly written: number;
  /** Writes the next chunk at its own offset; resolves when the caller may send more. The caller must not reuse `chunk`. */
  write(chunk: Buffer): Promise<void>;
  /** Leaves a dead extent; never visible. Idempotent. */
  abort(): Promise<void>;
  /**
   * Makes the body durable (group commit), then makes it the latest version of `key` if `condition`
   * holds (version id per the bucket's versioning state). Fails with a StoreError (and aborts) otherwise.
   */
  commit(bucket: string, key: string, input: VersionInput<A>, condition?: WriteCondition): Promise<ObjectVersion<A>>;
  /** Makes the body part `partNumber` of an upload (replacing an earlier one); 'not-found' if the upload is gone. */
  commitPart(bucket: string, key: string, uploadId: string, partNumber: number, input: VersionInput<P>): Promise<Part<P>>;
}

/** A streamed, back-pressured read of part of a body; every block is checked against its CRC first. */
export interface BodyReader {
  /** Next chunk (at most `maxBytes`), or null at the end. The returned buffer is valid until the next call. Fails with 'corrupt'. */
  read(maxBytes: number): Promise<Buffer | null>;
  /** Before any `read`: the first chunk when it can be had without waiting, null at the end, undefined when `read` has to wait for it. */
  readNow?(maxBytes: number): Buffer | null | undefined;
  /** Idempotent; releases the segment for compaction. */
  close(): void;
}

export type DeleteBucketResult = 'deleted' | 'not-empty' | 'missing';

/** `B`: the bucket record of the face, stored whole (the engine reads `name` and `versioning`). */
export interface Store<A = unknown, P = unknown, B extends BucketRecord = BucketRecord> {
  getBucket(name: string): B | undefined;
  /** Creates the bucket if no bucket of that name exists (atomic). */
  createBucket(record: B): Promise<'created' | 'exists'>;
  /** Replaces a bucket's record; 'namespace-missing' if it is gone. Versioning never returns to Unversioned. */
  putBucket(record: B): Promise<void>;
  /**
   * Replaces a bucket's record with `update(current)` inside one index transaction, so that two
   * concurrent changes of different fields both hold; 'namespace-missing' if it is gone. `update`
   * must not throw. Versioning never returns to Unversioned.
   */
  updateBucket(name: string, update: (current: B) => B): Promise<B>;
  /** Deletes the bucket only if no key has any version (atomic); its incomplete uploads go with it. */
  deleteBucket(name: string): Promise<DeleteBucketResult>;
  /** Buckets in name order; only `owner`'s when given. */
  listBuckets(owner?: string): B[];

  /** The latest version of `key` (possibly a delete marker), or the version `versionId`. */
  getObject(bucket: string, key: string, versionId?: string): ObjectVersion<A> | undefined;
  /** Reserves an extent of `size` body bytes in the active segment; 'out-of-space' below the disk reserve. */
  beginWrite(size: number): BodyWriter<A, P>;
  /**
   * Without `versionId`: removes the latest version (unversioned bucket) or adds a delete marker
   * (versioned). With it: removes that version for good. `condition.ifMatch` applies to the latest.
   */
  deleteObject(bucket: string, key: string, options?: DeleteOptions<A>): Promise<DeleteOutcome<A>>;
  /** A new latest version of `key` sharing `source`'s extents (no bytes copied); the source must still exist. */
  copyObject(
    source: { bucket: string; key: string; versionId: string },
    bucket: string,
    key: string,
    input: VersionInput<A>,
    condition?: WriteCondition,
  ): Promise<ObjectVersion<A>>;
  /** Changes a version's attrs in place (tags, ACL, retention): no new version. 'not-found' if it is gone. */
  updateAttrs(bucket: string, key: string, versionId: string | undefined, update: (attrs: A) => A, notice?: Notice): Promise<ObjectVersion<A>>;
  /**
   * Replaces a version's body by attrs that say where its bytes went (a lifecycle transition to
   * another storage class), in one logged change: the version keeps its id, entity tag and date;
   * its size becomes 0 and its extents are released (compaction gives the space back). Only if the
   * version is still the one the caller read (`expect`: same id, entity tag and date, so that an
   * overwrite of the null version since wins); false when it is not (or is gone).
   */
  dropBody(bucket: string, key: string, expect: { versionId: string; etag: string; lastModified: number }, update: (attrs: A) => A): Promise<boolean>;
  /** One page of current objects (delete markers skipped) in UTF-8 byte order (s3.md §3.0.8). */
  list(bucket: string, options: ListOptions): ListResult<A>;
  /** One page of versions: key ascending, then newest first (s3.md §3.0.7). */
  listVersions(bucket: string, options: ListVersionsOptions): ListVersionsResult<A>;
  /** Reads body bytes [start, end) of a version or part; 'corrupt' at once when it is `damaged`. */
  openRead(record: { size: number; extents: Extent[]; damaged?: number }, start: number, end: number): BodyReader;

  createUpload(bucket: string, key: string, attrs: A, initiated?: number): Promise<Upload<A>>;
  getUpload(bucket: string, key: string, uploadId: string): Upload<A> | undefined;
  listUploads(bucket: string, options: ListUploadsOptions): ListUploadsResult<A>;
  listParts(uploadId: string, partNumberMarker: number, maxParts: number): ListPartsResult<P>;
  /**
   * Makes the chosen parts, in order, one new version of `key` (their extents, never copied); every
   * other part is freed and the upload ends. 'not-found' (upload or part) or 'condition-failed'.
   */
  completeUpload(
    bucket: string,
    key: string,
    uploadId: string,
    parts: PartChoice[],
    input: VersionInput<A>,
    condition?: WriteCondition,
  ): Promise<ObjectVersion<A>>;
  /** Ends an upload and frees its parts; false if it did not exist. */
  abortUpload(bucket: string, key: string, uploadId: string): Promise<boolean>;

  /** Flushes and closes everything (SIGTERM). */
  close(): Promise<void>;
}

export interface StoreOptions {
  dataDir: string;
  /** 'strict' (default): acknowledged means fdatasync'ed. 'relaxed': no flush (benchmarks, caches). */
  durability: 'strict' | 'relaxed';
  /** Segment size in bytes (default 1 GiB); bodies larger than this get a segment of their own. */
  segmentSize?: number;
  /** Writes fail with 'out-of-space' once they would leave less than this many bytes free (default 256 MiB). */
  diskReserve?: number;
  /** Bytes of small bodies (up to 64 KiB) kept in memory once read (block-cache.ts; default 0, off). */
  readCacheBytes?: number;
  /**
   * A counter in shared memory (SharedArrayBuffer) the store bumps after every committed bucket
   * change, so that read replicas in other threads (read-replica.ts) drop the records they decoded.
   */
  bucketGeneration?: Int32Array;
  /** Told after compaction deleted a segment file (read replicas close their fds of it). */
  onSegmentRemoved?: (segment: number) => void;
}
