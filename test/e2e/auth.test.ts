// SigV4 header authentication failures through raw signed requests: s3.md §2.1–2.6, §2.10.
// Each case also checks that nothing was stored and that the server keeps serving.

import { beforeAll, describe, expect, it } from 'vitest';
import { s3Request, setHeader, type S3RequestOptions } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { randomCredentials } from './helpers/server.js';
import type { HeaderList } from './helpers/sigv4.js';
import { expectS3Error, xmlText } from './helpers/xml.js';

const ctx = useTusk();
const bucket = bucketName('auth');

function replaceAuth(fn: (auth: string) => string) {
  return (headers: HeaderList): HeaderList => {
    const auth = headers.find(([n]) => n === 'authorization')![1];
    return setHeader(headers, 'authorization', fn(auth));
  };
}

/** PUT that must fail; afterwards the key must not exist and a normal request must succeed. */
async function rejectedPut(key: string, opts: Partial<S3RequestOptions>) {
  const res = await s3Request(ctx.server, { bucket, key, body: 'payload', ...opts, method: 'PUT' });
  const check = await s3Request(ctx.server, { method: 'HEAD', bucket, key });
  expect(check.status, `object ${key} must not be stored`).toBe(404);
  return res;
}

beforeAll(async () => {
  expect((await s3Request(ctx.server, { method: 'PUT', bucket })).status).toBe(200);
});

describe('header authentication', () => {
  it('accepts a correctly signed request (sanity)', async () => {
    const res = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'ok', body: 'x' });
    expect(res.status).toBe(200);
  });

  it('SignatureDoesNotMatch for a wrong secret, with debugging elements (§2.3)', async () => {
    const res = await rejectedPut('wrong-secret', {
      credentials: { accessKeyId: ctx.server.root.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    const err = expectS3Error(res, 403, 'SignatureDoesNotMatch');
    expect(xmlText(err.xml, 'AWSAccessKeyId')).toBe(ctx.server.root.accessKeyId);
    expect(xmlText(err.xml, 'StringToSign')).toMatch(/^AWS4-HMAC-SHA256\n\d{8}T\d{6}Z\n\d{8}\/us-east-1\/s3\/aws4_request\n[0-9a-f]{64}$/);
    expect(xmlText(err.xml, 'CanonicalRequest')).toContain(`/${bucket}/wrong-secret`);
  });

  it('SignatureDoesNotMatch when a signed header is tampered with after signing', async () => {
    const res = await rejectedPut('tampered', {
      headers: { 'x-amz-meta-a': 'original' },
      mutate: (h) => setHeader(h, 'x-amz-meta-a', 'changed'),
    });
    expectS3Error(res, 403, 'SignatureDoesNotMatch');
  });

  it('SignatureDoesNotMatch for a forged signature value', async () => {
    const bad = await s3Request(ctx.server, {
      method: 'GET',
      bucket,
      key: 'ok',
      mutate: replaceAuth((a) => a.replace(/Signature=[0-9a-f]{64}/, 'Signature=' + '0'.repeat(64))),
    });
    expectS3Error(bad, 403, 'SignatureDoesNotMatch');
  });

  it('InvalidAccessKeyId for an unknown key', async () => {
    const creds = randomCredentials('NOPE');
    const err = expectS3Error(await rejectedPut('unknown-key', { credentials: creds }), 403, 'InvalidAccessKeyId');
    expect(xmlText(err.xml, 'AWSAccessKeyId')).toBe(creds.accessKeyId);
  });

  it.each([
    ['a Credential with 4 parts', (a: string) => a.replace(/\/s3\/aws4_request/, '/s3')],
    ['a missing SignedHeaders', (a: string) => a.replace(/, SignedHeaders=[^,]+/, '')],
    ['a wrong service', (a: string) => a.replace('/s3/aws4_request', '/ec2/aws4_request')],
    ['a wrong terminator', (a: string) => a.replace('/aws4_request', '/aws5_request')],
    ['a credential date that differs from x-amz-date', (a: string) => a.replace(/Credential=([^/]+)\/\d{8}/, 'Credential=$1/20000101')],
    ['garbage after the scheme', () => 'AWS4-HMAC-SHA256 garbage'],
  ])('AuthorizationHeaderMalformed for %s', async (_label, fn) => {
    expectS3Error(await rejectedPut('malformed', { mutate: replaceAuth(fn) }), 400, 'AuthorizationHeaderMalformed');
  });

  it('AuthorizationHeaderMalformed with Region and x-amz-bucket-region for a wrong region', async () => {
    const res = await rejectedPut('wrong-region', { region: 'eu-central-1' });
    const err = expectS3Error(res, 400, 'AuthorizationHeaderMalformed');
    expect(xmlText(err.xml, 'Region')).toBe('us-east-1');
    expect(res.headers['x-amz-bucket-region']).toBe('us-east-1');
  });

  it('RequestTimeTooSkewed for a request 20 minutes old', async () => {
    const res = await rejectedPut('skewed', { date: new Date(Date.now() - 20 * 60_000) });
    const err = expectS3Error(res, 403, 'RequestTimeTooSkewed');
    expect(xmlText(err.xml, 'MaxAllowedSkewMilliseconds')).toBe('900000');
  });

  it('AccessDenied without any usable date', async () => {
    const res = await rejectedPut('no-date', { mutate: (h) => setHeader(h, 'x-amz-date', undefined) });
    expectS3Error(res, 403, 'AccessDenied');
  });

  it('AccessDenied with HeadersNotSigned for an unsigned x-amz-* header (§2.4)', async () => {
    const res = await rejectedPut('unsigned-header', { mutate: (h) => [...h, ['x-amz-acl', 'public-read']] });
    const err = expectS3Error(res, 403, 'AccessDenied');
    expect(xmlText(err.xml, 'HeadersNotSigned')).toContain('x-amz-acl');
  });

  it('AccessDenied when host is not signed', async () => {
    const res = await rejectedPut('host-unsigned', { signedHeaders: ['x-amz-content-sha256', 'x-amz-date'] });
    const err = expectS3Error(res, 403, 'AccessDenied');
    expect(xmlText(err.xml, 'HeadersNotSigned')).toContain('host');
  });

  it('InvalidRequest without x-amz-content-sha256', async () => {
    expectS3Error(await rejectedPut('no-sha', { omitContentSha256: true }), 400, 'InvalidRequest');
  });

  it('InvalidArgument for a malformed x-amz-content-sha256 value', async () => {
    expectS3Error(await rejectedPut('bad-sha', { payloadHash: 'not-a-hash' }), 400, 'InvalidArgument');
  });

  it('InvalidRequest for a streaming x-amz-content-sha256 on an operation whose body is never streamed', async () => {
    const streaming = { payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' };
    const list = expectS3Error(await s3Request(ctx.server, { method: 'GET', ...streaming }), 400, 'InvalidRequest');
    expect(list.message).toBe('The value of x-amz-content-sha256 header is invalid.');
    const bucket = bucketName('streamless');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket, payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' }), 400, 'InvalidRequest');
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket })).status).toBe(404);
  });

  it('XAmzContentSHA256Mismatch when the body does not match its declared hash', async () => {
    const res = await rejectedPut('sha-mismatch', { payloadHash: 'a'.repeat(64) });
    const err = expectS3Error(res, 400, 'XAmzContentSHA256Mismatch');
    expect(xmlText(err.xml, 'ClientComputedContentSHA256')).toBe('a'.repeat(64));
  });

  it('SigV2 with a bad signature is SignatureDoesNotMatch; InvalidRequest for SigV4a and SigV4a streaming', async () => {
    const v2 = await rejectedPut('sigv2', { credentials: null, headers: { date: new Date().toUTCString(), authorization: `AWS ${ctx.server.root.accessKeyId}:c2lnbmF0dXJl` } });
    expectS3Error(v2, 403, 'SignatureDoesNotMatch');
    const v4a = await rejectedPut('sigv4a', { mutate: replaceAuth((a) => a.replace('AWS4-HMAC-SHA256', 'AWS4-ECDSA-P256-SHA256')) });
    expectS3Error(v4a, 400, 'InvalidRequest');
    const v2query = await s3Request(ctx.server, {
      method: 'GET',
      bucket,
      key: 'ok',
      credentials: null,
      query: { AWSAccessKeyId: ctx.server.root.accessKeyId, Expires: '9999999999', Signature: 'abc' },
    });
    expectS3Error(v2query, 403, 'SignatureDoesNotMatch');
    const ecdsaStream = await rejectedPut('v4a-stream', { payloadHash: 'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD', headers: { 'x-amz-decoded-content-length': '7' } });
    expectS3Error(ecdsaStream, 400, 'InvalidRequest');
  });

  it('InvalidArgument for an unknown Authorization scheme and for two auth mechanisms', async () => {
    const scheme = await rejectedPut('bearer', { credentials: null, headers: { authorization: 'Bearer abc' } });
    expectS3Error(scheme, 400, 'InvalidArgument');
    const both = await s3Request(ctx.server, {
      method: 'GET',
      bucket,
      key: 'ok',
      query: { 'X-Amz-Algorithm': 'AWS4-HMAC-SHA256' },
    });
    expectS3Error(both, 400, 'InvalidArgument');
  });

  it('InvalidToken for a session token', async () => {
    expectS3Error(await rejectedPut('token', { headers: { 'x-amz-security-token': 'FQoGZXIvYXdzE' } }), 400, 'InvalidToken');
  });

  it('keeps serving after all of the above', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', bucket, key: 'ok' });
    expect(res.status).toBe(200);
    expect(res.text()).toBe('x');
    expect(ctx.server.alive()).toBe(true);
  });
});
