// The segments are the index's redo log: an acknowledged change survives losing the index's
// recent transactions (what a power loss does to LMDB commits that were not flushed), because
// start-up replays the operation records past the durable index.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fastestCrc32c } from '../../../src/store/crc32c.js';
import type { SegmentStore } from '../../../src/store/index.js';
import { objectKey, openIndex } from '../../../src/store/index-db.js';
import { RedoLog } from '../../../src/store/redo-log.js';
import { nextRecordStart } from '../../../src/store/record-check.js';
import type { RedoOp } from '../../../src/store/redo-ops.js';
import type { SegmentAllocator } from '../../../src/store/segment-allocator.js';
import type { SegmentFiles } from '../../../src/store/segment-files.js';
import { bucket, meta, open, put, readAll, tempDir } from './helpers.js';

function summary(store: SegmentStore): unknown[] {
  return store
    .listVersions('b', { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 1000 })
    .items.map((i) => (i.kind === 'version' ? [i.version.key, i.version.versionId, i.version.deleteMarker, i.isLatest, i.version.etag] : i.prefix));
}

describe('redo log', () => {
  let dir: string;
  let snapshot: string;

  beforeEach(() => {
    dir = tempDir();
    snapshot = path.join(tempDir(), 'index.mdb');
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Opens the store, runs `setup`, keeps the index as it then is (what loseRecentIndex puts back)
   * and opens the store again; gives the reopened store and what `setup` returned.
   */
  async function openPastSnapshot<T>(setup: (store: SegmentStore) => Promise<T>): Promise<{ store: SegmentStore; before: T }> {
    const first = await open(dir);
    const before = await setup(first);
    await first.close();
    fs.copyFileSync(path.join(dir, 'index.mdb'), snapshot);
    return { store: await open(dir), before };
  }

  /** Makes the index what it was at `snapshot`: every transaction since is lost, the segments keep everything. */
  function loseRecentIndex(): void {
    fs.copyFileSync(snapshot, path.join(dir, 'index.mdb'));
    fs.rmSync(path.join(dir, 'index.mdb-lock'), { force: true });
  }

  it('replays puts, overwrites, deletes, markers, uploads, parts, completes, copies and attribute changes the index lost', async () => {
    let { store, before: v1 } = await openPastSnapshot(async (s) => {
      await s.createBucket({ ...bucket('b'), versioning: 'Enabled' });
      const v = await put(s, 'b', 'k1', Buffer.from('first'));
      await put(s, 'b', 'gone', Buffer.from('to be deleted'));
      return v;
    });
    const v2 = await put(store, 'b', 'k1', Buffer.from('second'));
    await put(store, 'b', 'k2', Buffer.alloc(300_000, 7));
    await store.deleteObject('b', 'gone');
    await store.deleteObject('b', 'k1', { versionId: v1.versionId });
    const upload = await store.createUpload('b', 'mp', { note: 'u' });
    for (const n of [1, 2]) {
      const w = store.beginWrite(100_000);
      await w.write(Buffer.alloc(100_000, n));
      await w.commitPart('b', 'mp', upload.uploadId, n, meta(`p${n}`));
    }
    await store.completeUpload('b', 'mp', upload.uploadId, [{ partNumber: 1, etag: 'p1' }, { partNumber: 2, etag: 'p2' }], meta('mp-2'));
    const pending = await store.createUpload('b', 'later', undefined);
    await store.copyObject({ bucket: 'b', key: 'k2', versionId: store.getObject('b', 'k2')!.versionId }, 'b', 'copy', meta('c'));
    await store.updateAttrs('b', 'k1', v2.versionId, () => ({ tags: 'x' }));
    const expected = summary(store);
    await store.close();

    loseRecentIndex();
    store = await open(dir);
    try {
      expect(store.stats().recovery.replay).toMatchObject({ replayed: 11, skipped: 0 });
      expect(summary(store)).toEqual(expected);
      expect((await readAll(store, store.getObject('b', 'k1')!)).toString()).toBe('second');
      expect(store.getObject('b', 'k1')!.attrs).toEqual({ tags: 'x' });
      expect(store.getObject('b', 'k1', v1.versionId)).toBeUndefined();
      expect(store.getObject('b', 'gone')!.deleteMarker).toBe(true);
      expect((await readAll(store, store.getObject('b', 'mp')!)).equals(Buffer.concat([Buffer.alloc(100_000, 1), Buffer.alloc(100_000, 2)]))).toBe(true);
      expect((await readAll(store, store.getObject('b', 'copy')!)).equals(Buffer.alloc(300_000, 7))).toBe(true);
      expect(store.getUpload('b', 'later', pending.uploadId)).toBeDefined();
      // a second start finds nothing left to replay, and new writes continue after the replayed ones
      await store.close();
      store = await open(dir);
      expect(store.stats().recovery.replay.replayed).toBe(0);
      const v3 = await put(store, 'b', 'k1', Buffer.from('third'));
      expect(summary(store)[0]).toEqual(['copy', expect.any(String), false, true, 'c']);
      expect((await readAll(store, store.getObject('b', 'k1')!)).toString()).toBe('third');
      expect(v3.versionId > v2.versionId).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('does not replay an operation whose body is not whole (it was never acknowledged)', async () => {
    let { store } = await openPastSnapshot((s) => s.createBucket(bucket('b')));
    const v = await put(store, 'b', 'k', Buffer.alloc(200_000, 3));
    await put(store, 'b', 'other', Buffer.from('fine'));
    await store.close();
    // damage the body: as if its blocks never reached the disk
    const e = v.extents[0]!;
    const fd = fs.openSync(path.join(dir, 'segments', `${String(e.segment).padStart(8, '0')}.seg`), 'r+');
    fs.writeSync(fd, Buffer.alloc(4096), 0, 4096, e.offset + 1000);
    fs.closeSync(fd);
    loseRecentIndex();
    store = await open(dir);
    try {
      expect(store.stats().recovery.replay).toMatchObject({ replayed: 1, skipped: 1 });
      expect(store.getObject('b', 'k')).toBeUndefined();
      expect((await readAll(store, store.getObject('b', 'other')!)).toString()).toBe('fine');
    } finally {
      await store.close();
    }
  });

  it('applies concurrent operations in shared index transactions, and replays them all once the index lost them', async () => {
    let { store } = await openPastSnapshot(async (s) => {
      await s.createBucket({ ...bucket('b'), versioning: 'Enabled' });
      for (let i = 0; i < 20; i++) await put(s, 'b', `old${i}`, Buffer.from(`old ${i}`));
    });
    await Promise.all([
      ...Array.from({ length: 60 }, (_, i) => put(store, 'b', `new${i}`, Buffer.from(`new ${i}`))),
      ...Array.from({ length: 20 }, (_, i) => store.deleteObject('b', `old${i}`)),
    ]);
    const { indexGroups, indexGroupedOps } = store.stats();
    expect(indexGroupedOps).toBe(80);
    expect(indexGroups).toBeLessThan(80); // some shared a transaction
    const expected = summary(store);
    await store.close();
    loseRecentIndex();
    store = await open(dir);
    try {
      expect(store.stats().recovery.replay).toMatchObject({ replayed: 80, skipped: 0 });
      expect(summary(store)).toEqual(expected);
      for (let i = 0; i < 60; i++) expect((await readAll(store, store.getObject('b', `new${i}`)!)).toString()).toBe(`new ${i}`);
      expect(store.stats().liveRecords).toBe(80);
    } finally {
      await store.close();
    }
  });

  it('replays operations past a hole that an extent granted and never written left in the log', async () => {
    let { store } = await openPastSnapshot((s) => s.createBucket(bucket('b')));
    await put(store, 'b', 'before', Buffer.from('one'));
    // another thread's lease (remote-writes.ts), given back unused: 1 MiB of zeros inside the log
    const hole = await store.reserveHeld(1 << 20);
    hole.release();
    await put(store, 'b', 'after', Buffer.from('two'));
    expect(store.getObject('b', 'after')!.extents[0]!.offset).toBeGreaterThan(hole.reservation.offset + hole.reservation.length);
    await store.close();
    loseRecentIndex();
    store = await open(dir);
    try {
      expect(store.stats().recovery.replay).toMatchObject({ replayed: 2, skipped: 0 });
      expect((await readAll(store, store.getObject('b', 'after')!)).toString()).toBe('two');
    } finally {
      await store.close();
    }
  });

  it('skips zeros a window at a time to the next possible record start, and steps over other bytes', () => {
    const file = path.join(dir, 'holes');
    const bytes = Buffer.alloc(300_000);
    bytes[200_003] = 1; // inside the 8-byte slot at 200 000
    fs.writeFileSync(file, bytes);
    const fd = fs.openSync(file, 'r');
    try {
      expect(nextRecordStart(fd, 0, bytes.length)).toBe(200_000);
      expect(nextRecordStart(fd, 200_000, bytes.length)).toBe(bytes.length);
      expect(nextRecordStart(fd, 199_992, bytes.length)).toBe(200_000);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('keeps the log markers from going back when index transactions commit in the order they were issued', async () => {
    // two operations written and made durable together; the first one's transaction is issued first
    const fd = fs.openSync(path.join(dir, 'log'), 'w+');
    let at = 4096;
    const allocator = {
      reserve: (length: number) => ({ segment: 1, offset: (at += length) - length, length }),
      get position() {
        return { segment: 1, offset: at };
      },
      activeSegment: 1,
    } as unknown as SegmentAllocator;
    const files = { acquire: () => ({ fd }), release: () => undefined } as unknown as SegmentFiles;
    const log = new RedoLog(files, allocator, await fastestCrc32c());
    const op = (seq: number): RedoOp => ({ t: 'remove', seq, b: 'b', k: `k${seq}`, versionId: 'x' });
    try {
      await Promise.all([log.append(op(10)), log.append(op(11))]);
      const first = log.issue(10, 11);
      const second = log.issue(11, 11);
      // LMDB commits `first` then `second`: what `second` records must still cover operation 10
      expect(first.applied).toBe(10);
      expect(second.applied).toBe(11);
      // an operation appended later holds the markers back until its own transaction is issued
      await log.append(op(12));
      expect(log.issue(99, 12)).toEqual({ applied: 11, from: expect.objectContaining({ segment: 1 }) });
      log.done(10);
      log.done(11);
      expect(log.lowestPendingSegment()).toBe(1);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('replays an operation once: one the index holds past its applied marker is not applied again at a later start', async () => {
    let store = await open(dir);
    await store.createBucket({ ...bucket('b'), versioning: 'Enabled' });
    const first = await put(store, 'b', 'first', Buffer.from('one'));
    const second = await put(store, 'b', 'second', Buffer.from('two'));
    await store.close();
    // the index as a crash can leave it: `second` committed (recorded in `recent`), `first` lost
    const index = openIndex(dir);
    const seqOf = (key: string): number => index.objects.get(objectKey('b', key))!.seq;
    const [seq1, seq2] = [seqOf('first'), seqOf('second')];
    index.objects.removeSync(objectKey('b', 'first'));
    index.meta.putSync('applied', seq1 - 1);
    index.recent.putSync(seq2, 1);
    index.meta.putSync('logFrom', { segment: first.extents[0]!.segment, offset: 0 });
    await index.env.close();

    store = await open(dir);
    try {
      expect(store.stats().recovery.replay).toMatchObject({ found: 1, replayed: 1 });
      const check = async (): Promise<void> => {
        for (const [key, body, version] of [['first', 'one', first], ['second', 'two', second]] as const) {
          const listed = store.listVersions('b', { prefix: key, delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 10 }).items;
          expect(listed.map((i) => i.kind === 'version' && i.version.versionId)).toEqual([version.versionId]);
          expect((await readAll(store, store.getObject('b', key)!)).toString()).toBe(body);
        }
      };
      await check();
      // a second start (no write in between) finds nothing to apply: `second` is not pushed again
      await store.close();
      store = await open(dir);
      expect(store.stats().recovery.replay.replayed).toBe(0);
      await check();
    } finally {
      await store.close();
    }
  });
});
