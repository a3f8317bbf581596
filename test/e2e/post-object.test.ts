// Browser POST uploads (issue 12; AWS *Browser-based uploads using POST*): signed policy,
// conditions, success_action_status / _redirect, ${filename}, anonymous forms, and errors.

import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName, randomBody } from './helpers/fixtures.js';
import { testAccount } from './helpers/accounts.js';
import { useTusk } from './helpers/lifecycle.js';
import { formBody, postForm, signPostPolicy } from './helpers/post-form.js';
import type { RawResponse } from './helpers/raw-http.js';
import { expectS3Error, xmlText } from './helpers/xml.js';
import { rawRequest } from './helpers/raw-http.js';
import { signingKey } from './helpers/sigv4.js';

const other = testAccount('other', '111122223333');
const ctx = useTusk({ extraAccounts: [other] });

async function newBucket(acl = 'private'): Promise<string> {
  const b = bucketName('post');
  expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, headers: { 'x-amz-acl': acl } })).status).toBe(200);
  return b;
}

/** fetch's Response as the RawResponse shape expectS3Error reads. */
async function raw(res: Response): Promise<RawResponse> {
  const body = Buffer.from(await res.arrayBuffer());
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  return { status: res.status, headers, body, text: () => body.toString('utf8') } as unknown as RawResponse;
}

async function stored(b: string, key: string): Promise<RawResponse> {
  return s3Request(ctx.server, { method: 'GET', bucket: b, key });
}

describe('signed POST forms', () => {
  it('201 with PostResponse, ${filename}, starts-with, content-length-range, metadata and Content-Type stored', async () => {
    const b = await newBucket();
    const body = randomBody(3000);
    const fields = signPostPolicy(ctx.server, [
      { bucket: b }, ['starts-with', '$key', 'uploads/'], ['content-length-range', 1, 10_000],
      ['eq', '$success_action_status', '201'], ['starts-with', '$Content-Type', 'image/'], { 'x-amz-meta-who': 'form' },
    ], [['key', 'uploads/${filename}'], ['success_action_status', '201'], ['Content-Type', 'image/png'], ['x-amz-meta-who', 'form']]);
    const res = await postForm(ctx.server, b, fields, { name: 'pic.png', body });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    const md5 = createHash('md5').update(body).digest('hex');
    expect(xmlText(text, 'Key')).toBe('uploads/pic.png');
    expect(xmlText(text, 'Bucket')).toBe(b);
    expect(xmlText(text, 'ETag')).toBe(`"${md5}"`);
    const got = await stored(b, 'uploads/pic.png');
    expect(got.body.equals(body)).toBe(true);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.headers['x-amz-meta-who']).toBe('form');
  });

  it('stores form fields with CR LF as they came, but answers them with spaces instead: no header of their own', async () => {
    const b = await newBucket();
    const who = 'form\r\nX-Injected: yes';
    const type = 'text/plain\r\nSet-Cookie: stolen=1';
    const fields = signPostPolicy(ctx.server, [{ bucket: b }, { key: 'crlf.txt' }, { 'x-amz-meta-who': who }, { 'Content-Type': type }], [
      ['key', 'crlf.txt'],
      ['x-amz-meta-who', who],
      ['Content-Type', type],
    ]);
    const res = await postForm(ctx.server, b, fields, { name: 'crlf.txt', body: Buffer.from('body') });
    expect(res.status, await res.text()).toBe(204);
    const got = await stored(b, 'crlf.txt');
    expect(got.status).toBe(200);
    expect(got.body.toString()).toBe('body');
    expect(got.headers['x-injected']).toBeUndefined();
    expect(got.headers['set-cookie']).toBeUndefined();
    expect(got.headers['x-amz-meta-who']).toBe('form  X-Injected: yes');
    expect(got.headers['content-type']).toBe('text/plain  Set-Cookie: stolen=1');
  });

  it('204 by default, 303 to success_action_redirect with bucket, key and etag', async () => {
    const b = await newBucket();
    const plain = await postForm(ctx.server, b, signPostPolicy(ctx.server, [{ bucket: b }, { key: 'a.txt' }], [['key', 'a.txt']]), { name: 'a.txt', body: Buffer.from('aaa') });
    expect(plain.status).toBe(204);
    expect(plain.headers.get('etag')).toBe(`"${createHash('md5').update('aaa').digest('hex')}"`);
    const redirect = await postForm(ctx.server, b, signPostPolicy(ctx.server, [{ bucket: b }, { key: 'b.txt' }, { success_action_redirect: 'https://app.example/done' }], [['key', 'b.txt'], ['success_action_redirect', 'https://app.example/done']]), { name: 'b.txt', body: Buffer.from('bbb') });
    expect(redirect.status).toBe(303);
    const loc = new URL(redirect.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe('https://app.example/done');
    expect(loc.searchParams.get('bucket')).toBe(b);
    expect(loc.searchParams.get('key')).toBe('b.txt');
    expect(loc.searchParams.get('etag')).toBe(`"${createHash('md5').update('bbb').digest('hex')}"`);
    expect((await stored(b, 'b.txt')).text()).toBe('bbb');
  });

  it('streams a large file into the store', async () => {
    const b = await newBucket();
    const body = randomBody(9 * 1024 * 1024 + 17);
    const res = await postForm(ctx.server, b, signPostPolicy(ctx.server, [{ bucket: b }, ['starts-with', '$key', '']], [['key', 'big.bin']]), { name: 'big.bin', body });
    expect(res.status).toBe(204);
    expect((await stored(b, 'big.bin')).body.equals(body)).toBe(true);
  });
});

describe('refused POST forms store nothing', () => {
  const cases: Array<[string, (b: string) => Array<[string, string]>, number, string]> = [
    ['a failed eq condition', (b) => signPostPolicy(ctx.server, [{ bucket: b }, { key: 'allowed' }], [['key', 'other']]), 403, 'AccessDenied'],
    ['a failed starts-with', (b) => signPostPolicy(ctx.server, [{ bucket: b }, ['starts-with', '$key', 'in/']], [['key', 'out/x']]), 403, 'AccessDenied'],
    ['a field no condition covers', (b) => signPostPolicy(ctx.server, [{ bucket: b }, { key: 'k' }], [['key', 'k'], ['x-amz-meta-extra', '1']]), 403, 'AccessDenied'],
    ['another bucket in the policy', (b) => signPostPolicy(ctx.server, [{ bucket: `${b}-x` }, { key: 'k' }], [['key', 'k']]), 403, 'AccessDenied'],
    ['an expired policy', (b) => signPostPolicy(ctx.server, [{ bucket: b }, { key: 'k' }], [['key', 'k']], { expiration: new Date(Date.now() - 1000) }), 403, 'AccessDenied'],
    ['a wrong signature', (b) => signPostPolicy(ctx.server, [{ bucket: b }, { key: 'k' }], [['key', 'k']], { tamper: true }), 403, 'SignatureDoesNotMatch'],
    ['a file over content-length-range', (b) => signPostPolicy(ctx.server, [{ bucket: b }, { key: 'k' }, ['content-length-range', 0, 10]], [['key', 'k']]), 400, 'EntityTooLarge'],
    ['a file under content-length-range', (b) => signPostPolicy(ctx.server, [{ bucket: b }, { key: 'k' }, ['content-length-range', 100, 1000]], [['key', 'k']]), 400, 'EntityTooSmall'],
    ['no key field', (b) => signPostPolicy(ctx.server, [{ bucket: b }], []), 400, 'InvalidArgument'],
    ['a signature made for another policy', () => [['key', 'k'], ['x-amz-algorithm', 'AWS4-HMAC-SHA256'], ['x-amz-credential', `${ctx.server.root.accessKeyId}/20260101/${ctx.server.region}/s3/aws4_request`], ['x-amz-date', '20260101T000000Z'], ['policy', Buffer.from('{nope').toString('base64')], ['x-amz-signature', '00']], 403, 'SignatureDoesNotMatch'],
    ['a signer without write access', (b) => signPostPolicy(ctx.server, [{ bucket: b }, { key: 'k' }], [['key', 'k']], { credentials: other }), 403, 'AccessDenied'],
    ['an unsigned form on a private bucket', () => [['key', 'k']], 403, 'AccessDenied'],
  ];
  it.each(cases)('%s', async (_name, fieldsOf, status, code) => {
    const b = await newBucket();
    const res = await raw(await postForm(ctx.server, b, fieldsOf(b), { name: 'f.bin', body: Buffer.from('0123456789abcdef') }));
    expectS3Error(res, status, code);
    expectS3Error(await stored(b, 'k'), 404, 'NoSuchKey');
  });

  it('a form whose every part has a filename (Python requests): the part named file is the upload, $key conditions see ${filename} filled in, 201 PostResponse without a namespace', async () => {
    const b = await newBucket();
    const fields = signPostPolicy(ctx.server, [{ bucket: b }, ['starts-with', '$key', 'foo'], ['eq', '$success_action_status', '201']], [
      ['key', '${filename}'],
      ['success_action_status', '201'],
    ]);
    const form = formBody(fields, { name: 'foo.txt', body: Buffer.from('bar') }, { filenames: true });
    const res = await fetch(`${ctx.server.endpoint}/${b}`, { method: 'POST', body: form.body, headers: { 'content-type': form.contentType } });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    expect(text).toMatch(/<PostResponse><Location>/);
    expect(xmlText(text, 'Key')).toBe('foo.txt');
    expect((await stored(b, 'foo.txt')).text()).toBe('bar');
  });

  it('tagging (XML), x-amz-checksum-sha256 (checked; no condition needed) and x-amz-server-side-encryption fields act as the request headers', async () => {
    const b = await newBucket();
    const body = Buffer.from('checked form body');
    const sha256 = createHash('sha256').update(body).digest('base64');
    const tagging = '<Tagging><TagSet><Tag><Key>b</Key><Value>2</Value></Tag><Tag><Key>a</Key><Value>1</Value></Tag></TagSet></Tagging>';
    const conditions = [{ bucket: b }, { key: 'tagged.txt' }, { tagging }, { 'x-amz-server-side-encryption': 'AES256' }];
    const form = (checksum: string) =>
      signPostPolicy(ctx.server, conditions, [['key', 'tagged.txt'], ['tagging', tagging], ['x-amz-server-side-encryption', 'AES256'], ['x-amz-checksum-sha256', checksum]]);
    const wrong = createHash('sha256').update('other').digest('base64');
    expectS3Error(await raw(await postForm(ctx.server, b, form(wrong), { name: 'f', body })), 400, 'BadDigest');
    expectS3Error(await stored(b, 'tagged.txt'), 404, 'NoSuchKey');
    const res = await postForm(ctx.server, b, form(sha256), { name: 'f', body });
    expect(res.status, await res.text()).toBe(204);
    const got = await stored(b, 'tagged.txt');
    expect(got.text()).toBe('checked form body');
    expect(got.headers['x-amz-server-side-encryption']).toBe('AES256');
    expect(got.headers['x-amz-tagging-count']).toBe('2');
    const tags = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'tagged.txt', query: 'tagging' });
    // returned in key order
    expect(tags.text()).toMatch(/<Key>a<\/Key><Value>1<\/Value><\/Tag><Tag><Key>b<\/Key>/);
  });

  it('an expiration that is not ISO 8601 UTC is InvalidPolicyDocument; a starts-with "" condition holds for a field the form lacks', async () => {
    const b = await newBucket();
    const policyOf = (expiration: string) => Buffer.from(JSON.stringify({ expiration, conditions: [{ bucket: b }, { key: 'p.txt' }, ['starts-with', '$x-amz-meta-absent', '']] })).toString('base64');
    const v2 = (policy: string): Array<[string, string]> => [
      ['key', 'p.txt'],
      ['AWSAccessKeyId', ctx.server.root.accessKeyId],
      ['policy', policy],
      ['signature', createHmac('sha1', ctx.server.root.secretAccessKey).update(policy).digest('base64')],
    ];
    const later = new Date(Date.now() + 600_000);
    const notIso = `${later.toISOString().slice(0, 10)} ${later.toISOString().slice(11, 19)}+00:00`;
    expectS3Error(await raw(await postForm(ctx.server, b, v2(policyOf(notIso)), { name: 'p', body: Buffer.from('x') })), 400, 'InvalidPolicyDocument');
    const ok = await postForm(ctx.server, b, v2(policyOf(later.toISOString())), { name: 'p', body: Buffer.from('x') });
    expect(ok.status, await ok.text()).toBe(204);
  });

  it('InvalidPolicyDocument for a policy that is not JSON (signed as sent)', async () => {
    const b = await newBucket();
    const fields = signPostPolicy(ctx.server, [], [['key', 'k']]);
    // re-sign a broken policy with the same key material
    const date = fields.find(([k]) => k === 'x-amz-date')![1];
    const broken = Buffer.from('{"expiration": 5').toString('base64');
    const sig = createHmac('sha256', signingKey(ctx.server.root.secretAccessKey, date.slice(0, 8), ctx.server.region)).update(broken).digest('hex');
    const patched = fields.map(([k, v]): [string, string] => [k, k === 'policy' ? broken : k === 'x-amz-signature' ? sig : v]);
    expectS3Error(await raw(await postForm(ctx.server, b, patched, { name: 'f', body: Buffer.from('x') })), 400, 'InvalidPolicyDocument');
  });

  it('IncorrectNumberOfFilesInPostRequest, PreconditionFailed (not multipart), MalformedPOSTRequest, MaxPostPreDataLengthExceededError', async () => {
    const b = await newBucket('public-read-write');
    expectS3Error(await raw(await postForm(ctx.server, b, [['key', 'k']])), 400, 'IncorrectNumberOfFilesInPostRequest');
    const notForm = await rawRequest({ port: ctx.server.port, method: 'POST', target: `/${b}`, headers: [['host', `127.0.0.1:${ctx.server.port}`], ['content-type', 'text/plain'], ['content-length', '3']], body: Buffer.from('abc') });
    expectS3Error(notForm, 412, 'PreconditionFailed');
    const broken = Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="key"\r\n\r\nk\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\ndata-without-a-closing-delimiter');
    const malformed = await rawRequest({ port: ctx.server.port, method: 'POST', target: `/${b}`, headers: [['host', `127.0.0.1:${ctx.server.port}`], ['content-type', 'multipart/form-data; boundary=XyZ'], ['content-length', String(broken.length)]], body: broken });
    expectS3Error(malformed, 400, 'MalformedPOSTRequest');
    expectS3Error(await raw(await postForm(ctx.server, b, [['key', 'k'], ['x-ignore-pad', 'p'.repeat(30_000)]], { name: 'f', body: Buffer.from('x') })), 400, 'MaxPostPreDataLengthExceededError');
    expectS3Error(await stored(b, 'k'), 404, 'NoSuchKey');
  });
});

describe('SigV2-signed forms', () => {
  it('AWSAccessKeyId + signature over the policy', async () => {
    const b = await newBucket();
    const policy = Buffer.from(JSON.stringify({ expiration: new Date(Date.now() + 60_000).toISOString(), conditions: [{ bucket: b }, { key: 'v2.txt' }] })).toString('base64');
    const signature = createHmac('sha1', ctx.server.root.secretAccessKey).update(policy).digest('base64');
    const fields: Array<[string, string]> = [['key', 'v2.txt'], ['AWSAccessKeyId', ctx.server.root.accessKeyId], ['policy', policy], ['signature', signature]];
    expect((await postForm(ctx.server, b, fields, { name: 'v2.txt', body: Buffer.from('v2 form') })).status).toBe(204);
    expect((await stored(b, 'v2.txt')).text()).toBe('v2 form');
    const bad = fields.map(([k, v]): [string, string] => [k, k === 'signature' ? createHmac('sha1', 'wrong').update(policy).digest('base64') : v]);
    expectS3Error(await raw(await postForm(ctx.server, b, bad, { name: 'x', body: Buffer.from('x') })), 403, 'SignatureDoesNotMatch');
  });
});

describe('unsigned forms', () => {
  it('upload into a public-read-write bucket', async () => {
    const b = await newBucket('public-read-write');
    const res = await postForm(ctx.server, b, [['key', 'anon/${filename}']], { name: 'C:\\Users\\me\\note.txt', body: Buffer.from('hi') });
    expect(res.status).toBe(204);
    expect((await stored(b, 'anon/note.txt')).text()).toBe('hi');
  });
});
