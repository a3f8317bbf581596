// A data directory written by index format 1 (flat S3 fields in each object record, no versions,
// no block CRCs) is upgraded in place at the first start, and its bodies still read.

import fs from 'node:fs';
import path from 'node:path';
import { open as openLmdb } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { crc32cJs } from '../../../src/store/crc32c.js';
import { encodeRecordHeader, encodeSegmentHeader, encodeTrailer, exactRecordLength, RECORD_HEADER_SIZE, SEGMENT_HEADER_SIZE } from '../../../src/store/format.js';
import { open, put, readAll, tempDir } from './helpers.js';

const STRUCTURES_KEY = Buffer.from([0xff, 0x73]);

/** Writes a format-1 data directory holding bucket `b` with the given objects, as Tusk 0.1 did. */
function writeVersion1(dir: string, objects: Record<string, Buffer>): void {
  fs.mkdirSync(path.join(dir, 'segments'), { recursive: true });
  const records: Buffer[] = [encodeSegmentHeader(1, Date.now(), crc32cJs)];
  const index: Array<[Buffer, unknown]> = [];
  let offset = SEGMENT_HEADER_SIZE;
  for (const [key, body] of Object.entries(objects)) {
    const recordKey = Buffer.from(`b\0${key}`);
    const length = exactRecordLength(body.length, recordKey.length);
    records.push(encodeRecordHeader(body.length, length, crc32cJs), body, encodeTrailer(recordKey, crc32cJs(body, 0), 1_700_000_000_000, crc32cJs, length - RECORD_HEADER_SIZE - body.length));
    index.push([
      recordKey,
      {
        size: body.length,
        etag: `etag-${key}`,
        lastModified: 1_700_000_000_000,
        contentType: 'text/plain',
        storageClass: 'STANDARD',
        acl: 'private',
        headers: {},
        meta: { origin: 'v1' },
        versionId: 'null',
        extents: [{ segment: 1, offset: offset + RECORD_HEADER_SIZE, length: body.length }],
      },
    ]);
    offset += length;
  }
  fs.writeFileSync(path.join(dir, 'segments', '00000001.seg'), Buffer.concat(records));
  const env = openLmdb({ path: path.join(dir, 'index.mdb'), compression: false });
  const buckets = env.openDB('buckets', { keyEncoding: 'binary' });
  const objectsDb = env.openDB('objects', { keyEncoding: 'binary', sharedStructuresKey: STRUCTURES_KEY });
  const segments = env.openDB('segments', { keyEncoding: 'uint32' });
  const meta = env.openDB('meta', {});
  env.transactionSync(() => {
    meta.putSync('format', 1);
    buckets.putSync(Buffer.from('b'), { name: 'b', owner: 'o', created: 1, acl: 'private', objectLock: false, versioning: 'Unversioned' });
    for (const [k, v] of index) objectsDb.putSync(k, v);
    segments.putSync(1, { live: 0, records: index.length, end: offset });
  });
  env.close();
}

describe('index format 1', () => {
  it('is upgraded in place: objects keep their bytes and S3 fields (now attrs), and take new writes', async () => {
    const dir = tempDir();
    const objects = { 'a.txt': Buffer.from('version one bytes'), 'dir/b': Buffer.alloc(100_000, 9) };
    writeVersion1(dir, objects);
    const store = await open(dir);
    try {
      for (const [key, body] of Object.entries(objects)) {
        const v = store.getObject('b', key)!;
        expect(v).toMatchObject({ key, versionId: 'null', deleteMarker: false, etag: `etag-${key}`, attrs: { contentType: 'text/plain', meta: { origin: 'v1' } } });
        expect(v.extents[0]!.blockCrcs).toBeUndefined();
        expect((await readAll(store, v)).equals(body)).toBe(true);
        expect((await readAll(store, v, 3, 9)).equals(body.subarray(3, 9))).toBe(true);
      }
      expect(store.list('b', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 }).items).toHaveLength(2);
      const next = await put(store, 'b', 'a.txt', Buffer.from('written by format 2'));
      expect(next.extents[0]!.blockCrcs).toBeDefined();
      expect((await readAll(store, store.getObject('b', 'a.txt')!)).toString()).toBe('written by format 2');
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
