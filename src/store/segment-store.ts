// The storage engine: segment files for bodies, the LMDB index for everything else. Every index
// change is one write transaction that checks its conditions inside (style.md §7), commits only
// after the bodies it points at are durable, and keeps the per-segment live counts that compaction
// reads.

import { BlockCache } from './block-cache.js';
import { Compactor, DEFAULT_COMPACTION, type CompactionOptions, type CompactionReport } from './compaction.js';
import { SegmentBodyWriter, type CommitTarget, type WriterContext } from './body-writer.js';
import { type Crc32c } from './crc32c.js';
import { asStoreError } from './errors.js';
import { ID_LENGTH, SequenceClock, makeId } from './ids.js';
import { bucketKey, bucketObjectsBase, lookupBucketKey, lookupObjectKey, objectKey, partsOf, rangeEnd, toVersion, uploadKey, type IndexDb, type StoredPart, type StoredVersion } from './index-db.js';
import { DamageTally } from './damage.js';
import { SegmentAllocator, type Reservation } from './segment-allocator.js';
import { SegmentFiles } from './segment-files.js';
import { KeyLocks } from './key-locks.js';
import { applyLogged, RedoLog, type Logged } from './redo-log.js';
import { accountingContext, dropUpload, storedNoticeOf, type ApplyContext, type RecordEnd, type RedoOp, type StoredNotice } from './redo-ops.js';
import { findVersion } from './version-chain.js';
import { damagedError, IndexReads, toPart } from './index-reads.js';
import { NULL_VERSION, type BodyWriter, type BucketRecord, type DeleteBucketResult, type DeleteOptions, type DeleteOutcome, type Extent, type Notice, type ObjectVersion, type Part, type PartChoice, type Store, type Upload, type VersionInput, type WriteCondition } from './types.js';
import { DiskReserve } from './disk-reserve.js';
import { IndexWrites } from './index-writes.js';
import { settleNotices, storedNotices } from './notice-queue.js';
import { checkCondition, fail, failed, noticeField, type Failure, type Outcome, type Planned } from './outcome.js';
import { storeStats, type StoreCounters, type StoreRecovery, type StoreStats } from './store-stats.js';

export class SegmentStore<A = unknown, P = unknown, B extends BucketRecord = BucketRecord> extends IndexReads<A, P, B> implements Store<A, P, B> {
  private readonly writerContext: WriterContext;
  private readonly clock: SequenceClock;
  private readonly compactor: Compactor;
  private readonly locks = new KeyLocks();
  private readonly writes: IndexWrites;
  private readonly log: RedoLog;
  private readonly applyContext: ApplyContext;
  private compactionTimer: NodeJS.Timeout | undefined;
  /** the operations waiting for the index transaction that will apply them (apply) */
  private applying: { group: Logged[]; done?: Promise<void> } | undefined;

  constructor(
    index: IndexDb,
    private readonly files: SegmentFiles,
    private readonly allocator: SegmentAllocator,
    strict: boolean,
    private readonly recovery: StoreRecovery,
    private readonly damage: DamageTally,
    crc32c: Crc32c,
    smallBodyMax: number,
    private readonly space: DiskReserve,
    private readonly counter: StoreCounters,
    readCache?: BlockCache,
    bucketGeneration?: Int32Array,
  ) {
    super(index, { files, crc32c, onCorrupt: () => counter.corruptBlocks++, cache: readCache }, bucketGeneration);
    this.writes = new IndexWrites(index, strict, counter, () => this.assertOpen());
    this.clock = new SequenceClock(Math.max(Number(index.meta.get('seq') ?? 0), Number(index.meta.get('applied') ?? 0)));
    this.log = new RedoLog(files, allocator, crc32c);
    this.applyContext = accountingContext(index, damage);
    this.compactor = new Compactor({
      index,
      files,
      allocator,
      crc32c,
      write: (body) => this.writes.write(body),
      keepFrom: () => this.log.lowestPendingSegment(),
      account: this.applyContext.account,
      markEnd: this.applyContext.markEnd,
    });
    this.writerContext = {
      files,
      allocator,
      crc32c,
      smallBodyMax,
      checkSpace: (length) => this.space.check(length),
      commitExtent: (target, extent, end) => this.commitExtent(target, extent, end) as Promise<ObjectVersion | Part>,
    };
  }

  stats(): StoreStats {
    return storeStats(this.index, this.counter, this.recovery, this.damage, this.allocator.activeSegment, this.compactor.totals());
  }


  // ── buckets ──────────────────────────────────────────────────────────────────────────────

  async createBucket(record: B): Promise<'created' | 'exists'> {
    const key = bucketKey(record.name);
    return this.bucketWrite(record.name, () => {
      if (this.index.buckets.get(key) !== undefined) return 'exists' as const;
      this.index.buckets.putSync(key, record);
      return 'created' as const;
    });
  }

  async putBucket(record: B): Promise<void> {
    const key = bucketKey(record.name);
    await this.bucketWrite(record.name, () => {
      const current = this.index.buckets.get(key);
      if (!current) return fail('namespace-missing', `no bucket ${record.name}`, 'bucket');
      // versioning, once on, only moves between Enabled and Suspended (s3.md §3.0.7)
      const versioning = record.versioning === 'Unversioned' ? current.versioning : record.versioning;
      this.index.buckets.putSync(key, { ...record, versioning });
      return undefined;
    });
  }

  async updateBucket(name: string, update: (current: B) => B): Promise<B> {
    const key = bucketKey(name);
    return this.bucketWrite(name, () => {
      const current = this.index.buckets.get(key) as B | undefined;
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
    return this.bucketWrite(name, (): DeleteBucketResult => {
      if (this.index.buckets.get(key) === undefined) return 'missing';
      for (const _ of this.index.objects.getKeys({ start: base, end: rangeEnd(base), limit: 1 })) return 'not-empty';
      for (const at of this.index.uploads.getKeys({ start: base, end: rangeEnd(base) })) {
        dropUpload(this.applyContext, at.subarray(0, at.length - ID_LENGTH - 1), at.subarray(at.length - ID_LENGTH).toString('latin1'));
      }
      this.index.buckets.removeSync(key);
      return 'deleted';
    });
  }

  // ── objects ──────────────────────────────────────────────────────────────────────────────

  beginWrite(size: number): BodyWriter<A, P> {
    this.assertOpen();
    return new SegmentBodyWriter(size, this.writerContext) as unknown as BodyWriter<A, P>;
  }

  /**
   * For a body writer in another thread (remote-writes.ts): `length` bytes of the active segment,
   * checked against the disk reserve, its segment held (not compacted away) until `release`.
   * Resolves once the segment file exists.
   */
  async reserveHeld(length: number): Promise<{ reservation: Reservation; release: () => void }> {
    this.assertOpen();
    this.space.check(length);
    const reservation = this.allocator.reserve(length);
    const file = this.files.acquire(reservation.segment);
    let held = true;
    const release = (): void => {
      if (held) this.files.release(file);
      held = false;
    };
    try {
      await file.ready;
    } catch (e) {
      release();
      throw asStoreError(e);
    }
    return { reservation, release };
  }

  /** Commits a written record: a body writer's, in this thread or in another (into an extent `reserveHeld` gave it). */
  commitExtent(target: CommitTarget, extent: Extent, recordEnd: number): Promise<ObjectVersion<A> | Part<P>> {
    return target.kind === 'version'
      ? this.commitVersion(target.bucket, target.key, extent, target.input as VersionInput<A>, target.condition, recordEnd)
      : this.commitPart(target.bucket, target.key, target.uploadId, target.partNumber, extent, target.input as VersionInput<P>, recordEnd);
  }

  async deleteObject(bucket: string, key: string, options: DeleteOptions<A> = {}): Promise<DeleteOutcome<A>> {
    const objKey = lookupObjectKey(bucket, key);
    if (!objKey) return { kind: 'missing' };
    return this.logged([{ bucket, key }], [], (): Outcome<Planned<DeleteOutcome<A>>> => {
      const record = this.getBucket(bucket);
      if (!record) return fail('namespace-missing', `no bucket ${bucket}`, 'bucket');
      const latest = this.index.objects.get(objKey);
      // If-Match on a key with no current object deletes nothing, as a plain delete of it does
      const unmet = options.condition && latest && !latest.deleteMarker ? checkCondition(latest, options.condition) : undefined;
      if (unmet) return unmet;
      if (options.versionId !== undefined || record.versioning === 'Unversioned') {
        const target = options.versionId !== undefined ? findVersion(this.index, objKey, options.versionId)?.version : latest;
        if (!target) return { result: { kind: 'missing' } };
        const guarded = this.guard(key, target, options);
        if (guarded) return guarded;
        const seq = this.clock.next();
        return {
          op: { t: 'remove', seq, b: bucket, k: key, versionId: target.versionId, ...noticeField(options.notice) },
          result: { kind: 'removed', version: toVersion<A>(key, target) },
        };
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
      return {
        op: { t: 'put', seq, b: bucket, k: key, v: marker, mode: record.versioning, ...noticeField(options.notice) },
        result: { kind: 'marker', marker: toVersion<A>(key, marker) },
      };
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
    return this.logged([source, { bucket, key }], [], () => {
      const found = findVersion(this.index, sourceKey, source.versionId);
      if (!found || found.version.deleteMarker) return fail('not-found', 'the copy source is gone', 'version');
      if (found.version.damaged) return { fail: damagedError(found.version.damaged) };
      return this.planVersion(bucket, key, found.version.size, found.version.extents, input, condition);
    });
  }

  async updateAttrs(bucket: string, key: string, versionId: string | undefined, update: (attrs: A) => A, notice?: Notice): Promise<ObjectVersion<A>> {
    const objKey = objectKey(bucket, key);
    return this.logged([{ bucket, key }], [], (): Outcome<Planned<ObjectVersion<A>>> => {
      const latest = this.index.objects.get(objKey);
      const found = versionId === undefined ? latest : findVersion(this.index, objKey, versionId)?.version;
      if (!found || found.deleteMarker) return fail('not-found', 'no such version', versionId === undefined ? 'key' : 'version');
      const attrs = update(found.attrs as A);
      return {
        op: { t: 'attrs', seq: this.clock.next(), b: bucket, k: key, versionId: versionId ?? null, attrs, ...noticeField(notice) },
        result: toVersion<A>(key, { ...found, attrs }),
      };
    });
  }

  async dropBody(bucket: string, key: string, expect: { versionId: string; etag: string; lastModified: number }, update: (attrs: A) => A): Promise<boolean> {
    const objKey = objectKey(bucket, key);
    return this.logged([{ bucket, key }], [], (): Outcome<Planned<boolean>> => {
      const found = findVersion(this.index, objKey, expect.versionId)?.version;
      if (!found || found.deleteMarker || found.damaged || found.etag !== expect.etag || found.lastModified !== expect.lastModified) return { result: false };
      const attrs = update(found.attrs as A);
      return { op: { t: 'attrs', seq: this.clock.next(), b: bucket, k: key, versionId: expect.versionId, attrs, dropBody: true }, result: true };
    });
  }

  // ── multipart uploads ───────────────────────────────────────────────────────────────────

  async createUpload(bucket: string, key: string, attrs: A, initiated = Date.now()): Promise<Upload<A>> {
    objectKey(bucket, key);
    return this.logged([{ bucket, key }], [], (): Outcome<Planned<Upload<A>>> => {
      if (!this.getBucket(bucket)) return fail('namespace-missing', `no bucket ${bucket}`, 'bucket');
      const seq = this.clock.next();
      const uploadId = makeId(seq);
      return { op: { t: 'upload', seq, b: bucket, k: key, uploadId, initiated, attrs }, result: { bucket, key, uploadId, initiated, attrs } };
    });
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
    return this.logged([{ bucket, key }], [], (): Outcome<Planned<ObjectVersion<A>>> => {
      if (!this.index.uploads.get(at)) return fail('not-found', 'no such upload', 'upload', { uploadId });
      const parts = new Map<number, StoredPart>();
      for (const { partNumber, value } of partsOf(this.index, uploadId)) parts.set(partNumber, value);
      const extents: Extent[] = [];
      let size = 0;
      for (const choice of choices) {
        const part = parts.get(choice.partNumber);
        if (!part) return fail('not-found', `no part ${choice.partNumber}`, 'part', { partNumber: choice.partNumber });
        if (part.etag !== choice.etag) {
          return fail('condition-failed', `part ${choice.partNumber} has another entity tag`, 'part', { partNumber: choice.partNumber });
        }
        if (part.damaged) return { fail: damagedError(part.damaged, 'part', { partNumber: choice.partNumber }) };
        extents.push(...part.extents);
        size += part.size;
      }
      const planned = this.planVersion(bucket, key, size, extents, input, condition);
      if (failed(planned) || planned.op?.t !== 'put') return planned;
      const { v, mode, seq, ev } = planned.op;
      return { op: { t: 'complete', seq, b: bucket, k: key, uploadId, chosen: choices.map((c) => c.partNumber), v, mode, ...noticeField(ev) }, result: planned.result };
    });
  }

  async abortUpload(bucket: string, key: string, uploadId: string): Promise<boolean> {
    const objKey = objectKey(bucket, key);
    const at = uploadKey(objKey, uploadId);
    return this.logged([{ bucket, key }], [], (): Outcome<Planned<boolean>> => {
      if (!this.index.uploads.get(at)) return { result: false };
      return { op: { t: 'abort', seq: this.clock.next(), b: bucket, k: key, uploadId }, result: true };
    });
  }

  // ── notices (bucket notifications, src/notify) ───────────────────────────────────────────

  /** Told after a change with a notice committed, with the notice as `notices` holds it. Changes of different
   * keys may commit out of seq order; those of one key commit in order (each waits for the key's lock). */
  onNotice: ((notice: StoredNotice) => void) | undefined;

  /** Told after every change with a notice committed, stored or live only (ListenBucketNotification, src/notify/listen.ts). */
  onLive: ((notice: StoredNotice) => void) | undefined;

  private announce(op: RedoOp & { ev: Notice }): void {
    if (!this.onLive && !this.onNotice) return;
    const notice = storedNoticeOf(op);
    if (!notice) return;
    if (!op.ev.live) this.onNotice?.(notice);
    this.onLive?.(notice);
  }

  /** Stored notices past seq `after`, in commit order, at most `limit`. */
  notices(after: number, limit: number): StoredNotice[] {
    return storedNotices(this.index, after, limit);
  }

  settleNotices(updates: ReadonlyArray<{ seq: number; done: string[] | null }>): Promise<void> {
    return settleNotices(this.writes, this.index, updates);
  }

  /** One compaction pass now (`tusk compact`, tests); shares a pass already running. */
  compact(options: Partial<CompactionOptions> = {}): Promise<CompactionReport> {
    return this.compactor.run({ ...DEFAULT_COMPACTION, ...options });
  }

  /**
   * Compacts in the background every `intervalMs`; failures go to `onError`, never to the process,
   * and each pass's report to `onReport`.
   */
  startCompaction(intervalMs: number, options: Partial<CompactionOptions>, onError: (e: unknown) => void, onReport?: (r: CompactionReport) => void): void {
    if (this.compactionTimer) return;
    this.compactionTimer = setInterval(() => {
      if (!this.closed) this.compact(options).then(onReport, onError);
    }, intervalMs);
    this.compactionTimer.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.compactionTimer);
    await this.compactor.idle();
    this.closed = true;
    await this.index.env.flushed;
    await this.index.env.close();
    await this.files.closeAll();
  }

  // ── the write path ──────────────────────────────────────────────────────────────────────

  private commitVersion(
    bucket: string,
    key: string,
    extent: Extent,
    input: VersionInput<A>,
    condition: WriteCondition | undefined,
    recordEnd: number,
  ): Promise<ObjectVersion<A>> {
    return this.logged([{ bucket, key }], [{ segment: extent.segment, end: recordEnd }], () =>
      this.planVersion(bucket, key, extent.length, [extent], input, condition),
    );
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
    return this.logged([{ bucket, key }], [{ segment: extent.segment, end: recordEnd }], (): Outcome<Planned<Part<P>>> => {
      if (!this.index.uploads.get(at)) return fail('not-found', 'no such upload', 'upload', { uploadId });
      const part: StoredPart = { size: extent.length, etag: input.etag, lastModified: input.lastModified, extents: [extent], attrs: input.attrs };
      return { op: { t: 'part', seq: this.clock.next(), b: bucket, k: key, uploadId, n: partNumber, part }, result: toPart<P>(partNumber, part) };
    });
  }

  /** Decides a new latest version of `key` over `extents` (reads only: the key is locked). */
  private planVersion(
    bucket: string,
    key: string,
    size: number,
    extents: Extent[],
    input: VersionInput<A>,
    condition: WriteCondition | undefined,
  ): Outcome<Planned<ObjectVersion<A>>> {
    // the cached record is the committed one: a bucket change waits for the key operations in it (key-locks.ts)
    const record = this.getBucket(bucket);
    if (!record) return fail('namespace-missing', `no bucket ${bucket}`, 'bucket');
    const unmet = checkCondition(this.index.objects.get(objectKey(bucket, key)), condition);
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
    return { op: { t: 'put', seq, b: bucket, k: key, v: version, mode: record.versioning, ...noticeField(input.notice) }, result: toVersion<A>(key, version) };
  }

  private guard(key: string, version: StoredVersion, options: DeleteOptions<A>): Failure | undefined {
    if (!options.mayRemove || version.deleteMarker || options.mayRemove(toVersion<A>(key, version))) return undefined;
    return fail('condition-failed', 'the version is protected', 'version', { condition: 'guard', versionId: version.versionId });
  }

  /**
   * One change of keys, through the redo log: lock the keys, make the bodies in other segments
   * durable, decide (`plan`, from the index as it is), write the operation record, make it durable
   * (one grouped fdatasync of the active segment covers it and the bodies written there before it),
   * then apply it in an index transaction that does not wait for LMDB's flush.
   */
  private async logged<T>(keys: Array<{ bucket: string; key: string }>, bodies: RecordEnd[], plan: () => Outcome<Planned<T>>): Promise<T> {
    this.assertOpen();
    const release = await this.locks.lockKeys(...keys);
    let seq: number | undefined;
    try {
      const planned = plan();
      if (failed(planned)) throw planned.fail;
      const op = planned.op;
      if (!op) return planned.result;
      seq = op.seq;
      if (bodies.length) op.ends = bodies;
      let at: RecordEnd;
      // an operation record is not checked against the disk reserve: deletes must go on there
      try {
        at = await this.log.append(op);
        // the ack waits for the bodies too; at start-up, an operation whose bodies are not whole is not replayed
        await Promise.all([...new Set([at.segment, ...bodies.map((b) => b.segment)])].map((s) => this.files.sync(s)));
      } catch (e) {
        throw asStoreError(e);
      }
      await this.apply({ op, at });
      if (op.ev) this.announce(op as RedoOp & { ev: Notice });
      return planned.result;
    } finally {
      if (seq !== undefined) this.log.done(seq);
      release();
    }
  }

  /**
   * Applies a logged operation in an index transaction that also applies those logged while it
   * waits for LMDB's write thread: one transaction, one set of log markers and one write of each
   * segment's counts for the group (group commit of the index, as the group's fdatasync is for
   * the records). Operations in one group hold different keys (each holds its keys' locks).
   */
  private apply(logged: Logged): Promise<void> {
    if (this.applying) {
      this.applying.group.push(logged);
      return this.applying.done!;
    }
    const applying: { group: Logged[]; done?: Promise<void> } = { group: [logged] };
    this.applying = applying;
    applying.done = this.writes.transact(() => {
      // the group closes once its transaction runs: later operations start the next one
      if (this.applying === applying) this.applying = undefined;
      let marks!: ReturnType<RedoLog['issue']>;
      for (const { op } of applying.group) marks = this.log.issue(op.seq, this.clock.current);
      applyLogged(this.index, applying.group, marks, this.damage);
      this.counter.indexGroups = (this.counter.indexGroups ?? 0) + 1;
      this.counter.indexGroupedOps = (this.counter.indexGroupedOps ?? 0) + applying.group.length;
      return undefined;
    });
    // a transaction that failed before running its callback must not keep the group open
    applying.done.catch(() => {
      if (this.applying === applying) this.applying = undefined;
    });
    return applying.done;
  }

  /** A change of a bucket itself, alone in its bucket (no key operation in flight), acknowledged once LMDB has flushed it. */
  private async bucketWrite<T>(bucket: string, body: () => Outcome<T>): Promise<T> {
    const release = await this.locks.lockBucket(bucket);
    try {
      return await this.writes.write(body);
    } finally {
      // after the commit: a read in between decoded the old record, and the next one decodes the new
      this.forgetBucket(bucket);
      release();
    }
  }
}
