import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { SegmentStore } from '../../../src/store/index.js';
import type { ListOptions, ListResult } from '../../../src/store/types.js';
import { bucket, open, put, tempDir } from './helpers.js';

function names(result: ListResult): string[] {
  return result.items.map((i) => (i.kind === 'object' ? i.record.key : `P:${i.prefix}`));
}

function options(o: Partial<ListOptions>): ListOptions {
  return { prefix: '', delimiter: '', startAfter: '', maxKeys: 1000, ...o };
}

/** Pages through a listing the way a client does: continue after the last item returned. */
function pageAll(store: SegmentStore, o: Partial<ListOptions>, pageSize: number): { all: string[]; pages: number } {
  const all: string[] = [];
  let startAfter = o.startAfter ?? '';
  for (let pages = 1; ; pages++) {
    const r = store.list('b', options({ ...o, startAfter, maxKeys: pageSize }));
    expect(r.items.length).toBeLessThanOrEqual(pageSize);
    all.push(...names(r));
    if (!r.isTruncated) return { all, pages };
    expect(r.items.length).toBe(pageSize);
    const last = r.items.at(-1)!;
    startAfter = last.kind === 'object' ? last.record.key : last.prefix;
  }
}

const KEYS = [
  'a',
  'a/b',
  'a/c/d',
  'a/c/e',
  'a/d',
  'ab',
  'b/1',
  'b/2',
  'b/3',
  'c',
  'photos/2024/jan.jpg',
  'photos/2024/feb.jpg',
  'photos/2025/mar.jpg',
  'photos/index.html',
  'z',
];

describe('listing (s3.md §3.0.8)', () => {
  let dir: string;
  let store: SegmentStore;

  beforeAll(async () => {
    dir = tempDir();
    store = await open(dir, { durability: 'relaxed' });
    await store.createBucket(bucket('b'));
    await store.createBucket(bucket('b-other'));
    await Promise.all(KEYS.map((k) => put(store, 'b', k, Buffer.from(k))));
    await put(store, 'b-other', 'a', Buffer.from('not in b'));
    await store.createBucket(bucket('empty'));
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists every key of the bucket in byte order and nothing from other buckets', () => {
    const r = store.list('b', options({}));
    expect(names(r)).toEqual([...KEYS].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
    expect(r.isTruncated).toBe(false);
    expect(r.items[0]).toMatchObject({ kind: 'object', record: { key: 'a', size: 1, etag: 'etag-a' } });
    expect(store.list('empty', options({})).items).toEqual([]);
  });

  it('filters by prefix', () => {
    expect(names(store.list('b', options({ prefix: 'a/' })))).toEqual(['a/b', 'a/c/d', 'a/c/e', 'a/d']);
    expect(names(store.list('b', options({ prefix: 'nothing' })))).toEqual([]);
  });

  it('rolls keys up into CommonPrefixes, each emitted once', () => {
    expect(names(store.list('b', options({ delimiter: '/' })))).toEqual(['a', 'P:a/', 'ab', 'P:b/', 'c', 'P:photos/', 'z']);
    expect(names(store.list('b', options({ prefix: 'photos/', delimiter: '/' })))).toEqual([
      'P:photos/2024/',
      'P:photos/2025/',
      'photos/index.html',
    ]);
    expect(names(store.list('b', options({ prefix: 'a', delimiter: '/' })))).toEqual(['a', 'P:a/', 'ab']);
  });

  it('supports a multi-character delimiter', () => {
    expect(names(store.list('b', options({ prefix: 'photos/', delimiter: '/j' })))).toEqual([
      'photos/2024/feb.jpg',
      'P:photos/2024/j',
      'photos/2025/mar.jpg',
      'photos/index.html',
    ]);
  });

  it('counts keys and prefixes together against maxKeys and reports truncation', () => {
    const r = store.list('b', options({ delimiter: '/', maxKeys: 3 }));
    expect(names(r)).toEqual(['a', 'P:a/', 'ab']);
    expect(r.isTruncated).toBe(true);
    const exact = store.list('b', options({ prefix: 'b/', maxKeys: 3 }));
    expect(names(exact)).toEqual(['b/1', 'b/2', 'b/3']);
    expect(exact.isTruncated).toBe(false);
  });

  it('maxKeys=0 returns nothing and is not truncated', () => {
    expect(store.list('b', options({ maxKeys: 0 }))).toEqual({ items: [], isTruncated: false });
  });

  it('starts strictly after startAfter, which need not exist', () => {
    expect(names(store.list('b', options({ startAfter: 'b/2' })))[0]).toBe('b/3');
    expect(names(store.list('b', options({ startAfter: 'b/25' })))[0]).toBe('b/3');
    expect(names(store.list('b', options({ startAfter: 'zz' })))).toEqual([]);
    expect(names(store.list('b', options({ prefix: 'b/', startAfter: 'a' })))).toEqual(['b/1', 'b/2', 'b/3']);
  });

  it('never repeats a CommonPrefix the start position is at or inside', () => {
    expect(names(store.list('b', options({ delimiter: '/', startAfter: 'a/' })))).toEqual(['ab', 'P:b/', 'c', 'P:photos/', 'z']);
    expect(names(store.list('b', options({ delimiter: '/', startAfter: 'a/c/d' })))).toEqual(['ab', 'P:b/', 'c', 'P:photos/', 'z']);
    // A start position before the prefix still emits it.
    expect(names(store.list('b', options({ delimiter: '/', startAfter: 'a' })))[0]).toBe('P:a/');
  });

  it('paginates across prefix boundaries without gaps or repeats', () => {
    const full = names(store.list('b', options({ delimiter: '/' })));
    for (const size of [1, 2, 3, 4]) {
      const { all, pages } = pageAll(store, { delimiter: '/' }, size);
      expect(all).toEqual(full);
      expect(pages).toBe(Math.ceil(full.length / size));
    }
    const flat = names(store.list('b', options({})));
    expect(pageAll(store, {}, 4).all).toEqual(flat);
    expect(pageAll(store, { prefix: 'photos/', delimiter: '/' }, 1).all).toEqual(['P:photos/2024/', 'P:photos/2025/', 'photos/index.html']);
  });
});

describe('listing order of nasty keys', () => {
  it('orders non-BMP, control-character and 1024-byte keys by UTF-8 bytes', async () => {
    const dir = tempDir();
    const store = await open(dir, { durability: 'relaxed' });
    try {
      await store.createBucket(bucket('b'));
      const keys = [
        '\u{1F600}smile', // 4-byte UTF-8 (F0 ...), UTF-16 surrogate D83D
        '\uFFFDreplacement', // EF BF BD: sorts before F0 in bytes, after D83D in UTF-16
        'a\u0000nul',
        'a',
        'a\u0001',
        'é',
        'x'.repeat(1024),
        'x'.repeat(1023),
        'with space+plus%percent//double',
        '/leading-slash',
      ];
      for (const k of keys) await put(store, 'b', k, Buffer.from('v'));
      const listed = names(store.list('b', options({})));
      const byBytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      expect(listed).toEqual(byBytes);
      expect(listed).not.toEqual([...keys].sort()); // UTF-16 order differs: the test is meaningful
      expect(names(store.list('b', options({ startAfter: 'a' })))[0]).toBe('a\u0000nul');
      expect(names(store.list('b', options({ prefix: 'x', maxKeys: 1 })))).toEqual(['x'.repeat(1023)]);
      const delimited = names(store.list('b', options({ delimiter: '\u{1F600}' })));
      expect(delimited).toContain('P:\u{1F600}');
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('listing inputs longer than any key (issue 30)', () => {
  // 63-byte bucket, 1024-byte keys: the longest index keys; inputs of 8 KiB, far past LMDB's key size
  const b = 'b'.repeat(63);
  const long = 'k'.repeat(1024);
  const keys = ['a', long, 'z'];
  const huge = (c: string): string => c.repeat(8192);
  let dir: string;
  let store: SegmentStore;
  beforeAll(async () => {
    dir = tempDir();
    store = await open(dir, { durability: 'relaxed' });
    await store.createBucket(bucket(b));
    for (const k of keys) {
      await put(store, b, k, Buffer.from(k));
      await store.createUpload(b, k, {});
    }
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const versionKeys = (o: { prefix?: string; keyMarker?: string; versionIdMarker?: string }): string[] =>
    store.listVersions(b, { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 1000, ...o }).items.map((i) => (i.kind === 'version' ? i.version.key : `P:${i.prefix}`));
  const uploadKeys = (o: { prefix?: string; keyMarker?: string; uploadIdMarker?: string }): string[] =>
    store.listUploads(b, { prefix: '', delimiter: '', keyMarker: '', uploadIdMarker: '', maxUploads: 1000, ...o }).items.map((i) => (i.kind === 'upload' ? i.upload.key : `P:${i.prefix}`));

  it('a prefix longer than any key matches nothing', () => {
    for (const prefix of [huge('a'), `${long}k`]) {
      expect(names(store.list(b, options({ prefix, delimiter: '/' })))).toEqual([]);
      expect(versionKeys({ prefix })).toEqual([]);
      expect(uploadKeys({ prefix })).toEqual([]);
    }
    expect(names(store.list(b, options({ prefix: long })))).toEqual([long]);
  });

  it('a marker longer than any key starts after the keys it sorts after', () => {
    for (const [marker, after] of [[huge('a'), [long, 'z']], [huge('k'), ['z']], [`${long}${huge('\u{1F418}')}`, ['z']], [huge('z'), []]] as const) {
      expect(names(store.list(b, options({ startAfter: marker })))).toEqual(after);
      expect(versionKeys({ keyMarker: marker })).toEqual(after);
      expect(versionKeys({ keyMarker: marker, versionIdMarker: huge('v') })).toEqual(after);
      expect(uploadKeys({ keyMarker: marker })).toEqual(after);
      expect(uploadKeys({ keyMarker: marker, uploadIdMarker: huge('u') })).toEqual(after);
    }
  });

  it('an upload-id marker longer than any id sorts as its first ID_LENGTH bytes', () => {
    const id = store.listUploads(b, { prefix: long, delimiter: '', keyMarker: '', uploadIdMarker: '', maxUploads: 1 }).items[0]!;
    const uploadId = id.kind === 'upload' ? id.upload.uploadId : '';
    expect(uploadKeys({ keyMarker: long, uploadIdMarker: `${uploadId}${huge('0')}` })).toEqual(['z']);
    expect(uploadKeys({ keyMarker: long, uploadIdMarker: huge('0') })).toEqual([long, 'z']);
  });
});
