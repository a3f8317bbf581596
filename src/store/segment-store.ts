// The storage engine: segment files for bodies, the LMDB index for everything else. Index writes are
// conditional inside the write transaction (style.md §7) and commit only after the body is durable.

import fs from 'node:fs';
import path from 'node:path';
import { S3Error } from '../s3/errors.js';
import { SegmentBodyReader } from './body-reader.js';
import { DEFAULT_SMALL_BODY_MAX, SegmentBodyWriter, type WriterContext } from './body-writer.js';
import { fastestCrc32c, type Crc32c } from './crc32c.js';
import { align, SEGMENT_HEADER_SIZE } from './format.js';
import {
  bucketKey,
  bucketObjectsBase,
  lookupBucketKey,
  lookupObjectKey,
  openIndex,
  rangeEnd,
  toObjectRecord,
  type IndexDb,
  type SegmentStats,
  type StoredObject,
} from './index-db.js';
import { listObjects } from './list-objects.js';
import { recoverSegments, type RecoveryReport } from './recovery.js';
import { SegmentAllocator } from './segment-allocator.js';
import { SegmentFiles } from './segment-files.js';
import type {
  BodyReader,
  BodyWriter,
  BucketRecord,
  DeleteBucketResult,
  Extent,
  ListOptions,
  ListResult,
  ObjectRecord,
  Store,
  StoreOptions,
  WriteCondition,
} from './types.js';

export const DEFAULT_SEGMENT_SIZE = 1 << 30;

/** Knobs that are not part of the public contract: implementation injection and test hooks. */
export interface StoreInternals {
  /** CRC32C implementation for record bodies and headers (default: native if built, else TypeScript). */
  crc32c?: Crc32c;
  /** Bodies up to this size are written in one writev at commit (default 64 KiB). */
  smallBodyMax?: number;
}

export interface StoreStats {
  /** fdatasync calls issued on segment files by group commit */
  fdatasyncs: number;
  /** index commits that waited for LMDB's flush (strict mode) */
  indexFlushWaits: number;
  recovery: RecoveryReport;
  activeSegment: number;
  /** segment sync() calls covered by group commit (syncWaiters / fdatasyncs = mean group size) */
  syncWaiters: number;
  /** seconds spent in segment fdatasync */
  syncSeconds: number;
  /** bytes of segment files up to their furthest committed record */
  segmentBytes: number;
  /** body bytes of current objects; segmentBytes − liveBytes is what compaction could reclaim */
  liveBytes: number;
  /** records of current objects (one per extent) */
  liveRecords: number;
  /** bytes of the LMDB index in use */
  indexBytes: number;
  /** running totals of compaction passes; absent until the engine compacts */
  compaction?: CompactionTotals;
}

export interface CompactionTotals {
  passes: number;
  running: boolean;
  segmentsCompacted: number;
  segmentsDeleted: number;
  recordsMoved: number;
  bytesMoved: number;
}

type ConditionOutcome = 'ok' | 'no-bucket' | 'exists' | 'missing' | 'mismatch';

export class SegmentStore implements Store {
  private readonly writerContext: WriterContext;
  private closed = false;

  constructor(
    private readonly index: IndexDb,
    private readonly files: SegmentFiles,
    private readonly allocator: SegmentAllocator,
    private readonly strict: boolean,
    private readonly recovery: RecoveryReport,
    crc32c: Crc32c,
    smallBodyMax: number,
    private readonly counter: { fdatasyncs: number; indexFlushWaits: number; syncWaiters?: number; syncSeconds?: number },
  ) {
    this.writerContext = {
      files,
      allocator,
      crc32c,
      smallBodyMax,
      precheck: (bucket, key, recordKey, condition) => this.precheck(bucket, key, recordKey, condition),
      commitIndex: (recordKey, bucket, record, condition, recordEnd) =>
        this.commitObject(recordKey, bucket, record, condition, recordEnd),
    };
  }

  stats(): StoreStats {
    let segmentBytes = 0;
    let liveBytes = 0;
    let liveRecords = 0;
    for (const { value } of this.index.segments.getRange({})) {
      segmentBytes += value.end;
      liveBytes += value.live;
      liveRecords += value.records;
    }
    const lmdb = this.index.env.getStats() as { pageSize: number; lastPageNumber: number };
    return {
      fdatasyncs: this.counter.fdatasyncs,
      indexFlushWaits: this.counter.indexFlushWaits,
      syncWaiters: this.counter.syncWaiters ?? 0,
      syncSeconds: this.counter.syncSeconds ?? 0,
      recovery: this.recovery,
      activeSegment: this.allocator.activeSegment,
      segmentBytes,
      liveBytes,
      liveRecords,
      indexBytes: (lmdb.lastPageNumber + 1) * lmdb.pageSize,
    };
  }

  getBucket(name: string): BucketRecord | undefined {
    const key = lookupBucketKey(name);
    return key && this.index.buckets.get(key);
  }

  async createBucket(record: BucketRecord): Promise<'created' | 'exists'> {
    const key = bucketKey(record.name);
    const outcome = await this.index.env.transaction(() => {
      if (this.index.buckets.get(key) !== undefined) return 'exists' as const;
      this.index.buckets.putSync(key, record);
      return 'created' as const;
    });
    if (outcome === 'created') await this.flushed();
    return outcome;
  }

  async putBucket(record: BucketRecord): Promise<void> {
    await this.index.buckets.put(bucketKey(record.name), record);
    await this.flushed();
  }

  async deleteBucket(name: string): Promise<DeleteBucketResult> {
    const key = lookupBucketKey(name);
    if (!key) return 'missing';
    const base = bucketObjectsBase(name);
    const outcome = await this.index.env.transaction((): DeleteBucketResult => {
      if (this.index.buckets.get(key) === undefined) return 'missing';
      for (const _ of this.index.objects.getKeys({ start: base, end: rangeEnd(base), limit: 1 })) return 'not-empty';
      this.index.buckets.removeSync(key);
      return 'deleted';
    });
    if (outcome === 'deleted') await this.flushed();
    return outcome;
  }

  listBuckets(owner?: string): BucketRecord[] {
    const out: BucketRecord[] = [];
    for (const { value } of this.index.buckets.getRange({})) if (owner === undefined || value.owner === owner) out.push(value);
    return out;
  }

  getObject(bucket: string, key: string): ObjectRecord | undefined {
    const recordKey = lookupObjectKey(bucket, key);
    const stored = recordKey && this.index.objects.get(recordKey);
    return stored ? toObjectRecord(key, stored) : undefined;
  }

  beginWrite(size: number): BodyWriter {
    this.assertOpen();
    return new SegmentBodyWriter(size, this.writerContext);
  }

  async deleteObject(bucket: string, key: string, condition?: { ifMatch?: string }): Promise<'deleted' | 'missing'> {
    const recordKey = lookupObjectKey(bucket, key);
    if (!recordKey) return 'missing';
    const outcome = await this.index.env.transaction((): 'deleted' | 'missing' | 'mismatch' => {
      const current = this.index.objects.get(recordKey);
      if (!current) return 'missing';
      if (condition?.ifMatch !== undefined && current.etag !== condition.ifMatch) return 'mismatch';
      this.index.objects.removeSync(recordKey);
      this.account(current.extents, -1);
      return 'deleted';
    });
    if (outcome === 'mismatch') throw new S3Error('PreconditionFailed', { Condition: 'If-Match' });
    if (outcome === 'deleted') await this.flushed();
    return outcome;
  }

  list(bucket: string, options: ListOptions): ListResult {
    if (!lookupBucketKey(bucket)) return { items: [], isTruncated: false };
    return listObjects(this.index, bucket, options);
  }

  openRead(record: ObjectRecord, start: number, end: number): BodyReader {
    this.assertOpen();
    return new SegmentBodyReader(this.files, record, start, end);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.index.env.flushed;
    await this.index.env.close();
    await this.files.closeAll();
  }

  private precheck(bucket: string, key: string, recordKey: Buffer, condition: WriteCondition | undefined): void {
    const current = this.index.objects.get(recordKey);
    const outcome = evaluate(this.getBucket(bucket) !== undefined, current, condition);
    if (outcome !== 'ok') throw conditionError(outcome, bucket, key);
  }

  private async commitObject(
    recordKey: Buffer,
    bucket: string,
    record: ObjectRecord,
    condition: WriteCondition | undefined,
    recordEnd: number,
  ): Promise<void> {
    const bucketId = bucketKey(bucket);
    const stored = toStored(record);
    const outcome = await this.index.env.transaction((): ConditionOutcome => {
      const current = this.index.objects.get(recordKey);
      const result = evaluate(this.index.buckets.get(bucketId) !== undefined, current, condition);
      if (result !== 'ok') return result;
      this.index.objects.putSync(recordKey, stored);
      if (current) this.account(current.extents, -1);
      this.account(record.extents, +1, recordEnd);
      return 'ok';
    });
    if (outcome !== 'ok') throw conditionError(outcome, bucket, record.key);
    await this.flushed();
  }

  /** Inside a write transaction: moves extents in or out of their segments' live counts. */
  private account(extents: Extent[], sign: 1 | -1, recordEnd?: number): void {
    for (const extent of extents) {
      const stats: SegmentStats = this.index.segments.get(extent.segment) ?? { live: 0, records: 0, end: SEGMENT_HEADER_SIZE };
      const next: SegmentStats = {
        live: stats.live + sign * extent.length,
        records: stats.records + sign,
        end: recordEnd === undefined ? stats.end : Math.max(stats.end, recordEnd),
      };
      this.index.segments.putSync(extent.segment, next);
    }
  }

  /** Strict mode acknowledges only what LMDB has flushed (its commits overlap their syncs). */
  private async flushed(): Promise<void> {
    if (!this.strict) return;
    this.counter.indexFlushWaits++;
    await this.index.env.flushed;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}

function evaluate(
  bucketExists: boolean,
  current: StoredObject | undefined,
  condition: WriteCondition | undefined,
): ConditionOutcome {
  if (!bucketExists) return 'no-bucket';
  if (condition?.ifNoneMatchStar && current) return 'exists';
  if (condition?.ifMatch !== undefined) {
    if (!current) return 'missing';
    if (current.etag !== condition.ifMatch) return 'mismatch';
  }
  return 'ok';
}

function conditionError(outcome: Exclude<ConditionOutcome, 'ok'>, bucket: string, key: string): S3Error {
  switch (outcome) {
    case 'no-bucket':
      return new S3Error('NoSuchBucket', { BucketName: bucket });
    case 'exists':
      return new S3Error('PreconditionFailed', { Condition: 'If-None-Match' });
    case 'missing':
      return new S3Error('NoSuchKey', { Key: key });
    case 'mismatch':
      return new S3Error('PreconditionFailed', { Condition: 'If-Match' });
  }
}

function toStored(record: ObjectRecord): StoredObject {
  const { key: _key, ...stored } = record;
  return stored;
}

export async function openSegmentStore(options: StoreOptions, internals: StoreInternals = {}): Promise<SegmentStore> {
  const crc32c = internals.crc32c ?? (await fastestCrc32c());
  const segmentSize = options.segmentSize ?? DEFAULT_SEGMENT_SIZE;
  const strict = options.durability !== 'relaxed';
  const segmentDir = path.join(options.dataDir, 'segments');
  fs.mkdirSync(segmentDir, { recursive: true });

  const index = openIndex(options.dataDir);
  const stats = new Map<number, SegmentStats>();
  for (const { key, value } of index.segments.getRange({})) stats.set(key, value);
  const { segments, report } = recoverSegments(segmentDir, stats, crc32c);

  const counter = { fdatasyncs: 0, indexFlushWaits: 0 };
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
  return new SegmentStore(index, files, allocator, strict, report, crc32c, internals.smallBodyMax ?? DEFAULT_SMALL_BODY_MAX, counter);
}
