// Bodies made of several extents (completed multipart uploads, copies): reads of ranges that cross
// extent and block boundaries, and the per-block CRC checks that keep corrupted bytes from leaving.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCK_SIZE } from '../../../src/store/block-crcs.js';
import type { SegmentStore } from '../../../src/store/index.js';
import type { ObjectVersion } from '../../../src/store/types.js';
import { bucket, meta, put, readAll, storeForEachTest } from './helpers.js';

function pattern(size: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

async function uploadParts(store: SegmentStore, key: string, sizes: number[]): Promise<{ uploadId: string; bodies: Buffer[] }> {
  const upload = await store.createUpload('b', key, { contentType: 'x' });
  const bodies: Buffer[] = [];
  for (const [i, size] of sizes.entries()) {
    const body = pattern(size, i + 7);
    bodies.push(body);
    const w = store.beginWrite(size);
    for (let at = 0; at < size; at += 300_000) await w.write(Buffer.from(body.subarray(at, at + 300_000)));
    await w.commitPart('b', key, upload.uploadId, i + 1, { etag: `p${i + 1}`, lastModified: 1, attrs: { n: i + 1 } });
  }
  return { uploadId: upload.uploadId, bodies };
}

describe('multi-extent bodies', () => {
  let dir: string;
  let store: SegmentStore;
  storeForEachTest([bucket('b')], (s, d) => ((store = s), (dir = d)));

  it('a completed upload is its parts, in order, and reads back across extent and block boundaries', async () => {
    const sizes = [BLOCK_SIZE + 123_457, 5, 2 * BLOCK_SIZE - 1, 777_777];
    const { uploadId, bodies } = await uploadParts(store, 'big', sizes);
    expect(store.listParts(uploadId, 0, 100).parts.map((p) => [p.partNumber, p.size, p.etag])).toEqual(sizes.map((s, i) => [i + 1, s, `p${i + 1}`]));
    const version = await store.completeUpload('b', 'big', uploadId, sizes.map((_, i) => ({ partNumber: i + 1, etag: `p${i + 1}` })), meta('final-2'));
    expect(version.extents).toHaveLength(4);
    expect(version.size).toBe(sizes.reduce((a, b) => a + b, 0));
    const whole = Buffer.concat(bodies);
    expect((await readAll(store, version)).equals(whole)).toBe(true);
    const cases: Array<[number, number]> = [
      [0, 1],
      [BLOCK_SIZE - 3, BLOCK_SIZE + 3],
      [sizes[0]! - 2, sizes[0]! + 5 + 2], // across three extents
      [sizes[0]! + 5 + BLOCK_SIZE - 1, sizes[0]! + 5 + BLOCK_SIZE + 1],
      [whole.length - 10, whole.length],
      [17, whole.length - 17],
    ];
    for (const [start, end] of cases) {
      for (const chunk of [7, 65_536, BLOCK_SIZE]) {
        expect((await readAll(store, version, start, end, chunk)).equals(whole.subarray(start, end))).toBe(true);
      }
    }
    expect(store.getUpload('b', 'big', uploadId)).toBeUndefined();
  });

  it('completes with a subset of parts, rejects unknown parts and stale etags, and aborts', async () => {
    const { uploadId } = await uploadParts(store, 'k', [10, 20, 30]);
    await expect(store.completeUpload('b', 'k', uploadId, [{ partNumber: 4, etag: 'p4' }], meta('x'))).rejects.toMatchObject({
      kind: 'not-found',
      subject: 'part',
    });
    await expect(store.completeUpload('b', 'k', uploadId, [{ partNumber: 1, etag: 'other' }], meta('x'))).rejects.toMatchObject({
      kind: 'condition-failed',
      subject: 'part',
    });
    const v = await store.completeUpload('b', 'k', uploadId, [{ partNumber: 1, etag: 'p1' }, { partNumber: 3, etag: 'p3' }], meta('x'));
    expect(v.size).toBe(40);
    await expect(store.completeUpload('b', 'k', uploadId, [], meta('x'))).rejects.toMatchObject({ kind: 'not-found', subject: 'upload' });
    const second = await uploadParts(store, 'k', [10]);
    expect(await store.abortUpload('b', 'k', second.uploadId)).toBe(true);
    expect(await store.abortUpload('b', 'k', second.uploadId)).toBe(false);
    const w = store.beginWrite(1);
    await w.write(Buffer.from('x'));
    await expect(w.commitPart('b', 'k', second.uploadId, 1, meta('e'))).rejects.toMatchObject({ kind: 'not-found', subject: 'upload' });
  });

  it('replacing a part frees the old one; uploads list by key then age, with markers', async () => {
    const a = await uploadParts(store, 'a', [5]);
    const w = store.beginWrite(3);
    await w.write(Buffer.from('new'));
    await w.commitPart('b', 'a', a.uploadId, 1, { etag: 'again', lastModified: 2, attrs: undefined });
    expect(store.listParts(a.uploadId, 0, 10).parts.map((p) => [p.etag, p.size])).toEqual([['again', 3]]);
    const b1 = await store.createUpload('b', 'dir/x', undefined);
    const b2 = await store.createUpload('b', 'dir/x', undefined);
    const all = store.listUploads('b', { prefix: '', delimiter: '', keyMarker: '', uploadIdMarker: '', maxUploads: 10 });
    expect(all.items.map((i) => (i.kind === 'upload' ? `${i.upload.key}:${i.upload.uploadId}` : i.prefix))).toEqual([
      `a:${a.uploadId}`,
      `dir/x:${b1.uploadId}`,
      `dir/x:${b2.uploadId}`,
    ]);
    const page = store.listUploads('b', { prefix: '', delimiter: '', keyMarker: 'dir/x', uploadIdMarker: b1.uploadId, maxUploads: 10 });
    expect(page.items.map((i) => (i.kind === 'upload' ? i.upload.uploadId : i.prefix))).toEqual([b2.uploadId]);
    const rolled = store.listUploads('b', { prefix: '', delimiter: '/', keyMarker: '', uploadIdMarker: '', maxUploads: 1 });
    expect(rolled).toMatchObject({ isTruncated: true, items: [{ kind: 'upload', upload: { key: 'a' } }] });
    // an incomplete upload does not keep its bucket alive, and goes with it
    expect(await store.deleteBucket('b')).toBe('deleted');
  });

  it('a copy shares its source extents and outlives the source', async () => {
    const body = pattern(3 * BLOCK_SIZE + 11, 3);
    const src = await put(store, 'b', 'src', body);
    const copy = await store.copyObject({ bucket: 'b', key: 'src', versionId: 'null' }, 'b', 'dst', meta('c'));
    expect(copy.extents.map((e) => [e.segment, e.offset])).toEqual(src.extents.map((e) => [e.segment, e.offset]));
    await store.deleteObject('b', 'src');
    expect((await readAll(store, store.getObject('b', 'dst')!)).equals(body)).toBe(true);
    await expect(store.copyObject({ bucket: 'b', key: 'src', versionId: 'null' }, 'b', 'x', meta('c'))).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('a corrupted byte fails the read of its block with "corrupt" and counts; other blocks still read', async () => {
    const body = pattern(3 * BLOCK_SIZE, 9);
    const v: ObjectVersion = await put(store, 'b', 'k', body);
    const e = v.extents[0]!;
    const file = path.join(dir, 'segments', `${String(e.segment).padStart(8, '0')}.seg`);
    const fd = fs.openSync(file, 'r+');
    const at = e.offset + BLOCK_SIZE + 12_345; // in the second block
    const byte = Buffer.alloc(1);
    fs.readSync(fd, byte, 0, 1, at);
    byte[0] = byte[0]! ^ 0x40;
    fs.writeSync(fd, byte, 0, 1, at);
    fs.closeSync(fd);
    await expect(readAll(store, v)).rejects.toMatchObject({ kind: 'corrupt' });
    await expect(readAll(store, v, BLOCK_SIZE + 12_000, BLOCK_SIZE + 13_000)).rejects.toMatchObject({ kind: 'corrupt' });
    expect((await readAll(store, v, 0, BLOCK_SIZE)).equals(body.subarray(0, BLOCK_SIZE))).toBe(true);
    expect((await readAll(store, v, 2 * BLOCK_SIZE, 3 * BLOCK_SIZE)).equals(body.subarray(2 * BLOCK_SIZE))).toBe(true);
    expect(store.stats().corruptBlocks).toBe(2);
  });

  it('a small corrupted body fails whole, on the synchronous read path too', async () => {
    const v = await put(store, 'b', 'small', Buffer.from('hello, world'));
    const e = v.extents[0]!;
    const file = path.join(dir, 'segments', `${String(e.segment).padStart(8, '0')}.seg`);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('J'), 0, 1, e.offset);
    fs.closeSync(fd);
    await expect(readAll(store, v)).rejects.toMatchObject({ kind: 'corrupt' });
    await expect(readAll(store, v, 5, 6)).rejects.toMatchObject({ kind: 'corrupt' });
    const reader = store.openRead(v, 0, v.size);
    try {
      expect(() => reader.readNow!(v.size)).toThrow(expect.objectContaining({ kind: 'corrupt' }));
    } finally {
      reader.close();
    }
  });

  it('readNow: a small body or range at once, the rest of a larger one through read, nothing after a read', async () => {
    const small = pattern(5000, 3);
    const v = await put(store, 'b', 'small', small);
    for (const [start, end] of [[0, 5000], [17, 4000], [4999, 5000]] as const) {
      const reader = store.openRead(v, start, end);
      try {
        expect(reader.readNow!(end - start)?.equals(small.subarray(start, end))).toBe(true);
        expect(await reader.read(10)).toBeNull();
      } finally {
        reader.close();
      }
    }
    const big = pattern(BLOCK_SIZE + 100, 4);
    const w = await put(store, 'b', 'big', big);
    const reader = store.openRead(w, 10, w.size);
    try {
      expect(reader.readNow!(w.size)).toBeUndefined(); // a block larger than SYNC_READ_MAX is waited for
      const parts: Buffer[] = [];
      for (let chunk = await reader.read(BLOCK_SIZE); chunk; chunk = await reader.read(BLOCK_SIZE)) parts.push(Buffer.from(chunk));
      expect(Buffer.concat(parts).equals(big.subarray(10))).toBe(true);
      expect(reader.readNow!(1)).toBeUndefined();
    } finally {
      reader.close();
    }
  });
});
