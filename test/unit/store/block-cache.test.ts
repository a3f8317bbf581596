// The read cache of small bodies: checked bodies by place, least recently used out first, never
// stale (a place is written once), and a hit needs neither the disk nor a CRC pass.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockCache } from '../../../src/store/block-cache.js';
import type { SegmentStore } from '../../../src/store/index.js';
import type { Extent } from '../../../src/store/types.js';
import { bucket, open, put, readAll, storeForEachTest, tempDir } from './helpers.js';

const extent = (segment: number, offset: number, length: number, crcs = true): Extent => ({
  segment,
  offset,
  length,
  ...(crcs ? { blockCrcs: new Uint8Array(4) } : {}),
});

describe('BlockCache', () => {
  it('keeps small checked bodies within its budget, least recently used out first', () => {
    const cache = new BlockCache(10_000, 4096);
    expect(cache.keeps(extent(1, 0, 4096))).toBe(true);
    expect(cache.keeps(extent(1, 0, 4097))).toBe(false);
    expect(cache.keeps(extent(1, 0, 100, false))).toBe(false);
    const a = extent(1, 100, 4000);
    const b = extent(1, 5000, 4000);
    const c = extent(2, 100, 4000);
    const body = Buffer.alloc(4000, 7);
    cache.set(a, body);
    body.fill(9); // the cache keeps its own copy
    expect(cache.get(a)).toEqual(Buffer.alloc(4000, 7));
    cache.set(b, Buffer.alloc(4000, 2));
    expect(cache.get(a)).toBeDefined(); // a is now the most recent
    cache.set(c, Buffer.alloc(4000, 3)); // over budget: b (least recent) goes
    expect(cache.get(b)).toBeUndefined();
    expect(cache.get(a)).toBeDefined();
    expect(cache.get(c)).toBeDefined();
    expect(cache.size).toEqual({ entries: 2, bytes: 8000 });
    expect(new BlockCache(10, 1 << 30).maxBody).toBe(1 << 20);
  });
});

describe('store read cache', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves a small body read before from memory, and an overwrite or a range from the right bytes', async () => {
    dir = tempDir();
    const store = await open(dir, { readCacheBytes: 1 << 20 });
    try {
      await store.createBucket(bucket('b'));
      const first = await put(store, 'b', 'k', Buffer.alloc(3000, 1));
      expect(await readAll(store, first)).toEqual(Buffer.alloc(3000, 1));
      // the file's bytes change under the cache: a hit does not read them
      const e = first.extents[0]!;
      const file = path.join(dir, 'segments', `${String(e.segment).padStart(8, '0')}.seg`);
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, Buffer.alloc(10, 0xff), 0, 10, e.offset);
      fs.closeSync(fd);
      expect(await readAll(store, first)).toEqual(Buffer.alloc(3000, 1));
      expect(await readAll(store, first, 100, 200)).toEqual(Buffer.alloc(100, 1));
      const second = await put(store, 'b', 'k', Buffer.alloc(2000, 2));
      expect(await readAll(store, store.getObject('b', 'k')!)).toEqual(Buffer.alloc(2000, 2));
      expect(second.extents[0]).not.toEqual(e);
    } finally {
      await store.close();
    }
  });

  it('reads the disk (and checks it) when off', async () => {
    dir = tempDir();
    const store = await open(dir);
    try {
      await store.createBucket(bucket('b'));
      const v = await put(store, 'b', 'k', Buffer.alloc(3000, 1));
      expect(await readAll(store, v)).toEqual(Buffer.alloc(3000, 1));
      const e = v.extents[0]!;
      const fd = fs.openSync(path.join(dir, 'segments', `${String(e.segment).padStart(8, '0')}.seg`), 'r+');
      fs.writeSync(fd, Buffer.alloc(10, 0xff), 0, 10, e.offset);
      fs.closeSync(fd);
      await expect(readAll(store, v)).rejects.toMatchObject({ kind: 'corrupt' });
    } finally {
      await store.close();
    }
  });
});

describe('block read buffers', () => {
  let store: SegmentStore;
  storeForEachTest([bucket('b')], (s) => (store = s), { durability: 'relaxed' });

  it('go from reader to reader, never while a read of the one closed still fills them', async () => {
    const bodies = [1, 2].map((n) => Buffer.alloc(3 * (1 << 20) + 5, n));
    const [a, b] = [await put(store, 'b', 'a', bodies[0]!), await put(store, 'b', 'b', bodies[1]!)];
    for (let round = 0; round < 20; round++) {
      // a reader given up on mid-body, its read-ahead in flight, then another reading everything
      const early = store.openRead(a, 0, a.size);
      expect((await early.read(1 << 20))!.equals(bodies[0]!.subarray(0, 1 << 20))).toBe(true);
      early.close();
      expect((await readAll(store, b, 0, b.size, 1 << 20)).equals(bodies[1]!)).toBe(true);
    }
    expect(store.stats().corruptBlocks).toBe(0);
  });
});
