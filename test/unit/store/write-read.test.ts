import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SegmentStore } from '../../../src/store/index.js';
import { bucket, meta, open, put, readAll, tempDir } from './helpers.js';

describe('store write/read round trips', () => {
  let dir: string;
  let store: SegmentStore;

  beforeEach(async () => {
    dir = tempDir();
    store = await open(dir, { segmentSize: 1 << 20 });
    await store.createBucket(bucket('b'));
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips a small body and its metadata', async () => {
    const body = Buffer.from('hello world');
    const writer = store.beginWrite(body.length);
    await writer.write(body);
    const m = meta('5eb63bbbe01eeed093cb22bb8f5acdc3', body.length, {
      contentType: 'text/plain',
      headers: { 'cache-control': 'no-cache' },
      meta: { color: 'blue' },
      checksum: { algorithm: 'CRC32C', value: 'yZRlqg==', type: 'FULL_OBJECT' },
    });
    const record = await writer.commit('b', 'greeting.txt', m);
    expect(record.extents).toHaveLength(1);
    const got = store.getObject('b', 'greeting.txt');
    expect({ ...got, extents: [] }).toEqual({ ...record, extents: [] });
    expect(Buffer.from(got!.extents[0]!.blockCrcs!)).toEqual(Buffer.from(record.extents[0]!.blockCrcs!));
    expect(got).toMatchObject({ key: 'greeting.txt', attrs: { contentType: 'text/plain', meta: { color: 'blue' } }, size: 11 });
    expect((await readAll(store, got!)).toString()).toBe('hello world');
  });

  it('round-trips an empty body', async () => {
    const record = await put(store, 'b', 'empty', Buffer.alloc(0));
    expect(record.size).toBe(0);
    const reader = store.openRead(record, 0, 0);
    expect(await reader.read(1024)).toBeNull();
    reader.close();
    expect(store.getObject('b', 'empty')?.size).toBe(0);
  });

  it('round-trips a multi-chunk streamed body and serves ranges as sub-extents', async () => {
    const body = randomBytes(300_000);
    const record = await put(store, 'b', 'big', body, { chunkSize: 7_001 });
    expect((await readAll(store, record)).equals(body)).toBe(true);
    expect((await readAll(store, record, 12_345, 200_001, 4_096)).equals(body.subarray(12_345, 200_001))).toBe(true);
    expect((await readAll(store, record, 299_999, 300_000)).equals(body.subarray(299_999))).toBe(true);
  });

  it('reads in chunks no larger than asked, reusing one buffer', async () => {
    const body = randomBytes(200_000);
    const record = await put(store, 'b', 'k', body);
    const reader = store.openRead(record, 0, body.length);
    const first = await reader.read(50_000);
    const firstBacking = first!.buffer;
    expect(first!.length).toBe(50_000);
    const second = await reader.read(50_000);
    expect(second!.buffer).toBe(firstBacking);
    reader.close();
  });

  it('serves a small body in one read', async () => {
    const body = randomBytes(5_000);
    const record = await put(store, 'b', 'small', body);
    const reader = store.openRead(record, 0, body.length);
    const chunk = await reader.read(1 << 20);
    expect(chunk!.equals(body)).toBe(true);
    expect(await reader.read(1 << 20)).toBeNull();
    reader.close();
  });

  it('gives a body larger than the segment size a segment of its own', async () => {
    const body = randomBytes((1 << 20) + 12_345);
    const small = await put(store, 'b', 'small', Buffer.from('x'));
    const record = await put(store, 'b', 'huge', body, { chunkSize: 256 * 1024 });
    expect(record.extents[0]!.segment).not.toBe(small.extents[0]!.segment);
    const after = await put(store, 'b', 'after', Buffer.from('y'));
    expect(after.extents[0]!.segment).toBe(small.extents[0]!.segment);
    expect((await readAll(store, record)).equals(body)).toBe(true);
    const seg = path.join(dir, 'segments', `${String(record.extents[0]!.segment).padStart(8, '0')}.seg`);
    expect(fs.statSync(seg).size).toBeGreaterThan(body.length);
  });

  it('rolls to a new segment when the active one is full', async () => {
    const segments = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const r = await put(store, 'b', `k${i}`, randomBytes(100_000));
      segments.add(r.extents[0]!.segment);
    }
    expect(segments.size).toBeGreaterThan(1);
    for (let i = 0; i < 12; i++) expect(store.getObject('b', `k${i}`)?.size).toBe(100_000);
  });

  it('lets concurrent writers share a segment without interleaving', async () => {
    const bodies = Array.from({ length: 10 }, (_, i) => randomBytes(70_000 + i * 1_000)); // fits one 1 MiB segment
    const writers = bodies.map((b) => store.beginWrite(b.length));
    // Interleave chunk writes across all writers.
    for (let off = 0; off < 90_000; off += 8_192) {
      await Promise.all(
        writers.map((w, i) => (off < bodies[i]!.length ? w.write(Buffer.from(bodies[i]!.subarray(off, off + 8_192))) : undefined)),
      );
    }
    const records = await Promise.all(writers.map((w, i) => w.commit('b', `c${i}`, meta(`e${i}`, bodies[i]!.length))));
    expect(new Set(records.map((r) => r.extents[0]!.segment)).size).toBe(1);
    for (let i = 0; i < bodies.length; i++) {
      expect((await readAll(store, store.getObject('b', `c${i}`)!)).equals(bodies[i]!)).toBe(true);
    }
  });

  it('commits many concurrent small writers', async () => {
    const bodies = Array.from({ length: 50 }, () => randomBytes(1_000));
    await Promise.all(bodies.map((b, i) => put(store, 'b', `s${i}`, b)));
    for (let i = 0; i < bodies.length; i++) {
      expect((await readAll(store, store.getObject('b', `s${i}`)!)).equals(bodies[i]!)).toBe(true);
    }
  });

  it('never makes an aborted write visible', async () => {
    for (const size of [10, 200_000]) {
      const w = store.beginWrite(size);
      await w.write(randomBytes(Math.min(size, 5)));
      await w.abort();
      await w.abort(); // idempotent
      await expect(w.write(Buffer.alloc(1))).rejects.toThrow();
      expect(store.getObject('b', 'aborted')).toBeUndefined();
    }
    expect(store.list('b', { prefix: '', delimiter: '', startAfter: '', maxKeys: 1000 }).items).toEqual([]);
  });

  it('rejects a commit of a short body and a write past the declared size', async () => {
    const w = store.beginWrite(100_000);
    await w.write(randomBytes(10));
    await expect(w.commit('b', 'short', meta('e', 100_000))).rejects.toThrow(/of its 100000 bytes/);
    expect(store.getObject('b', 'short')).toBeUndefined();
    const w2 = store.beginWrite(4);
    await expect(w2.write(Buffer.alloc(5))).rejects.toThrow(/longer than its declared size/);
    await w2.abort();
  });

  it('replaces an object and deletes it', async () => {
    await put(store, 'b', 'k', Buffer.from('one'), { etag: 'e1' });
    const second = await put(store, 'b', 'k', Buffer.from('second'), { etag: 'e2' });
    expect(store.getObject('b', 'k')?.etag).toBe('e2');
    expect((await readAll(store, second)).toString()).toBe('second');
    expect(await store.deleteObject('b', 'k')).toMatchObject({ kind: 'removed' });
    expect(store.getObject('b', 'k')).toBeUndefined();
    expect(await store.deleteObject('b', 'k')).toEqual({ kind: 'missing' });
  });

  it('refuses a commit into a missing bucket', async () => {
    await expect(put(store, 'nope', 'k', Buffer.from('x'))).rejects.toMatchObject({ kind: 'namespace-missing' });
  });

  it('rejects keys longer than 1024 bytes and accepts exactly 1024', async () => {
    const key = 'é'.repeat(512); // 1024 bytes
    await put(store, 'b', key, Buffer.from('x'));
    expect(store.getObject('b', key)?.key).toBe(key);
    await expect(put(store, 'b', key + 'a', Buffer.from('x'))).rejects.toMatchObject({ kind: 'invalid-name' });
    // Lookups of names that cannot exist answer "absent" rather than throwing.
    expect(store.getObject('b', key + 'a')).toBeUndefined();
    expect(await store.deleteObject('b', key + 'a')).toEqual({ kind: 'missing' });
    expect(store.getBucket('x'.repeat(64))).toBeUndefined();
    expect(await store.deleteBucket('x'.repeat(64))).toBe('missing');
    await expect(store.createBucket(bucket('x'.repeat(64)))).rejects.toMatchObject({ kind: 'invalid-name' });
  });
});
