// Listing inputs longer than any key (s3.md §3.0.8, issue 30): a prefix, marker, start-after,
// key-marker, upload-id-marker, version-id-marker, continuation token or delimiter of 2-6 KiB, in a
// bucket of the longest name holding 1024-byte keys, on every listing operation. No key is longer
// than 1024 bytes (AWS *Naming Amazon S3 objects*), so a longer prefix matches nothing and a longer
// marker starts after every key it sorts after: each answer is 200 and exactly those items,
// never a 500 (the engine used to build an LMDB key past its limit from them).

import { beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { expectS3Error, xmlAll } from './helpers/xml.js';
import { encodeToken } from '../../src/s3/routes/continuation-token.js';

const ctx = useTusk();
// the longest bucket name (63 bytes): the index key is bucket 0x00 key
const bucket = bucketName('long-inputs').padEnd(63, 'x');
const LONG_K = 'k'.repeat(1024);
const LONG_SLASH = `${'k'.repeat(1000)}/${'x'.repeat(23)}`;
const LONG_ELEPHANT = '\u{1F418}'.repeat(256); // 1024 bytes of 4-byte UTF-8
const KEYS = ['a', 'b', LONG_K, LONG_SLASH, 'z', LONG_ELEPHANT];
const KIB2 = 2048;
/** markers past the size LMDB's reads quietly cut a key to (they threw beyond about 4 KiB) */
const KIB6 = 6144;

const byteOrder = (x: string, y: string): number => Buffer.compare(Buffer.from(x), Buffer.from(y));
/** The keys under `prefix` after `after` in byte order: what S3's listing answers (§3.0.8). */
function expected(prefix: string, after = ''): string[] {
  return [...KEYS].filter((k) => k.startsWith(prefix) && byteOrder(k, after) > 0).sort(byteOrder);
}

const uploadIds = new Map<string, string>();
beforeAll(async () => {
  expect((await s3Request(ctx.server, { method: 'PUT', bucket })).status).toBe(200);
  for (const key of KEYS) {
    expect((await s3Request(ctx.server, { method: 'PUT', bucket, key, body: key })).status).toBe(200);
    const res = await s3Request(ctx.server, { method: 'POST', bucket, key, query: 'uploads' });
    expect(res.status).toBe(200);
    uploadIds.set(key, xmlAll(res.text(), 'UploadId')[0]!);
  }
});

interface Listing {
  name: string;
  /** the operation's own query parameter */
  query: Record<string, string>;
  /** its start-position parameter */
  marker: string;
  /** the element each item's key is in */
  item: string;
}

const LISTINGS: Listing[] = [
  { name: 'ListObjectsV2', query: { 'list-type': '2' }, marker: 'start-after', item: 'Contents' },
  { name: 'ListObjects', query: {}, marker: 'marker', item: 'Contents' },
  { name: 'ListObjectVersions', query: { versions: '' }, marker: 'key-marker', item: 'Version' },
  { name: 'ListMultipartUploads', query: { uploads: '' }, marker: 'key-marker', item: 'Upload' },
];

async function list(l: Listing, params: Record<string, string>): Promise<{ keys: string[]; prefixes: string[] }> {
  const res = await s3Request(ctx.server, { method: 'GET', bucket, query: { ...l.query, ...params } });
  expect(res.status, `${l.name} ${JSON.stringify(params).slice(0, 200)}: ${res.text().slice(0, 300)}`).toBe(200);
  const xml = res.text();
  const keys = xmlAll(xml, l.item).flatMap((item) => xmlAll(item, 'Key'));
  const prefixes = xmlAll(xml, 'CommonPrefixes').flatMap((p) => xmlAll(p, 'Prefix'));
  return { keys, prefixes };
}

describe.each(LISTINGS)('$name with inputs longer than any key', (l) => {
  it('a 2 KiB prefix matches nothing, and neither does one a byte longer than a 1024-byte key', async () => {
    for (const prefix of ['a'.repeat(KIB2), `${LONG_K}k`, `${LONG_ELEPHANT}\u{1F418}`]) {
      expect(await list(l, { prefix })).toEqual({ keys: [], prefixes: [] });
      expect(await list(l, { prefix, delimiter: '/', 'encoding-type': 'url' })).toEqual({ keys: [], prefixes: [] });
    }
  });

  it('a 1024-byte prefix lists the key it names', async () => {
    expect((await list(l, { prefix: LONG_K })).keys).toEqual([LONG_K]);
    expect((await list(l, { prefix: LONG_ELEPHANT })).keys).toEqual([LONG_ELEPHANT]);
  });

  it('a 6 KiB marker starts after every key it sorts after', async () => {
    for (const marker of ['a'.repeat(KIB6), 'k'.repeat(KIB6), `${LONG_K}${'\u{1F418}'.repeat(300)}`, '\u{1F418}'.repeat(600)]) {
      expect((await list(l, { [l.marker]: marker })).keys, marker.slice(0, 8)).toEqual(expected('', marker));
      expect((await list(l, { [l.marker]: marker, prefix: 'k' })).keys).toEqual(expected('k', marker));
    }
  });

  it('a 2 KiB delimiter rolls nothing up; a long key still rolls up at a short one', async () => {
    expect(await list(l, { delimiter: '/'.repeat(KIB2) })).toEqual({ keys: expected(''), prefixes: [] });
    const rolled = await list(l, { prefix: 'k'.repeat(1000), delimiter: '/' });
    expect(rolled).toEqual({ keys: [LONG_K], prefixes: [`${'k'.repeat(1000)}/`] });
    expect(await list(l, { prefix: 'k'.repeat(1000), delimiter: '/', [l.marker]: `${'k'.repeat(1000)}/${'z'.repeat(KIB6)}` }))
      .toEqual({ keys: [LONG_K], prefixes: [] });
  });
});

describe('markers that only some listings take', () => {
  const versions = LISTINGS[2]!;
  const uploads = LISTINGS[3]!;

  it('ListObjectVersions: a 6 KiB key-marker with a version-id-marker', async () => {
    for (const versionId of ['null', 'v'.repeat(KIB2)]) {
      const out = await list(versions, { 'key-marker': 'a'.repeat(KIB6), 'version-id-marker': versionId });
      expect(out.keys).toEqual(expected('', 'a'.repeat(KIB6)));
    }
    // a long version-id-marker on a real key: no such version, so the page starts after the key
    const out = await list(versions, { 'key-marker': 'a', 'version-id-marker': 'v'.repeat(KIB6) });
    expect(out.keys).toEqual(expected('', 'a'));
  });

  it('ListMultipartUploads: a 6 KiB upload-id-marker, with a long or a 1024-byte key-marker', async () => {
    const out = await list(uploads, { 'key-marker': 'a'.repeat(KIB6), 'upload-id-marker': 'u'.repeat(KIB6) });
    expect(out.keys).toEqual(expected('', 'a'.repeat(KIB6)));
    // on the 1024-byte key: after the upload ids it sorts after (every real id is shorter)
    const id = uploadIds.get(LONG_K)!;
    const same = await list(uploads, { 'key-marker': LONG_K, 'upload-id-marker': `${id}${'0'.repeat(KIB6)}` });
    expect(same.keys).toEqual(expected('', LONG_K));
    const before = await list(uploads, { 'key-marker': LONG_K, 'upload-id-marker': '0'.repeat(KIB6) });
    expect(before.keys).toEqual([LONG_K, ...expected('', LONG_K)]);
  });

  it('ListObjectsV2: a continuation token naming a key longer than any', async () => {
    const l = LISTINGS[0]!;
    for (const last of ['a'.repeat(1500), `${LONG_K}${'k'.repeat(400)}`]) {
      expect((await list(l, { 'continuation-token': encodeToken(last) })).keys).toEqual(expected('', last));
    }
    // past the token's size limit: refused as S3 refuses a token it did not issue
    const res = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'continuation-token': encodeToken('a'.repeat(KIB2)) } });
    expectS3Error(res, 400, 'InvalidArgument');
  });
});
