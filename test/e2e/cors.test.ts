// CORS: Put/Get/DeleteBucketCors, the OPTIONS preflight and CORS headers on actual answers,
// errors included (s3.md §3.11).

import { DeleteBucketCorsCommand, GetBucketCorsCommand, PutBucketCorsCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName, md5Hex } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { expectS3Error, xmlAll } from './helpers/xml.js';

const ctx = useTusk();
const APP = 'https://app.example';

async function corsBucket(): Promise<string> {
  const b = bucketName('cors');
  expect((await s3Request(ctx.server, { method: 'PUT', bucket: b })).status).toBe(200);
  await s3Client(ctx.server).send(new PutBucketCorsCommand({
    Bucket: b,
    CORSConfiguration: {
      CORSRules: [
        { ID: 'app', AllowedOrigins: [APP, 'https://*.app.example'], AllowedMethods: ['GET', 'PUT', 'HEAD'], AllowedHeaders: ['content-type', 'x-amz-*'], ExposeHeaders: ['ETag'], MaxAgeSeconds: 600 },
        { AllowedOrigins: ['*'], AllowedMethods: ['GET'] },
      ],
    },
  }));
  return b;
}

const preflight = (bucket: string, headers: Record<string, string>, key = 'k') =>
  s3Request(ctx.server, { method: 'OPTIONS', bucket, key, headers, credentials: null });

describe('CORS configuration', () => {
  it('round-trips through the SDK and is deleted', async () => {
    const b = await corsBucket();
    const got = await s3Client(ctx.server).send(new GetBucketCorsCommand({ Bucket: b }));
    expect(got.CORSRules?.[0]).toMatchObject({ ID: 'app', AllowedOrigins: [APP, 'https://*.app.example'], AllowedMethods: ['GET', 'PUT', 'HEAD'], ExposeHeaders: ['ETag'], MaxAgeSeconds: 600 });
    expect(got.CORSRules?.[1]?.AllowedOrigins).toEqual(['*']);
    await s3Client(ctx.server).send(new DeleteBucketCorsCommand({ Bucket: b }));
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'cors' }), 404, 'NoSuchCORSConfiguration');
    expectS3Error(await preflight(b, { origin: APP, 'access-control-request-method': 'GET' }), 403, 'AccessForbidden');
  });

  it('rejects bad configurations and a missing or wrong Content-MD5', async () => {
    const b = bucketName('corsbad');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b })).status).toBe(200);
    const put = (xml: string, md5 = Buffer.from(md5Hex(xml), 'hex').toString('base64')) =>
      s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'cors', body: xml, headers: { 'content-md5': md5 } });
    const rule = (inner: string) => `<CORSConfiguration><CORSRule>${inner}</CORSRule></CORSConfiguration>`;
    expectS3Error(await put(rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod>')), 400, 'InvalidRequest');
    expectS3Error(await put(rule('<AllowedMethod>GET</AllowedMethod>')), 400, 'MalformedXML');
    expectS3Error(await put(rule('<AllowedOrigin>*.*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>')), 400, 'InvalidRequest');
    expectS3Error(await put('<CORSConfiguration>'), 400, 'MalformedXML');
    const good = rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>');
    expectS3Error(await put(good, Buffer.alloc(16).toString('base64')), 400, 'BadDigest');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'cors', body: good }), 400, 'InvalidRequest');
    expect((await put(good)).status).toBe(200);
  });
});

describe('preflight', () => {
  it('answers the first matching rule with its headers', async () => {
    const b = await corsBucket();
    const res = await preflight(b, { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'Content-Type, X-Amz-Meta-A' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-methods']).toBe('GET, PUT, HEAD');
    expect(res.headers['access-control-allow-headers']).toBe('content-type, x-amz-meta-a');
    expect(res.headers['access-control-expose-headers']).toBe('ETag');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['vary']).toBe('Origin, Access-Control-Request-Headers, Access-Control-Request-Method');
    const sub = await preflight(b, { origin: 'https://x.app.example', 'access-control-request-method': 'HEAD' });
    expect(sub.headers['access-control-allow-origin']).toBe('https://x.app.example');
    const anyone = await preflight(b, { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' });
    expect(anyone.status).toBe(200);
    expect(anyone.headers['access-control-allow-origin']).toBe('*');
    expect(anyone.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('403 when no rule matches origin, method or headers; 400 without Origin; 404 without the bucket', async () => {
    const b = await corsBucket();
    expectS3Error(await preflight(b, { origin: 'https://elsewhere.example', 'access-control-request-method': 'PUT' }), 403, 'AccessForbidden');
    expectS3Error(await preflight(b, { origin: APP, 'access-control-request-method': 'DELETE' }), 403, 'AccessForbidden');
    expectS3Error(await preflight(b, { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization-x' }), 403, 'AccessForbidden');
    expectS3Error(await preflight(b, { 'access-control-request-method': 'PUT' }), 400, 'BadRequest');
    expectS3Error(await preflight(b, { origin: APP }), 400, 'BadRequest');
    expectS3Error(await preflight(bucketName('nope'), { origin: APP, 'access-control-request-method': 'GET' }), 404, 'NoSuchBucket');
  });
});

describe('actual requests', () => {
  it('carry the CORS headers on success and on errors; a non-matching origin gets only Vary', async () => {
    const b = await corsBucket();
    const put = await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'k', body: 'v', headers: { origin: APP } });
    expect(put.status).toBe(200);
    expect(put.headers['access-control-allow-origin']).toBe(APP);
    expect(put.headers['access-control-expose-headers']).toBe('ETag');
    expect(put.headers['access-control-allow-headers']).toBeUndefined();
    // requested headers the rule allows are echoed on an actual request too, as S3 does; others are left out
    const asking = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', headers: { origin: APP, 'access-control-request-headers': 'Content-Type, x-amz-meta-a, x-other' } });
    expect(asking.status).toBe(200);
    expect(asking.headers['access-control-allow-headers']).toBe('content-type, x-amz-meta-a');
    const missing = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'missing', headers: { origin: APP } });
    expectS3Error(missing, 404, 'NoSuchKey');
    expect(missing.headers['access-control-allow-origin']).toBe(APP);
    const denied = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', headers: { origin: APP }, credentials: null });
    expectS3Error(denied, 403, 'AccessDenied');
    expect(denied.headers['access-control-allow-origin']).toBe(APP);
    const del = await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'k', headers: { origin: APP } });
    expect(del.status).toBe(204);
    expect(del.headers['access-control-allow-origin']).toBeUndefined();
    expect(del.headers['vary']).toBe('Origin, Access-Control-Request-Headers, Access-Control-Request-Method');
    const plain = await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' } });
    expect(plain.headers['vary']).toBeUndefined();
    expect(xmlAll(plain.text(), 'Key')).toEqual([]);
  });
});
