// A read replica (the engine as a front-end thread sees it): it reads what the writer committed,
// drops a decoded bucket record once the writer changed it, holds a segment's fd while it reads
// even after compaction deleted the file, and answers 'moved' when its snapshot named a segment
// that is gone.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStoreError } from '../../../src/store/errors.js';
import type { SegmentStore } from '../../../src/store/index.js';
import { ReadReplica } from '../../../src/store/read-replica.js';
import { segmentFileName } from '../../../src/store/segment-files.js';
import type { BucketRecord, ObjectVersion, Store } from '../../../src/store/types.js';
import { bucket, open, put, tempDir } from './helpers.js';

const SEGMENT = 256 * 1024;

async function readWhole(store: { openRead: SegmentStore['openRead'] }, record: ObjectVersion): Promise<Buffer> {
  const reader = store.openRead(record, 0, record.size);
  const parts: Buffer[] = [];
  try {
    for (let c = await reader.read(64 * 1024); c; c = await reader.read(64 * 1024)) parts.push(Buffer.from(c));
  } finally {
    reader.close();
  }
  return Buffer.concat(parts);
}

describe('read replica', () => {
  let dir: string;
  let store: SegmentStore;
  let replica: ReadReplica;
  let removed: number[];
  const generation = () => new Int32Array(new SharedArrayBuffer(4));
  let bucketGeneration: Int32Array;

  beforeEach(async () => {
    dir = tempDir();
    removed = [];
    bucketGeneration = generation();
    store = await open(dir, { segmentSize: SEGMENT, bucketGeneration, onSegmentRemoved: (s) => { removed.push(s); replica.segmentRemoved(s); } });
    await store.createBucket(bucket('b'));
    replica = await ReadReplica.open({ dataDir: dir, bucketGeneration });
  });
  afterEach(async () => {
    await replica.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads objects, listings and uploads the writer committed, and refuses to write', async () => {
    const body = Buffer.alloc(100_000, 7);
    await put(store, 'b', 'k', body);
    await store.createUpload('b', 'up', { a: 1 });
    replica.refresh();
    const seen = replica.getObject('b', 'k')!;
    expect(seen.size).toBe(100_000);
    expect((await readWhole(replica, seen)).equals(body)).toBe(true);
    expect(replica.list('b', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 }).items.map((i) => (i.kind === 'object' ? i.record.key : i.prefix))).toEqual(['k']);
    expect(replica.listUploads('b', { prefix: '', delimiter: '', keyMarker: '', uploadIdMarker: '', maxUploads: 10 }).items).toHaveLength(1);
    expect(replica.listBuckets().map((b) => b.name)).toEqual(['b']);
    const asStore: Store = replica;
    await expect(async () => asStore.createBucket(bucket('c'))).rejects.toThrow(/does not write/);
    expect(() => replica.beginWrite(10)).toThrow(/does not write/);
  });

  it('sees a bucket change the writer committed at its next read', async () => {
    expect(replica.getBucket('b')?.versioning).toBe('Unversioned');
    const before = Atomics.load(bucketGeneration, 0);
    await store.updateBucket('b', (r: BucketRecord) => ({ ...r, versioning: 'Enabled' }));
    expect(Atomics.load(bucketGeneration, 0)).toBe(before + 1);
    // a front end refreshes its snapshot as each request starts
    replica.refresh();
    expect(replica.getBucket('b')?.versioning).toBe('Enabled');
    await store.deleteBucket('b');
    replica.refresh();
    expect(replica.getBucket('b')).toBeUndefined();
  });

  it('keeps reading a segment compaction deleted under it, then lets its fd go', async () => {
    for (let i = 0; i < 12; i++) await put(store, 'b', `k${i}`, Buffer.alloc(40_000, i));
    const kept = replica.getObject('b', 'k0')!;
    const segment = kept.extents[0]!.segment;
    const reader = replica.openRead(kept, 0, kept.size);
    for (let i = 1; i < 12; i++) await store.deleteObject('b', `k${i}`);
    await store.compact({ minDeadRatio: 0.01, bytesPerSecond: 1e12 });
    // compaction deleted the file even though this replica holds it: the fd keeps the bytes readable
    expect(removed).toContain(segment);
    expect(fs.existsSync(path.join(dir, 'segments', segmentFileName(segment)))).toBe(false);
    const parts: Buffer[] = [];
    for (let c = await reader.read(64 * 1024); c; c = await reader.read(64 * 1024)) parts.push(Buffer.from(c));
    reader.close();
    expect(Buffer.concat(parts).equals(Buffer.alloc(40_000, 0))).toBe(true);
    // the index now names the new place, which reads back the same
    replica.refresh();
    const moved = replica.getObject('b', 'k0')!;
    expect(moved.extents[0]!.segment).not.toBe(segment);
    expect((await readWhole(replica, moved)).equals(Buffer.alloc(40_000, 0))).toBe(true);
    // a stale record (an older snapshot) names a segment that is gone: 'moved', to be read again
    let error: unknown;
    try {
      await readWhole(replica, kept);
    } catch (e) {
      error = e;
    }
    expect(isStoreError(error, 'moved')).toBe(true);
  });
});
