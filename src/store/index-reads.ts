// The engine's reads: buckets, versions, listings, uploads and bodies, straight from the LMDB index
// and the segment files. The writing store (segment-store.ts) and a read replica in another
// thread (read-replica.ts) both serve reads through this.

import { GenerationWatch } from '../base/shared-generation.js';
import { SegmentBodyReader, type ReadContext } from './body-reader.js';
import { StoreError, type StoreSubject } from './errors.js';
import { lookupBucketKey, lookupObjectKey, lookupObjectKeyNow, partsOf, toVersion, uploadKey, type IndexDb, type StoredPart } from './index-db.js';
import { listObjects, listUploads, listVersions } from './listing.js';
import type {
  BodyReader,
  BucketRecord,
  Extent,
  ListOptions,
  ListPartsResult,
  ListResult,
  ListUploadsOptions,
  ListUploadsResult,
  ListVersionsOptions,
  ListVersionsResult,
  ObjectVersion,
  Part,
  Upload,
} from './types.js';
import { findVersion } from './version-chain.js';

export class IndexReads<A = unknown, P = unknown, B extends BucketRecord = BucketRecord> {
  protected closed = false;
  private readonly bucketCache = new Map<string, B>();
  private readonly bucketChanges: GenerationWatch;

  constructor(
    protected readonly index: IndexDb,
    protected readonly readContext: ReadContext,
    /** bumped after every committed bucket change, by whichever thread writes */
    bucketGeneration?: Int32Array,
  ) {
    this.bucketChanges = new GenerationWatch(bucketGeneration);
  }

  /**
   * The bucket's record, decoded once and kept until a change of that bucket commits (in this
   * thread: forgetBucket; in another: the shared generation moved); frozen, as every caller shares it.
   */
  getBucket(name: string): B | undefined {
    if (this.bucketChanges.moved()) this.bucketCache.clear();
    const cached = this.bucketCache.get(name);
    if (cached) return cached;
    const key = lookupBucketKey(name);
    const record = key && (this.index.buckets.get(key) as B | undefined);
    // only buckets that exist: names from requests must not grow the map
    if (record) this.bucketCache.set(name, Object.freeze(record));
    return record;
  }

  listBuckets(owner?: string): B[] {
    const out: B[] = [];
    for (const { value } of this.index.buckets.getRange({})) if (owner === undefined || value.owner === owner) out.push(value as B);
    return out;
  }

  getObject(bucket: string, key: string, versionId?: string): ObjectVersion<A> | undefined {
    if (versionId === undefined) {
      const now = lookupObjectKeyNow(bucket, key);
      const latest = now && this.index.objects.get(now);
      return latest && toVersion<A>(key, latest);
    }
    const objKey = lookupObjectKey(bucket, key);
    if (!objKey) return undefined;
    const found = findVersion(this.index, objKey, versionId);
    return found && toVersion<A>(key, found.version);
  }

  list(bucket: string, options: ListOptions): ListResult<A> {
    if (!lookupBucketKey(bucket)) return { items: [], isTruncated: false };
    return listObjects<A>(this.index, bucket, options);
  }

  listVersions(bucket: string, options: ListVersionsOptions): ListVersionsResult<A> {
    if (!lookupBucketKey(bucket)) return { items: [], isTruncated: false };
    return listVersions<A>(this.index, bucket, options);
  }

  openRead(record: { size: number; extents: Extent[]; damaged?: number }, start: number, end: number): BodyReader {
    this.assertOpen();
    if (record.damaged) throw damagedError(record.damaged);
    return new SegmentBodyReader(this.readContext, record, start, end);
  }

  getUpload(bucket: string, key: string, uploadId: string): Upload<A> | undefined {
    const objKey = lookupObjectKey(bucket, key);
    const stored = objKey && this.index.uploads.get(uploadKey(objKey, uploadId));
    return stored ? { bucket, key, uploadId, initiated: stored.initiated, attrs: stored.attrs as A } : undefined;
  }

  listUploads(bucket: string, options: ListUploadsOptions): ListUploadsResult<A> {
    if (!lookupBucketKey(bucket)) return { items: [], isTruncated: false };
    return listUploads<A>(this.index, bucket, options);
  }

  listParts(uploadId: string, partNumberMarker: number, maxParts: number): ListPartsResult<P> {
    const parts: Part<P>[] = [];
    if (maxParts <= 0) return { parts, isTruncated: false };
    for (const { partNumber, value } of partsOf(this.index, uploadId, partNumberMarker)) {
      if (parts.length === maxParts) return { parts, isTruncated: true };
      parts.push(toPart<P>(partNumber, value));
    }
    return { parts, isTruncated: false };
  }

  /** After a change of `name` committed in this thread: the next read decodes the new record, here and in every other thread. */
  protected forgetBucket(name: string): void {
    this.bucketCache.delete(name);
    this.bucketChanges.bump();
  }

  protected assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}

/** The failure of any read or copy of a body with missing bytes (damage.ts). */
export function damagedError(missing: number, subject: StoreSubject = 'version', detail: Record<string, number> = {}): StoreError {
  return new StoreError('corrupt', `${missing} bytes of the body are missing from its segment file`, subject, { missing, ...detail });
}

export function toPart<P>(partNumber: number, stored: StoredPart): Part<P> {
  return { partNumber, ...stored, attrs: stored.attrs as P };
}
