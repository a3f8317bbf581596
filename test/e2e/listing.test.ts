// ListObjectsV2 / ListObjects V1 and the JSON rendering: s3.md §3.0.8, §3.6, §3.7, §3.7.1.

import { ListObjectsCommand, ListObjectsV2Command, PutObjectCommand, CreateBucketCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { expectS3Error, xmlAll, xmlText } from './helpers/xml.js';

const ctx = useTusk();
const bucket = bucketName('list');
// byte order: '+' (0x2B) < '/' (0x2F) < 'a'; the non-BMP key sorts last
const KEYS = ['a+b', 'a/1', 'a/2', 'a/b/c', 'b', 'c d', 'photos/2024/x.jpg', 'photos/2025/y.jpg', 'z\u{1F418}'];

beforeAll(async () => {
  const s3 = s3Client(ctx.server);
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  for (const key of KEYS) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
});

function byteSorted(keys: string[]): string[] {
  return [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
}

describe('ListObjectsV2', () => {
  it('lists every key in byte order with sizes and ETags', async () => {
    const out = await s3Client(ctx.server).send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(out.Contents!.map((c) => c.Key)).toEqual(byteSorted(KEYS));
    expect(out.KeyCount).toBe(KEYS.length);
    expect(out.IsTruncated).toBe(false);
    expect(out.MaxKeys).toBe(1000);
    const b = out.Contents!.find((c) => c.Key === 'b')!;
    expect(b.Size).toBe(1);
    expect(b.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(b.StorageClass).toBe('STANDARD');
    expect(b.Owner).toBeUndefined();
  });

  it('rolls keys up into CommonPrefixes with a delimiter', async () => {
    const out = await s3Client(ctx.server).send(new ListObjectsV2Command({ Bucket: bucket, Delimiter: '/' }));
    expect(out.Contents!.map((c) => c.Key)).toEqual(['a+b', 'b', 'c d', 'z\u{1F418}']);
    expect(out.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['a/', 'photos/']);
    expect(out.KeyCount).toBe(6);
    const nested = await s3Client(ctx.server).send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'photos/', Delimiter: '/' }));
    expect(nested.Contents ?? []).toEqual([]);
    expect(nested.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['photos/2024/', 'photos/2025/']);
  });

  it('paginates with max-keys and continuation tokens, counting prefixes as items', async () => {
    const s3 = s3Client(ctx.server);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 2, Delimiter: '/', ContinuationToken: token }));
      pages += 1;
      const items = [...(out.Contents ?? []).map((c) => c.Key!), ...(out.CommonPrefixes ?? []).map((p) => p.Prefix!)];
      expect(items.length).toBeLessThanOrEqual(2);
      seen.push(...items);
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
      if (out.IsTruncated) expect(token).toBeTruthy();
      else expect(out.NextContinuationToken).toBeUndefined();
    } while (token && pages < 10);
    expect(byteSorted(seen)).toEqual(byteSorted(['a+b', 'a/', 'b', 'c d', 'photos/', 'z\u{1F418}']));
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(3);
  });

  it('starts after start-after', async () => {
    const out = await s3Client(ctx.server).send(new ListObjectsV2Command({ Bucket: bucket, StartAfter: 'b' }));
    expect(out.Contents!.map((c) => c.Key)).toEqual(byteSorted(KEYS).filter((k) => Buffer.compare(Buffer.from(k), Buffer.from('b')) > 0));
    expect(out.StartAfter).toBe('b');
  });

  it('caps max-keys at 1000 and honours max-keys=0', async () => {
    const capped = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'max-keys': '5000' } });
    expect(xmlText(capped.text(), 'MaxKeys')).toBe('1000');
    const zero = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'max-keys': '0' } });
    expect(xmlAll(zero.text(), 'Key')).toEqual([]);
    expect(xmlText(zero.text(), 'IsTruncated')).toBe('false');
    expect(xmlText(zero.text(), 'KeyCount')).toBe('0');
  });

  it('URL-encodes keys and prefixes with encoding-type=url (§3.0.8)', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'encoding-type': 'url', prefix: 'a' } });
    const xml = res.text();
    expect(xmlText(xml, 'EncodingType')).toBe('url');
    expect(xmlAll(xml, 'Key')).toEqual(['a%2Bb', 'a/1', 'a/2', 'a/b/c']);
    const all = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'encoding-type': 'url' } });
    expect(xmlAll(all.text(), 'Key')).toContain('c%20d');
    expect(xmlAll(all.text(), 'Key')).toContain('z%F0%9F%90%98');
  });

  it('renders the documented XML shape', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', prefix: 'b' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    const xml = res.text();
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\s*<ListBucketResult xmlns="http:\/\/s3\.amazonaws\.com\/doc\/2006-03-01\/">/);
    expect(xml).toMatch(/<Name>[^<]+<\/Name><Prefix>b<\/Prefix>.*<KeyCount>1<\/KeyCount><MaxKeys>1000<\/MaxKeys><IsTruncated>false<\/IsTruncated><Contents><Key>b<\/Key><LastModified>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z<\/LastModified>/s);
  });

  it('rejects bad parameters with InvalidArgument', async () => {
    for (const query of [
      { 'list-type': '3' } as Record<string, string>,
      { 'list-type': '2', 'max-keys': '-1' },
      { 'list-type': '2', 'max-keys': 'ten' },
      { 'list-type': '2', 'encoding-type': 'base64' },
      { 'list-type': '2', 'continuation-token': '!!!not-a-token!!!' },
    ]) {
      expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, query }), 400, 'InvalidArgument');
    }
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: bucketName('missing'), query: { 'list-type': '2' } }), 404, 'NoSuchBucket');
  });

  it('a continuation token is opaque and checked: one cut short or altered is refused; ListObjectsV2 names the bucket\'s region', async () => {
    const first = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'max-keys': '1' } });
    expect(first.headers['x-amz-bucket-region']).toBe('us-east-1');
    const token = xmlText(first.text(), 'NextContinuationToken')!;
    expect(token).toBeTruthy();
    const page = (t: string) => s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'max-keys': '1', 'continuation-token': t } });
    expect((await page(token)).status).toBe(200);
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    for (const bad of [token.slice(0, -3), token.slice(0, -1) + flip(token.at(-1)!), flip(token[0]!) + token.slice(1), token.slice(0, 8)]) {
      const err = expectS3Error(await page(bad), 400, 'InvalidArgument');
      expect(err.message).toBe('The continuation token provided is incorrect');
    }
  });

  it('an empty continuation-token is none: the listing starts at the beginning and echoes it', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2', 'continuation-token': '', 'max-keys': '1' } });
    expect(res.status).toBe(200);
    expect(res.text()).toContain('<ContinuationToken></ContinuationToken>');
    expect(xmlText(res.text(), 'Key')).toBe((await s3Client(ctx.server).send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1 }))).Contents![0]!.Key);
  });
});

describe('ListObjects V1', () => {
  it('is what list-type=1 asks for too; start-after is version 2 only', async () => {
    const v1 = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '1', 'max-keys': '2' } });
    expect(v1.status).toBe(200);
    expect(xmlAll(v1.text(), 'Key')).toEqual(byteSorted(KEYS).slice(0, 2));
    expect(xmlText(v1.text(), 'Marker')).toBe('');
    const after = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'start-after': 'b' } });
    expectS3Error(after, 400, 'InvalidArgument');
  });

  it('lists with marker; Owner always present; NextMarker only with a delimiter', async () => {
    const s3 = s3Client(ctx.server);
    const page = await s3.send(new ListObjectsCommand({ Bucket: bucket, MaxKeys: 3 }));
    expect(page.Contents!.map((c) => c.Key)).toEqual(byteSorted(KEYS).slice(0, 3));
    expect(page.IsTruncated).toBe(true);
    expect(page.NextMarker).toBeUndefined();
    expect(page.Contents![0]!.Owner?.ID).toMatch(/^[0-9a-f]{64}$/);
    const next = await s3.send(new ListObjectsCommand({ Bucket: bucket, Marker: page.Contents![2]!.Key }));
    expect(next.Contents!.map((c) => c.Key)).toEqual(byteSorted(KEYS).slice(3));
    expect(next.Marker).toBe(page.Contents![2]!.Key);

    const delimited = await s3.send(new ListObjectsCommand({ Bucket: bucket, Delimiter: '/', MaxKeys: 2 }));
    expect(delimited.IsTruncated).toBe(true);
    expect(delimited.NextMarker).toBe('a/');
    const rest = await s3.send(new ListObjectsCommand({ Bucket: bucket, Delimiter: '/', Marker: delimited.NextMarker }));
    expect(rest.Contents!.map((c) => c.Key)).toEqual(['b', 'c d', 'z\u{1F418}']);
    expect(rest.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['photos/']);
  });

  it('always echoes Marker, empty when not sent', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', bucket, query: { prefix: 'photos/' } });
    expect(res.text()).toMatch(/<Marker\s*\/>|<Marker><\/Marker>/);
    expect(xmlAll(res.text(), 'Key')).toEqual(['photos/2024/x.jpg', 'photos/2025/y.jpg']);
  });
});

describe('JSON listing (§3.7.1)', () => {
  it('answers the seed JSON shape for V1 and V2 when Accept is application/json', async () => {
    for (const query of [{ prefix: 'a/' }, { 'list-type': '2', prefix: 'a/' }] as Array<Record<string, string>>) {
      const res = await s3Request(ctx.server, { method: 'GET', bucket, query, headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const json = JSON.parse(res.text());
      expect(Object.keys(json).slice(0, 5)).toEqual(['Name', 'Prefix', 'MaxKeys', 'IsTruncated', 'Contents']);
      expect(json.Name).toBe(bucket);
      expect(json.Prefix).toBe('a/');
      expect(json.MaxKeys).toBe(1000);
      expect(json.IsTruncated).toBe(false);
      expect(json.Contents.map((c: { Key: string }) => c.Key)).toEqual(['a/1', 'a/2', 'a/b/c']);
      const first = json.Contents[0];
      expect(first.Size).toBe(3);
      expect(first.ETag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(first.StorageClass).toBe('STANDARD');
      expect(first.LastModified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    }
  });

  it('keeps Contents as [] when empty, adds CommonPrefixes, and stays XML for other Accept values', async () => {
    const res = await s3Request(ctx.server, {
      method: 'GET',
      bucket,
      query: { 'list-type': '2', delimiter: '/', prefix: 'photos/' },
      headers: { accept: 'application/json' },
    });
    const json = JSON.parse(res.text());
    expect(json.Contents).toEqual([]);
    expect(json.CommonPrefixes).toEqual([{ Prefix: 'photos/2024/' }, { Prefix: 'photos/2025/' }]);
    for (const accept of ['*/*', 'application/xml', 'text/html, application/json']) {
      const xml = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2' }, headers: { accept } });
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    }
  });

  it('answers errors in XML even when JSON was asked for', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', bucket: bucketName('missing'), headers: { accept: 'application/json' } });
    expectS3Error(res, 404, 'NoSuchBucket');
  });
});
