import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32cJs } from '../../../src/store/crc32c.js';
import { encodeRecordHeader, encodeTrailer, exactRecordLength } from '../../../src/store/format.js';
import { checkRecordSync } from '../../../src/store/record-check.js';
import { bucket, open, put, readAll, tempDir } from './helpers.js';

function segmentPath(dir: string, segment: number): string {
  return path.join(dir, 'segments', `${String(segment).padStart(8, '0')}.seg`);
}

describe('start-up recovery of segment tails', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function seed(): Promise<{ segment: number; size: number; bodies: Map<string, Buffer> }> {
    const store = await open(dir);
    await store.createBucket(bucket('b'));
    const bodies = new Map<string, Buffer>();
    for (const [k, n] of [['a', 10], ['b', 100_000], ['c', 0]] as const) {
      const body = randomBytes(n);
      bodies.set(k, body);
      await put(store, 'b', k, body);
    }
    const segment = store.getObject('b', 'a')!.extents[0]!.segment;
    await store.close();
    return { segment, size: fs.statSync(segmentPath(dir, segment)).size, bodies };
  }

  async function expectIntact(bodies: Map<string, Buffer>, store: Awaited<ReturnType<typeof open>>): Promise<void> {
    for (const [k, body] of bodies) expect((await readAll(store, store.getObject('b', k)!)).equals(body)).toBe(true);
  }

  it('truncates garbage past the last indexed record and keeps writing after it', async () => {
    const { segment, size, bodies } = await seed();
    fs.appendFileSync(segmentPath(dir, segment), randomBytes(5_000));
    const store = await open(dir);
    try {
      const report = store.stats().recovery;
      expect(report.truncatedBytes).toBe(5_000);
      expect(report.tailTorn).toBe(1);
      expect(fs.statSync(segmentPath(dir, segment)).size).toBe(size);
      await expectIntact(bodies, store);
      const next = await put(store, 'b', 'd', Buffer.from('after recovery'));
      expect(next.extents[0]!.segment).toBe(segment);
      expect(next.extents[0]!.offset).toBeGreaterThanOrEqual(size);
      expect((await readAll(store, next)).toString()).toBe('after recovery');
    } finally {
      await store.close();
    }
  });

  it('drops an uncommitted streamed record (writer killed mid-body)', async () => {
    const { segment, size, bodies } = await seed();
    let store = await open(dir);
    const w = store.beginWrite(500_000);
    await w.write(randomBytes(100_000));
    await store.close(); // the writer never commits: like a crash mid-upload
    expect(fs.statSync(segmentPath(dir, segment)).size).toBeGreaterThan(size);
    store = await open(dir);
    try {
      expect(store.stats().recovery).toMatchObject({ tailUncommitted: 1, tailValid: 0 });
      expect(fs.statSync(segmentPath(dir, segment)).size).toBe(size);
      await expectIntact(bodies, store);
    } finally {
      await store.close();
    }
  });

  it('drops a complete record whose index entry never committed, and a torn record header', async () => {
    const { segment, size, bodies } = await seed();
    const key = Buffer.from('b\0ghost');
    const body = Buffer.from('never acknowledged');
    const len = exactRecordLength(body.length, key.length);
    const record = Buffer.concat([
      encodeRecordHeader(body.length, len, crc32cJs),
      body,
      encodeTrailer(key, crc32cJs(body, 0), Date.now(), crc32cJs),
    ]);
    const file = segmentPath(dir, segment);
    const padded = Buffer.concat([record, Buffer.alloc(len - record.length)]);
    fs.appendFileSync(file, padded);
    fs.appendFileSync(file, encodeRecordHeader(10, 80, crc32cJs).subarray(0, 20)); // torn header
    const fd = fs.openSync(file, 'r');
    expect(checkRecordSync(fd, size, size + len + 20, crc32cJs).status).toBe('valid');
    fs.closeSync(fd);

    const store = await open(dir);
    try {
      expect(store.stats().recovery).toMatchObject({ tailValid: 1, tailTorn: 1, truncatedBytes: len + 20 });
      expect(store.getObject('b', 'ghost')).toBeUndefined();
      await expectIntact(bodies, store);
      await put(store, 'b', 'e', Buffer.from('e'));
      expect(store.list('b', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 }).items).toHaveLength(4);
    } finally {
      await store.close();
    }
  });

  it('detects a corrupt body in the tail check', async () => {
    const { segment, size } = await seed();
    const key = Buffer.from('b\0bad');
    const body = Buffer.from('some body bytes');
    const len = exactRecordLength(body.length, key.length);
    const trailer = encodeTrailer(key, crc32cJs(body, 0) ^ 1, Date.now(), crc32cJs);
    fs.appendFileSync(segmentPath(dir, segment), Buffer.concat([encodeRecordHeader(body.length, len, crc32cJs), body, trailer]));
    const store = await open(dir);
    try {
      expect(store.stats().recovery).toMatchObject({ tailCorrupt: 1 });
      expect(fs.statSync(segmentPath(dir, segment)).size).toBe(size);
    } finally {
      await store.close();
    }
  });

  it('removes a segment file created before its first commit and never reuses indexed space', async () => {
    const { segment, bodies } = await seed();
    // A crash right after a dedicated segment for a large body was created.
    let store = await open(dir, { segmentSize: 1 << 20 });
    const w = store.beginWrite(2 << 20);
    await w.write(randomBytes(1000));
    const later = await put(store, 'b', 'later', Buffer.from('later'));
    await store.close();
    const files = fs.readdirSync(path.join(dir, 'segments'));
    expect(files.length).toBeGreaterThanOrEqual(2);

    store = await open(dir, { segmentSize: 1 << 20 });
    try {
      const report = store.stats().recovery;
      expect(report.removedSegments.length + report.tailUncommitted).toBeGreaterThanOrEqual(1);
      await expectIntact(bodies, store);
      expect((await readAll(store, store.getObject('b', 'later')!)).toString()).toBe('later');
      const again = await put(store, 'b', 'again', Buffer.from('again'));
      const l = store.getObject('b', 'later')!.extents[0]!;
      const a = again.extents[0]!;
      if (a.segment === l.segment) expect(a.offset).toBeGreaterThan(l.offset);
      expect(later.extents[0]!.segment).toBe(segment);
    } finally {
      await store.close();
    }
  });
});
