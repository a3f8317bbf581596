// Compaction gives dead space back: overwritten and deleted versions, aborted uploads and parts,
// while every live body reads back the same, before and after a reopen.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SegmentStore } from '../../../src/store/index.js';
import { bucket, meta, open, put, readAll, segmentBytes, storeForEachTest, tempDir } from './helpers.js';

const SEGMENT = 1 << 20;

function bodyOf(key: string, size: number): Buffer {
  const b = Buffer.alloc(size);
  b.write(`${key}|`.repeat(Math.ceil(size / (key.length + 1))).slice(0, size));
  return b;
}

describe('compaction', () => {
  let dir: string;
  let store: SegmentStore;

  beforeEach(async () => {
    dir = tempDir();
    store = await open(dir, { segmentSize: SEGMENT });
    await store.createBucket(bucket('b'));
  });
  afterEach(async () => {
    await store.close();
  });

  it('reclaims overwritten, deleted and aborted bytes; live bodies read back the same', async () => {
    const live = new Map<string, Buffer>();
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 40; i++) {
        const key = `k${i}`;
        const body = bodyOf(`${key}-${round}`, 20_000 + i * 500);
        await put(store, 'b', key, body);
        live.set(key, body);
      }
    }
    for (let i = 0; i < 40; i += 2) {
      await store.deleteObject('b', `k${i}`);
      live.delete(`k${i}`);
    }
    const upload = await store.createUpload('b', 'up', undefined);
    const w = store.beginWrite(200_000);
    await w.write(Buffer.alloc(200_000, 1));
    await w.commitPart('b', 'up', upload.uploadId, 1, meta('p'));
    await store.abortUpload('b', 'up', upload.uploadId);
    const copy = await store.copyObject({ bucket: 'b', key: 'k1', versionId: 'null' }, 'b', 'copy-of-k1', meta('c'));
    live.set('copy-of-k1', live.get('k1')!);
    expect(copy.extents[0]!.segment).toBe(store.getObject('b', 'k1')!.extents[0]!.segment);

    const liveBytes = [...live.values()].reduce((a, b) => a + b.length, 0) - live.get('k1')!.length; // the copy shares k1's bytes
    const before = segmentBytes(dir);
    const report = await store.compact({ minDeadRatio: 0.05, bytesPerSecond: 1e12 });
    const after = segmentBytes(dir);
    expect(report.segmentsCompacted).toBeGreaterThan(0);
    expect(report.segmentsDeleted).toBeGreaterThan(0);
    expect(after).toBeLessThan(before);
    expect(after).toBeLessThan(liveBytes * 1.1 + SEGMENT + 64 * 1024);
    const check = async (s: SegmentStore): Promise<void> => {
      for (const [key, body] of live) expect((await readAll(s, s.getObject('b', key)!)).equals(body), key).toBe(true);
    };
    await check(store);
    // the copy and its source still share one record
    expect(store.getObject('b', 'copy-of-k1')!.extents).toEqual(store.getObject('b', 'k1')!.extents);
    await store.close();
    store = await open(dir, { segmentSize: SEGMENT });
    await check(store);
    expect(segmentBytes(dir)).toBe(after);
  });

  it('a write or delete racing the copy wins: the old record is not brought back', async () => {
    for (let i = 0; i < 30; i++) await put(store, 'b', `k${i}`, bodyOf(`old${i}`, 60_000));
    for (let i = 0; i < 30; i += 3) await store.deleteObject('b', `k${i}`);
    // the pass is slow (paced), so the writes below land while it copies
    const pass = store.compact({ minDeadRatio: 0.01, bytesPerSecond: 2 * 1024 * 1024 });
    const racing = [];
    for (let i = 1; i < 30; i += 3) racing.push(put(store, 'b', `k${i}`, bodyOf(`new${i}`, 10_000)));
    for (let i = 2; i < 30; i += 3) racing.push(store.deleteObject('b', `k${i}`));
    await Promise.all(racing);
    await pass;
    for (let i = 0; i < 30; i++) {
      const v = store.getObject('b', `k${i}`);
      if (i % 3 === 1) expect((await readAll(store, v!)).equals(bodyOf(`new${i}`, 10_000))).toBe(true);
      else expect(v, `k${i}`).toBeUndefined();
    }
  });

  it('a segment still being read is deleted only after its reader is done', async () => {
    await put(store, 'b', 'a', bodyOf('a', 700_000));
    const v = await put(store, 'b', 'b', bodyOf('b', 700_000)); // rolls to a second segment
    await put(store, 'b', 'c', bodyOf('c', 700_000));
    const reader = store.openRead(store.getObject('b', 'a')!, 0, 700_000);
    await store.deleteObject('b', 'a');
    await store.compact({ minDeadRatio: 0.01, bytesPerSecond: 1e12 });
    const first = await reader.read(700_000);
    expect(first && first.subarray(0, 10).toString()).toBe('a|a|a|a|a|');
    reader.close();
    await store.compact({ minDeadRatio: 0.01, bytesPerSecond: 1e12 });
    expect((await readAll(store, store.getObject('b', 'b')!)).equals(bodyOf('b', 700_000))).toBe(true);
    void v;
  });
});

describe('compaction of the active segment', () => {
  let dir = '';
  let store: SegmentStore;
  // larger than all the test writes: everything lands in the active segment
  storeForEachTest([bucket('b')], (s, d) => ((store = s), (dir = d)), { segmentSize: 64 * SEGMENT });
  const segments = () => fs.readdirSync(path.join(dir, 'segments')).length;

  it('seals it once enough of it is dead and gives its space back, also to writes racing the pass', async () => {
    for (let i = 0; i < 20; i++) await put(store, 'b', `k${i}`, bodyOf(`k${i}`, 300_000));
    for (let i = 0; i < 20; i++) if (i % 5 !== 0) await store.deleteObject('b', `k${i}`);
    const active = store.stats().activeSegment;
    const pass = store.compact({ minDeadRatio: 0.5, bytesPerSecond: 1e12 });
    const racing = put(store, 'b', 'racing', bodyOf('racing', 100_000));
    const report = await pass;
    await racing;
    expect(store.stats().activeSegment).toBeGreaterThan(active);
    // the racing write held the sealed segment: the pass after it rewrites it
    const next = await store.compact({ minDeadRatio: 0.5, bytesPerSecond: 1e12 });
    expect(report.segmentsDeleted + next.segmentsDeleted).toBe(1);
    expect(fs.existsSync(path.join(dir, 'segments', `${String(active).padStart(8, '0')}.seg`))).toBe(false);
    expect(segmentBytes(dir)).toBeLessThan(4 * 300_000 + 100_000 + 64 * 1024);
    for (let i = 0; i < 20; i += 5) expect((await readAll(store, store.getObject('b', `k${i}`)!)).equals(bodyOf(`k${i}`, 300_000))).toBe(true);
    expect((await readAll(store, store.getObject('b', 'racing')!)).equals(bodyOf('racing', 100_000))).toBe(true);
  });

  it('leaves it alone while its dead bytes are under 1 MiB or under the threshold', async () => {
    for (let i = 0; i < 5; i++) await put(store, 'b', 'again', bodyOf(`again${i}`, 200_000)); // 800 000 bytes dead
    await store.compact({ minDeadRatio: 0.1, bytesPerSecond: 1e12 });
    expect(segments()).toBe(1);
    for (let i = 0; i < 10; i++) await put(store, 'b', `live${i}`, bodyOf(`live${i}`, 400_000));
    await put(store, 'b', 'again', bodyOf('again-last', 200_000)); // 1 000 000 dead of 5 200 000
    await store.compact({ minDeadRatio: 0.5, bytesPerSecond: 1e12 });
    expect(segments()).toBe(1);
  });
});
