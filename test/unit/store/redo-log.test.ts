// The segments are the index's redo log: an acknowledged change survives losing the index's
// recent transactions (what a power loss does to LMDB commits that were not flushed), because
// start-up replays the operation records past the durable index.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SegmentStore } from '../../../src/store/index.js';
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

  /** Makes the index what it was at `snapshot`: every transaction since is lost, the segments keep everything. */
  function loseRecentIndex(): void {
    fs.copyFileSync(snapshot, path.join(dir, 'index.mdb'));
    fs.rmSync(path.join(dir, 'index.mdb-lock'), { force: true });
  }

  it('replays puts, overwrites, deletes, markers, uploads, parts, completes, copies and attribute changes the index lost', async () => {
    let store = await open(dir);
    await store.createBucket({ ...bucket('b'), versioning: 'Enabled' });
    const v1 = await put(store, 'b', 'k1', Buffer.from('first'));
    await put(store, 'b', 'gone', Buffer.from('to be deleted'));
    await store.close();
    fs.copyFileSync(path.join(dir, 'index.mdb'), snapshot);

    store = await open(dir);
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
    let store = await open(dir);
    await store.createBucket(bucket('b'));
    await store.close();
    fs.copyFileSync(path.join(dir, 'index.mdb'), snapshot);
    store = await open(dir);
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
});
