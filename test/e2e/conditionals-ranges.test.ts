// Range and conditional reads on GetObject / HeadObject: s3.md §3.0.5, §3.0.6.

import { GetObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { expectS3Error, xmlText } from './helpers/xml.js';

const ctx = useTusk();
const bucket = bucketName('cond');
const CONTENT = 'abcdefghij';
let etag = '';
let lastModified = new Date(0);

const get = (headers: Record<string, string>, method = 'GET', key = 'r') => s3Request(ctx.server, { method, bucket, key, headers });
const httpDate = (d: Date) => d.toUTCString();

beforeAll(async () => {
  await s3Request(ctx.server, { method: 'PUT', bucket });
  const put = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'r', body: CONTENT });
  expect(put.status).toBe(200);
  etag = put.headers['etag']!;
  await s3Request(ctx.server, { method: 'PUT', bucket, key: 'empty', body: '' });
  const head = await get({}, 'HEAD');
  lastModified = new Date(head.headers['last-modified']!);
  // make sure "now" is past Last-Modified so dates after it are not in the future (§3.0.5)
  await new Promise((r) => setTimeout(r, 1100));
});

describe('Range (§3.0.6)', () => {
  it.each([
    ['bytes=0-3', 'abcd', '0-3'],
    ['bytes=5-', 'fghij', '5-9'],
    ['bytes=-3', 'hij', '7-9'],
    ['bytes=-20', CONTENT, '0-9'],
    ['bytes=8-100', 'ij', '8-9'],
    ['bytes=9-9', 'j', '9-9'],
  ])('%s → 206 %s', async (range, body, span) => {
    const res = await get({ range });
    expect(res.status).toBe(206);
    expect(res.text()).toBe(body);
    expect(res.headers['content-range']).toBe(`bytes ${span}/10`);
    expect(res.headers['content-length']).toBe(String(body.length));
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['etag']).toBe(etag);
  });

  it('HEAD with a range answers 206 headers and no body', async () => {
    const res = await get({ range: 'bytes=2-5' }, 'HEAD');
    expect(res.status).toBe(206);
    expect(res.headers['content-length']).toBe('4');
    expect(res.headers['content-range']).toBe('bytes 2-5/10');
    expect(res.body.length).toBe(0);
  });

  it.each([
    ['r', 'bytes=10-12', 10],
    ['r', 'bytes=-0', 10],
    ['empty', 'bytes=0-0', 0],
    ['empty', 'bytes=-5', 0],
  ])('%s %s → 416 InvalidRange with Content-Range bytes */size', async (key, range, size) => {
    const res = await get({ range }, 'GET', key);
    const err = expectS3Error(res, 416, 'InvalidRange');
    expect(res.headers['content-range']).toBe(`bytes */${size}`);
    expect(xmlText(err.xml, 'ActualObjectSize')).toBe(String(size));
  });

  it.each(['bytes=5-2', 'bytes=x', 'items=0-1', 'bytes=0-1,5-6'])('ignores the unusable range %s (200, whole object)', async (range) => {
    const res = await get({ range });
    expect(res.status).toBe(200);
    expect(res.text()).toBe(CONTENT);
    expect(res.headers['content-range']).toBeUndefined();
  });

  it('works through the SDK', async () => {
    const out = await s3Client(ctx.server).send(new GetObjectCommand({ Bucket: bucket, Key: 'r', Range: 'bytes=-4' }));
    expect(out.ContentRange).toBe('bytes 6-9/10');
    expect(await out.Body!.transformToString()).toBe('ghij');
  });

  it('omits stored checksums on ranged reads even with checksum mode', async () => {
    const res = await get({ range: 'bytes=0-1', 'x-amz-checksum-mode': 'ENABLED' });
    expect(res.status).toBe(206);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('x-amz-checksum-'))).toEqual([]);
    const whole = await get({ 'x-amz-checksum-mode': 'ENABLED' });
    expect(whole.headers['x-amz-checksum-type']).toBe('FULL_OBJECT');
    // no checksum sent on PUT → the default CRC64NVME is stored (§3.0.2)
    expect(whole.headers['x-amz-checksum-crc64nvme']).toMatch(/^[A-Za-z0-9+/]{11}=$/);
  });
});

describe('conditional reads (§3.0.5)', () => {
  const past = () => httpDate(new Date(lastModified.getTime() - 60_000));
  const exact = () => httpDate(lastModified);

  it('If-Match: matching ETag or * → 200, other → 412', async () => {
    expect((await get({ 'if-match': etag })).status).toBe(200);
    expect((await get({ 'if-match': etag.replace(/"/g, '') })).status).toBe(200);
    expect((await get({ 'if-match': '*' })).status).toBe(200);
    expect((await get({ 'if-match': `"0000", ${etag}` })).status).toBe(200);
    const err = expectS3Error(await get({ 'if-match': '"00000000000000000000000000000000"' }), 412, 'PreconditionFailed');
    expect(xmlText(err.xml, 'Condition')).toBe('If-Match');
  });

  it('If-None-Match: matching ETag → 304 without body, other → 200', async () => {
    const res = await get({ 'if-none-match': etag });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
    expect(res.headers['etag']).toBe(etag);
    expect(res.headers['last-modified']).toBeTruthy();
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['x-amz-request-id']).toMatch(/^[0-9A-F]{16}$/);
    expect((await get({ 'if-none-match': '"other"' })).status).toBe(200);
    expect((await get({ 'if-none-match': '*' })).status).toBe(304);
  });

  it('If-Modified-Since: not modified since Last-Modified → 304; modified since an older date → 200', async () => {
    expect((await get({ 'if-modified-since': exact() })).status).toBe(304);
    expect((await get({ 'if-modified-since': past() })).status).toBe(200);
    expect((await get({ 'if-modified-since': 'not a date' })).status).toBe(200);
  });

  it('If-Unmodified-Since: older date → 412; Last-Modified itself → 200', async () => {
    const err = expectS3Error(await get({ 'if-unmodified-since': past() }), 412, 'PreconditionFailed');
    expect(xmlText(err.xml, 'Condition')).toBe('If-Unmodified-Since');
    expect((await get({ 'if-unmodified-since': exact() })).status).toBe(200);
  });

  it('follows S3 precedence', async () => {
    // If-Match true wins over a false If-Unmodified-Since
    expect((await get({ 'if-match': etag, 'if-unmodified-since': past() })).status).toBe(200);
    // If-None-Match false wins over a true If-Modified-Since → 304
    expect((await get({ 'if-none-match': etag, 'if-modified-since': past() })).status).toBe(304);
    // If-None-Match true skips a false If-Modified-Since → 200
    expect((await get({ 'if-none-match': '"other"', 'if-modified-since': exact() })).status).toBe(200);
    // a failed If-Match is checked before If-None-Match
    expect((await get({ 'if-match': '"nope"', 'if-none-match': etag })).status).toBe(412);
    // conditionals run before Range
    expect((await get({ 'if-none-match': etag, range: 'bytes=0-1' })).status).toBe(304);
    expect((await get({ 'if-match': '"nope"', range: 'bytes=50-60' })).status).toBe(412);
  });

  it('HEAD answers 304 / 412 without a body', async () => {
    expect((await get({ 'if-none-match': etag }, 'HEAD')).status).toBe(304);
    const failed = await get({ 'if-match': '"nope"' }, 'HEAD');
    expect(failed.status).toBe(412);
    expect(failed.body.length).toBe(0);
  });

  it('a missing key answers 404 whatever the conditionals say', async () => {
    expectS3Error(await get({ 'if-match': etag }, 'GET', 'missing'), 404, 'NoSuchKey');
    expectS3Error(await get({ 'if-none-match': '*' }, 'GET', 'missing'), 404, 'NoSuchKey');
  });
});

describe('conditional writes (§3.0.5)', () => {
  it('If-None-Match: * creates only when absent; If-Match needs the current ETag', async () => {
    const fresh = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'cw', body: 'one', headers: { 'if-none-match': '*' } });
    expect(fresh.status).toBe(200);
    const again = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'cw', body: 'two', headers: { 'if-none-match': '*' } });
    expectS3Error(again, 412, 'PreconditionFailed');
    const wrong = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'cw', body: 'two', headers: { 'if-match': '"nope"' } });
    expectS3Error(wrong, 412, 'PreconditionFailed');
    const right = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'cw', body: 'three', headers: { 'if-match': fresh.headers['etag']! } });
    expect(right.status).toBe(200);
    expect((await get({}, 'GET', 'cw')).text()).toBe('three');
    const absent = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'cw-absent', body: 'x', headers: { 'if-match': '"abc"' } });
    expectS3Error(absent, 404, 'NoSuchKey');
  });
});
