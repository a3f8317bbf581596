// The storage engine: segment files for bodies, the LMDB index for everything else. Every index
// change is one write transaction that checks its conditions inside (style.md §7), commits only
// after the bodies it points at are durable, and keeps the per-segment live counts that compaction
// reads.

import fs from 'node:fs';
import path from 'node:path';
import { SegmentBodyReader } from './body-reader.js';
import { DEFAULT_SMALL_BODY_MAX, SegmentBodyWriter, type WriterContext } from './body-writer.js';
import { fastestCrc32c, type Crc32c } from './crc32c.js';
import { asStoreError, StoreError, type StoreSubject } from './errors.js';
import { ID_LENGTH, SequenceClock, makeId } from './ids.js';
import { align, SEGMENT_HEADER_SIZE } from './format.js';
import {
  bucketKey,
  bucketObjectsBase,
  lookupBucketKey,
  lookupObjectKey,
  objectKey,
  openIndex,
  partKey,
  rangeEnd,
  toVersion,
  uploadKey,
  type IndexDb,
  type SegmentStats,
  type StoredPart,
  type StoredVersion,
} from './index-db.js';
import { listObjects, listUploads, listVersions } from './listing.js';
import { recoverSegments, type RecoveryReport } from './recovery.js';
import { SegmentAllocator } from './segment-allocator.js';
import { SegmentFiles } from './segment-files.js';
import { findVersion, pushVersion, removeVersion } from './version-chain.js';
import {
  NULL_VERSION,
  type BodyReader,
  type BodyWriter,
  type BucketRecord,
  type DeleteBucketResult,
  type DeleteOptions,
  type DeleteOutcome,
  type Extent,
  type ListOptions,
  type ListPartsResult,
  type ListResult,
  type ListUploadsOptions,
  type ListUploadsResult,
  type ListVersionsOptions,
  type ListVersionsResult,
  type ObjectVersion,
  type Part,
  type PartChoice,
  type Store,
  type StoreOptions,
  type Upload,
  type VersionInput,
  type WriteCondition,
} from './types.js';

export const DEFAULT_SEGMENT_SIZE = 1 << 30;
export const DEFAULT_DISK_RESERVE = 256 * 1024 * 1024;
/** How long a free-space reading is trusted (writes reserved since are subtracted from it). */
const STATFS_TTL_MS = 500;
const MAX_PART_NUMBER = 10_000;

/** Knobs that are not part of the public contract: implementation injection and test hooks. */
export interface StoreInternals {
  /** CRC32C implementation for record bodies and headers (default: native if built, else TypeScript). */
  crc32c?: Crc32c;
  /** Bodies up to this size are written in one writev at commit (default 64 KiB). */
  smallBodyMax?: number;
  /** Free bytes of the data directory's file system (default: statfs); tests inject a small disk. */
  freeBytes?: () => number;
}

export interface StoreStats {
  /** fdatasync calls issued on segment files by group commit */
  fdatasyncs: number;
  /** index commits that waited for LMDB's flush (strict mode) */
  indexFlushWaits: number;
  /** blocks that failed their CRC32C on read */
  corruptBlocks: number;
  /** writes refused for lack of space */
  outOfSpace: number;
  recovery: RecoveryReport;
  activeSegment: number;
}

type Failure = { fail: StoreError };
type Outcome<T> = T | Failure;

function failed<T>(o: Outcome<T>): o is Failure {
  return typeof o === 'object' && o !== null && 'fail' in o;
}

function fail(kind: StoreError['kind'], message: string, subject?: StoreSubject, detail?: Record<string, string | number>): Failure {
  return { fail: new StoreError(kind, message, subject, detail) };
}

/** Evaluates a write condition against the key's latest version (undefined: none or a delete marker). */
function checkCondition(current: StoredVersion | undefined, condition: WriteCondition | undefined): Failure | undefined {
  const live = current && !current.deleteMarker ? current : undefined;
  if (condition?.ifNoneMatchStar && live) return fail('condition-failed', 'the key exists', 'key', { condition: 'If-None-Match' });
  if (condition?.ifMatch !== undefined) {
    if (!live) return fail('not-found', 'the key does not exist', 'key');
    if (condition.ifMatch !== '*' && live.etag !== condition.ifMatch) {
      return fail('condition-failed', 'the entity tag differs', 'key', { condition: 'If-Match' });
    }
  }
  return undefined;
}

export class SegmentStore<A = unknown, P = unknown> implements Store<A, P> {
  private readonly writerContext: WriterContext;
  private readonly clock: SequenceClock;
  private closed = false;
  private free: { bytes: number; at: number } | undefined;

  constructor(
    private readonly index: IndexDb,
    private readonly files: SegmentFiles,
    private readonly allocator: SegmentAllocator,
    private readonly strict: boolean,
    private readonly recovery: RecoveryReport,
    private readonly crc32c: Crc32c,
    smallBodyMax: number,
    private readonly diskReserve: number,
    private readonly freeBytes: () => number,
    private readonly counter: { fdatasyncs: number; indexFlushWaits: number; corruptBlocks: number; outOfSpace: number },
  ) {
    this.clock = new SequenceClock(Number(index.meta.get('seq') ?? 0));
    this.writerContext = {
      files,
      allocator,
      crc32c,
      smallBodyMax,
      checkSpace: (length) => this.checkSpace(length),
      commitVersion: (bucket, key, extent, input, condition, end) =>
        this.commitVersion(bucket, key, extent, input as VersionInput<A>, condition, end) as Promise<ObjectVersion>,
      commitPart: (bucket, key, uploadId, partNumber, extent, input, end) =>
        this.commitPart(bucket, key, uploadId, partNumber, extent, input as VersionInput<P>, end) as Promise<Part>,
    };
  }

  stats(): StoreStats {
    return { ...this.counter, recovery: this.recovery, activeSegment: this.allocator.activeSegment };
  }

  // ── buckets ──────────────────────────────────────────────────────────────────────────────

  getBucket(name: string): BucketRecord | undefined {
    const key = lookupBucketKey(name);
    return key && this.index.buckets.get(key);
  }

  async createBucket(record: BucketRecord): Promise<'created' | 'exists'> {
    const key = bucketKey(record.name);
    return this.write(() => {
      if (this.index.buckets.get(key) !== undefined) return 'exists' as const;
      this.index.buckets.putSync(key, record);
      return 'created' as const;
    });
  }

  async putBucket(record: BucketRecord): Promise<void> {
    const key = bucketKey(record.name);
    await this.write(() => {
      const current = this.index.buckets.get(key);
      if (!current) return fail('namespace-missing', `no bucket ${record.name}`, 'bucket');
      // versioning, once on, only moves between Enabled and Suspended (s3.md §3.0.7)
      const versioning = record.versioning === 'Unversioned' ? current.versioning : record.versioning;
      this.index.buckets.putSync(key, { ...record, versioning });
      return undefined;
    });
  }

  async updateBucket(name: string, update: (current: BucketRecord) => BucketRecord): Promise<BucketRecord> {
    const key = bucketKey(name);
    return this.write(() => {
      const current = this.index.buckets.get(key);
      if (!current) return fail('namespace-missing', `no bucket ${name}`, 'bucket');
      const next = update(current);
      // versioning, once on, only moves between Enabled and Suspended (s3.md §3.0.7)
      const record = { ...next, name, versioning: next.versioning === 'Unversioned' ? current.versioning : next.versioning };
      this.index.buckets.putSync(key, record);
      return record;
    });
  }

  async deleteBucket(name: string): Promise<DeleteBucketResult> {
    const key = lookupBucketKey(name);
    if (!key) return 'missing';
    const base = bucketObjectsBase(name);
    return this.write((): DeleteBucketResult => {
      if (this.index.buckets.get(key) === undefined) return 'missing';
      for (const _ of this.index.objects.getKeys({ start: base, end: rangeEnd(base), limit: 1 })) return 'not-empty';
      for (const at of this.index.uploads.getKeys({ start: base, end: rangeEnd(base) })) {
        this.dropParts(at.subarray(at.length - ID_LENGTH).toString('latin1'));
        this.index.uploads.removeSync(at);
      }
      this.index.buckets.removeSync(key);
      return 'deleted';
    });
  }

  listBuckets(owner?: string): BucketRecord[] {
    const out: BucketRecord[] = [];
    for (const { value } of this.index.buckets.getRange({})) if (owner === undefined || value.owner === owner) out.push(value);
    return out;
  }

  // ── objects ──────────────────────────────────────────────────────────────────────────────

  getObject(bucket: string, key: string, versionId?: string): ObjectVersion<A> | undefined {
    const objKey = lookupObjectKey(bucket, key);
    if (!objKey) return undefined;
    if (versionId === undefined) {
      const latest = this.index.objects.get(objKey);
      return latest && toVersion<A>(key, latest);
    }
    const found = findVersion(this.index, objKey, versionId);
    return found && toVersion<A>(key, found.version);
  }

  beginWrite(size: number): BodyWriter<A, P> {
    this.assertOpen();
    return new SegmentBodyWriter(size, this.writerContext) as unknown as BodyWriter<A, P>;
  }

  async deleteObject(bucket: string, key: string, options: DeleteOptions<A> = {}): Promise<DeleteOutcome<A>> {
    const bucketId = bucketKey(bucket);
    const objKey = lookupObjectKey(bucket, key);
    if (!objKey) return { kind: 'missing' };
    return this.write((): Outcome<DeleteOutcome<A>> => {
      const record = this.index.buckets.get(bucketId);
      if (!record) return fail('namespace-missing', `no bucket ${bucket}`, 'bucket');
      const latest = this.index.objects.get(objKey);
      // If-Match on a key with no current object deletes nothing, as a plain delete of it does
      const unmet = options.condition && latest && !latest.deleteMarker ? checkCondition(latest, options.condition) : undefined;
      if (unmet) return unmet;
      if (options.versionId !== undefined) {
        const found = findVersion(this.index, objKey, options.versionId);
        if (!found) return { kind: 'missing' };
        const guarded = this.guard(key, found.version, options);
        if (guarded) return guarded;
        removeVersion(this.index, objKey, found);
        this.account(found.version.extents, -1);
        return { kind: 'removed', version: toVersion<A>(key, found.version) };
      }
      if (record.versioning === 'Unversioned') {
        if (!latest) return { kind: 'missing' };
        const guarded = this.guard(key, latest, options);
        if (guarded) return guarded;
        this.index.objects.removeSync(objKey);
        this.account(latest.extents, -1);
        return { kind: 'removed', version: toVersion<A>(key, latest) };
      }
      const seq = this.clock.next();
      const marker: StoredVersion = {
        versionId: record.versioning === 'Enabled' ? makeId(seq) : NULL_VERSION,
        deleteMarker: true,
        size: 0,
        etag: '',
        lastModified: Date.now(),
        extents: [],
        attrs: undefined,
        seq,
      };
      this.dropVersions(pushVersion(this.index, objKey, marker, record.versioning));
      this.index.meta.putSync('seq', seq);
      return { kind: 'marker', marker: toVersion<A>(key, marker) };
    });
  }

  async copyObject(
    source: { bucket: string; key: string; versionId: string },
    bucket: string,
    key: string,
    input: VersionInput<A>,
    condition?: WriteCondition,
  ): Promise<ObjectVersion<A>> {
    const sourceKey = objectKey(source.bucket, source.key);
    return this.write(() => {
      const found = findVersion(this.index, sourceKey, source.versionId);
      if (!found || found.version.deleteMarker) return fail('not-found', 'the copy source is gone', 'version');
      return this.newVersion(bucket, key, found.version.size, found.version.extents, input, condition);
    });
  }

  async updateAttrs(bucket: string, key: string, versionId: string | undefined, update: (attrs: A) => A): Promise<ObjectVersion<A>> {
    const objKey = objectKey(bucket, key);
    return this.write(() => {
      const latest = this.index.objects.get(objKey);
      const found = versionId === undefined ? latest && ({ where: 'latest', version: latest } as const) : findVersion(this.index, objKey, versionId);
      if (!found || found.version.deleteMarker) return fail('not-found', 'no such version', versionId === undefined ? 'key' : 'version');
      const next: StoredVersion = { ...found.version, attrs: update(found.version.attrs as A) };
      if (found.where === 'latest') this.index.objects.putSync(objKey, next);
      else this.index.versions.putSync(found.at, next);
      return toVersion<A>(key, next);
    });
  }

  list(bucket: string, options: ListOptions): ListResult<A> {
    if (!lookupBucketKey(bucket)) return { items: [], isTruncated: false };
    return listObjects<A>(this.index, bucket, options);
  }

  listVersions(bucket: string, options: ListVersionsOptions): ListVersionsResult<A> {
    if (!lookupBucketKey(bucket)) return { items: [], isTruncated: false };
    return listVersions<A>(this.index, bucket, options);
  }

  openRead(record: { size: number; extents: Extent[] }, start: number, end: number): BodyReader {
    this.assertOpen();
    return new SegmentBodyReader(
      { files: this.files, crc32c: this.crc32c, onCorrupt: () => this.counter.corruptBlocks++ },
      record,
      start,
      end,
    );
  }

  // ── multipart uploads ───────────────────────────────────────────────────────────────────

  async createUpload(bucket: string, key: string, attrs: A, initiated = Date.now()): Promise<Upload<A>> {
    const bucketId = bucketKey(bucket);
    const objKey = objectKey(bucket, key);
    return this.write(() => {
      if (!this.index.buckets.get(bucketId)) return fail('namespace-missing', `no bucket ${bucket}`, 'bucket');
      const seq = this.clock.next();
      const uploadId = makeId(seq);
      this.index.uploads.putSync(uploadKey(objKey, uploadId), { initiated, attrs });
      this.index.meta.putSync('seq', seq);
      return { bucket, key, uploadId, initiated, attrs };
    });
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
    const start = partKey(uploadId, Math.min(partNumberMarker + 1, MAX_PART_NUMBER + 1));
    const end = partKey(uploadId, MAX_PART_NUMBER + 1);
    for (const { key, value } of this.index.parts.getRange({ start, end })) {
      if (parts.length === maxParts) return { parts, isTruncated: true };
      parts.push(toPart<P>(key.readUInt16BE(key.length - 2), value));
    }
    return { parts, isTruncated: false };
  }

  async completeUpload(
    bucket: string,
    key: string,
    uploadId: string,
    choices: PartChoice[],
    input: VersionInput<A>,
    condition?: WriteCondition,
  ): Promise<ObjectVersion<A>> {
    const objKey = objectKey(bucket, key);
    const at = uploadKey(objKey, uploadId);
    return this.write(() => {
      if (!this.index.uploads.get(at)) return fail('not-found', 'no such upload', 'upload');
      const parts = new Map<number, StoredPart>();
      for (const { key: pk, value } of this.index.parts.getRange({ start: partKey(uploadId, 0), end: partKey(uploadId, MAX_PART_NUMBER + 1) })) {
        parts.set(pk.readUInt16BE(pk.length - 2), value);
      }
      const extents: Extent[] = [];
      let size = 0;
      for (const choice of choices) {
        const part = parts.get(choice.partNumber);
        if (!part) return fail('not-found', `no part ${choice.partNumber}`, 'part', { partNumber: choice.partNumber });
        if (part.etag !== choice.etag) {
          return fail('condition-failed', `part ${choice.partNumber} has another entity tag`, 'part', { partNumber: choice.partNumber });
        }
        extents.push(...part.extents);
        size += part.size;
      }
      const version = this.newVersion(bucket, key, size, extents, input, condition, true);
      if (failed(version)) return version;
      // the chosen parts' extents now belong to the version; the others are freed
      const chosen = new Set(choices.map((c) => c.partNumber));
      for (const [n, part] of parts) {
        if (!chosen.has(n)) this.account(part.extents, -1);
        this.index.parts.removeSync(partKey(uploadId, n));
      }
      this.index.uploads.removeSync(at);
      return version;
    });
  }

  async abortUpload(bucket: string, key: string, uploadId: string): Promise<boolean> {
    const objKey = objectKey(bucket, key);
    const at = uploadKey(objKey, uploadId);
    return this.write(() => {
      if (!this.index.uploads.get(at)) return false;
      this.dropParts(uploadId);
      this.index.uploads.removeSync(at);
      return true;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.index.env.flushed;
    await this.index.env.close();
    await this.files.closeAll();
  }

  // ── inside write transactions ────────────────────────────────────────────────────────────

  private commitVersion(
    bucket: string,
    key: string,
    extent: Extent,
    input: VersionInput<A>,
    condition: WriteCondition | undefined,
    recordEnd: number,
  ): Promise<ObjectVersion<A>> {
    return this.write(() => {
      this.markEnd(extent.segment, recordEnd);
      return this.newVersion(bucket, key, extent.length, [extent], input, condition);
    });
  }

  private commitPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    extent: Extent,
    input: VersionInput<P>,
    recordEnd: number,
  ): Promise<Part<P>> {
    const at = uploadKey(objectKey(bucket, key), uploadId);
    const pk = partKey(uploadId, partNumber);
    return this.write(() => {
      this.markEnd(extent.segment, recordEnd);
      if (!this.index.uploads.get(at)) return fail('not-found', 'no such upload', 'upload');
      const old = this.index.parts.get(pk);
      if (old) this.account(old.extents, -1);
      const part: StoredPart = { size: extent.length, etag: input.etag, lastModified: input.lastModified, extents: [extent], attrs: input.attrs };
      this.index.parts.putSync(pk, part);
      this.account(part.extents, +1);
      return toPart<P>(partNumber, part);
    });
  }

  /**
   * Makes a new latest version of `key` over `extents`, whose references are counted here unless
   * `counted` (a completed upload's parts already are).
   */
  private newVersion(
    bucket: string,
    key: string,
    size: number,
    extents: Extent[],
    input: VersionInput<A>,
    condition: WriteCondition | undefined,
    counted = false,
  ): Outcome<ObjectVersion<A>> {
    const record = this.index.buckets.get(bucketKey(bucket));
    if (!record) return fail('namespace-missing', `no bucket ${bucket}`, 'bucket');
    const objKey = objectKey(bucket, key);
    const unmet = checkCondition(this.index.objects.get(objKey), condition);
    if (unmet) return unmet;
    const seq = this.clock.next();
    const version: StoredVersion = {
      versionId: record.versioning === 'Enabled' ? makeId(seq) : NULL_VERSION,
      deleteMarker: false,
      size,
      etag: input.etag,
      lastModified: input.lastModified,
      extents,
      attrs: input.attrs,
      seq,
    };
    this.dropVersions(pushVersion(this.index, objKey, version, record.versioning));
    if (!counted) this.account(extents, +1);
    this.index.meta.putSync('seq', seq);
    return toVersion<A>(key, version);
  }

  private guard(key: string, version: StoredVersion, options: DeleteOptions<A>): Failure | undefined {
    if (!options.mayRemove || version.deleteMarker || options.mayRemove(toVersion<A>(key, version))) return undefined;
    return fail('condition-failed', 'the version is protected', 'version', { condition: 'guard', versionId: version.versionId });
  }

  private dropVersions(dropped: StoredVersion[]): void {
    for (const v of dropped) this.account(v.extents, -1);
  }

  private dropParts(uploadId: string): void {
    for (const { key, value } of this.index.parts.getRange({ start: partKey(uploadId, 0), end: partKey(uploadId, MAX_PART_NUMBER + 1) })) {
      this.account(value.extents, -1);
      this.index.parts.removeSync(key);
    }
  }

  /** Moves extents in or out of their segments' live counts. */
  private account(extents: Extent[], sign: 1 | -1): void {
    for (const extent of extents) {
      const stats = this.segmentStats(extent.segment);
      this.index.segments.putSync(extent.segment, {
        live: stats.live + sign * extent.length,
        records: stats.records + sign,
        end: stats.end,
      });
    }
  }

  /** Recovery keeps a segment's bytes up to its furthest committed record. */
  private markEnd(segment: number, recordEnd: number): void {
    const stats = this.segmentStats(segment);
    if (recordEnd > stats.end) this.index.segments.putSync(segment, { ...stats, end: recordEnd });
  }

  private segmentStats(segment: number): SegmentStats {
    return this.index.segments.get(segment) ?? { live: 0, records: 0, end: SEGMENT_HEADER_SIZE };
  }

  /**
   * Runs `body` in one index write transaction; a Failure it returns becomes a rejection once the
   * transaction has ended, and the result is acknowledged only once durable (strict mode).
   */
  private async write<T>(body: () => Outcome<T>): Promise<T> {
    this.assertOpen();
    let outcome: Outcome<T>;
    try {
      outcome = await this.index.env.transaction(body);
    } catch (e) {
      throw asStoreError(e);
    }
    if (failed(outcome)) throw outcome.fail;
    await this.flushed();
    return outcome;
  }

  /** Strict mode acknowledges only what LMDB has flushed (its commits overlap their syncs). */
  private async flushed(): Promise<void> {
    if (!this.strict) return;
    this.counter.indexFlushWaits++;
    try {
      await this.index.env.flushed;
    } catch (e) {
      throw asStoreError(e);
    }
  }

  /** Refuses a write that would leave less than the disk reserve free, so that the index never hits ENOSPC. */
  private checkSpace(length: number): void {
    const now = Date.now();
    if (!this.free || now - this.free.at > STATFS_TTL_MS) this.free = { bytes: this.freeBytes(), at: now };
    if (this.free.bytes - length < this.diskReserve) {
      this.counter.outOfSpace++;
      this.free = undefined; // read again next time: space may have come back
      throw new StoreError('out-of-space', `writing ${length} bytes would leave less than the ${this.diskReserve}-byte reserve free`);
    }
    this.free.bytes -= length;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}

function toPart<P>(partNumber: number, stored: StoredPart): Part<P> {
  return { partNumber, ...stored, attrs: stored.attrs as P };
}

function statfsFree(dir: string): () => number {
  return () => {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  };
}

export async function openSegmentStore<A = unknown, P = unknown>(
  options: StoreOptions,
  internals: StoreInternals = {},
): Promise<SegmentStore<A, P>> {
  const crc32c = internals.crc32c ?? (await fastestCrc32c());
  const segmentSize = options.segmentSize ?? DEFAULT_SEGMENT_SIZE;
  const strict = options.durability !== 'relaxed';
  const segmentDir = path.join(options.dataDir, 'segments');
  fs.mkdirSync(segmentDir, { recursive: true });

  const index = openIndex(options.dataDir);
  const stats = new Map<number, SegmentStats>();
  for (const { key, value } of index.segments.getRange({})) stats.set(key, value);
  const { segments, report } = recoverSegments(segmentDir, stats, crc32c);

  const counter = { fdatasyncs: 0, indexFlushWaits: 0, corruptBlocks: 0, outOfSpace: 0 };
  const files = new SegmentFiles(segmentDir, crc32c, strict, counter);
  for (const s of segments) files.adopt(s.segment, s.fd);
  const highest = Math.max(0, ...segments.map((s) => s.segment), ...stats.keys());
  const last = segments.at(-1);
  let allocator: SegmentAllocator;
  if (last && last.segment === highest && last.end < segmentSize) {
    allocator = new SegmentAllocator(files, segmentSize, last.segment, align(last.end), highest + 1);
  } else {
    files.create(highest + 1);
    allocator = new SegmentAllocator(files, segmentSize, highest + 1, SEGMENT_HEADER_SIZE, highest + 2);
  }
  return new SegmentStore<A, P>(
    index,
    files,
    allocator,
    strict,
    report,
    crc32c,
    internals.smallBodyMax ?? DEFAULT_SMALL_BODY_MAX,
    options.diskReserve ?? DEFAULT_DISK_RESERVE,
    internals.freeBytes ?? statfsFree(options.dataDir),
    counter,
  );
}
