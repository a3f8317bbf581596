// Acknowledged bytes lost from a segment file while the store was closed (a disk or file-system
// fault): start-up flags every version and part whose body lost bytes, reads and copies of them
// fail with 'corrupt' at once, the counts fall as they are deleted, and the flags go only when the
// bytes come back.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isStoreError } from '../../../src/store/errors.js';
import type { SegmentStore } from '../../../src/store/index.js';
import { bucket, meta, open, put, readAll, storeForEachTest } from './helpers.js';

const SEGMENT = 1 << 20;

function segmentFile(dir: string, segment: number): string {
  return path.join(dir, 'segments', `${String(segment).padStart(8, '0')}.seg`);
}

async function failsCorrupt(p: Promise<unknown> | (() => unknown)): Promise<void> {
  const error = await (typeof p === 'function' ? Promise.resolve().then(p) : p).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStoreError(error, 'corrupt'), String(error)).toBe(true);
}

describe('bytes missing from a segment file', () => {
  let dir = '';
  let store: SegmentStore;
  const reopened: SegmentStore[] = [];
  storeForEachTest([bucket('b')], (s, d) => ((store = s), (dir = d)), { segmentSize: SEGMENT });
  afterEach(async () => {
    for (const s of reopened.splice(0)) await s.close();
  });
  const reopen = async (): Promise<SegmentStore> => {
    await store.close();
    reopened.push((store = await open(dir, { segmentSize: SEGMENT })));
    return store;
  };

  it('flags the versions and parts that lost bytes; reads, copies and completions of them fail', async () => {
    const intact = await put(store, 'b', 'intact', Buffer.alloc(10_000, 1));
    await put(store, 'b', 'cut', Buffer.alloc(100_000, 2));
    await store.copyObject({ bucket: 'b', key: 'cut', versionId: 'null' }, 'b', 'copy', meta('c'));
    const upload = await store.createUpload('b', 'mp', undefined);
    const w = store.beginWrite(20_000);
    await w.write(Buffer.alloc(20_000, 3));
    const part = await w.commitPart('b', 'mp', upload.uploadId, 1, meta('p'));
    const segment = intact.extents[0]!.segment;
    const cutAt = store.getObject('b', 'cut')!.extents[0]!.offset + 60_000;
    await store.close();
    const original = fs.readFileSync(segmentFile(dir, segment));
    fs.truncateSync(segmentFile(dir, segment), cutAt);

    await reopen();
    const recovery = store.stats().recovery;
    expect(recovery.shortSegments).toEqual([{ segment, size: cutAt, end: expect.any(Number) }]);
    expect(recovery.damaged.named.map((d) => d.name).sort()).toEqual([
      'b/copy (version null)',
      'b/cut (version null)',
      `upload ${upload.uploadId} part 1 (b/mp)`,
    ]);
    // the shared body lost 40 000 bytes, once; the part all of its 20 000
    expect(store.stats().damage).toEqual({ objects: 3, missingBytes: 40_000 + 20_000 });
    expect(store.getObject('b', 'cut')!.damaged).toBe(40_000);
    expect(store.getObject('b', 'intact')!.damaged).toBeUndefined();
    expect(store.list('b', { prefix: 'c', delimiter: '', startAfter: '', maxKeys: 10 }).items.map((i) => i.kind === 'object' && i.record.damaged)).toEqual([40_000, 40_000]);
    expect(store.listParts(upload.uploadId, 0, 10).parts[0]!.damaged).toBe(part.size);

    expect((await readAll(store, store.getObject('b', 'intact')!)).equals(Buffer.alloc(10_000, 1))).toBe(true);
    await failsCorrupt(() => store.openRead(store.getObject('b', 'cut')!, 0, 10));
    await failsCorrupt(store.copyObject({ bucket: 'b', key: 'cut', versionId: 'null' }, 'b', 'copy-2', meta('c2')));
    expect(store.getObject('b', 'copy-2')).toBeUndefined();
    await failsCorrupt(store.completeUpload('b', 'mp', upload.uploadId, [{ partNumber: 1, etag: part.etag }], meta('m')));

    // a short segment takes no new record: the lost range stays past its end
    const after = await put(store, 'b', 'after', Buffer.from('new'));
    expect(after.extents[0]!.segment).toBeGreaterThan(segment);
    expect(fs.statSync(segmentFile(dir, segment)).size).toBe(cutAt);

    await store.deleteObject('b', 'copy');
    await store.abortUpload('b', 'mp', upload.uploadId);
    expect(store.stats().damage).toEqual({ objects: 1, missingBytes: 40_000 });
    await reopen();
    expect(store.getObject('b', 'cut')!.damaged).toBe(40_000);
    expect(store.stats().damage).toEqual({ objects: 1, missingBytes: 40_000 });

    // the file restored from a backup: the flags go
    await store.close();
    fs.writeFileSync(segmentFile(dir, segment), original);
    await reopen();
    expect(store.stats().damage).toEqual({ objects: 0, missingBytes: 0 });
    expect(store.getObject('b', 'cut')!.damaged).toBeUndefined();
    expect((await readAll(store, store.getObject('b', 'cut')!)).equals(Buffer.alloc(100_000, 2))).toBe(true);
  });

  it('flags every version in a segment file that is gone', async () => {
    await put(store, 'b', 'first', Buffer.alloc(700_000, 1));
    const second = await put(store, 'b', 'second', Buffer.alloc(700_000, 2)); // a segment of its own
    const first = store.getObject('b', 'first')!;
    expect(second.extents[0]!.segment).not.toBe(first.extents[0]!.segment);
    await store.close();
    fs.rmSync(segmentFile(dir, first.extents[0]!.segment));
    await reopen();
    expect(store.stats().recovery.shortSegments).toEqual([{ segment: first.extents[0]!.segment, size: 0, end: expect.any(Number) }]);
    expect(store.stats().damage).toEqual({ objects: 1, missingBytes: 700_000 });
    await failsCorrupt(() => store.openRead(store.getObject('b', 'first')!, 0, 1));
    expect((await readAll(store, store.getObject('b', 'second')!)).equals(Buffer.alloc(700_000, 2))).toBe(true);
  });
});
