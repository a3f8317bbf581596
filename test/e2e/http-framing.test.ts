// Request framing HTTP does not allow (issue 8, defect 6; RFC 9112 §6): uWS decoded any
// Transfer-Encoding as chunked and answered an empty Content-Length with 411. Each gets an S3
// error before any body byte is used, the connection closes, and nothing is stored.

import { beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { rawRequest } from './helpers/raw-http.js';
import { objectPath, signHeaders, UNSIGNED_PAYLOAD } from './helpers/sigv4.js';
import { expectS3Error, xmlText } from './helpers/xml.js';

const ctx = useTusk();
const bucket = bucketName('framing');

beforeAll(async () => {
  expect((await s3Request(ctx.server, { method: 'PUT', bucket })).status).toBe(200);
});

/** A signed PUT of `key` whose framing headers are `framing`, with `body` sent as it is. */
function put(key: string, framing: Array<[string, string]>, body: string) {
  const path = objectPath(bucket, key);
  const signed = signHeaders({
    method: 'PUT',
    path,
    headers: [['host', `127.0.0.1:${ctx.server.port}`], ...framing],
    credentials: ctx.server.root,
    payloadHash: UNSIGNED_PAYLOAD,
  });
  return rawRequest({ port: ctx.server.port, method: 'PUT', target: path, headers: signed.headers, body, timeoutMs: 5_000 });
}

async function absent(key: string): Promise<void> {
  expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key })).status, `${key} must not be stored`).toBe(404);
}

describe('Transfer-Encoding other than chunked', () => {
  it.each(['gzip, chunked', 'deflate,chunked'])('501 NotImplemented naming the header for %s', async (te) => {
    const key = `te-${te.replace(/\W+/g, '-')}`;
    const res = await put(key, [['transfer-encoding', te]], '3\r\nabc\r\n0\r\n\r\n');
    const err = expectS3Error(res, 501, 'NotImplemented', 'PUT');
    expect(xmlText(err.xml, 'Header')).toBe('Transfer-Encoding');
    expect(res.headers['connection']).toBe('close');
    await absent(key);
  });

  it.each(['gzip', 'chunked, gzip', 'chunked;ext=1', ',chunked', ''])('400 when malformed or not ending in chunked: "%s"', async (te) => {
    const key = `te-bad-${te.replace(/\W+/g, '-')}`;
    const res = await put(key, [['transfer-encoding', te]], '3\r\nabc\r\n0\r\n\r\n');
    const err = expectS3Error(res, 400, 'InvalidArgument', 'PUT');
    expect(xmlText(err.xml, 'ArgumentName')).toBe('Transfer-Encoding');
    expect(res.headers['connection']).toBe('close');
    await absent(key);
  });
});

describe('Content-Length', () => {
  it('400 for an empty Content-Length (S3 answers 400, not 411)', async () => {
    const res = await put('cl-empty', [['content-length', '']], '');
    const err = expectS3Error(res, 400, 'InvalidArgument', 'PUT');
    expect(xmlText(err.xml, 'ArgumentName')).toBe('Content-Length');
    expect(res.headers['connection']).toBe('close');
    await absent('cl-empty');
  });
});

describe('operator paths', () => {
  it('a refused framing on /tusk/admin/ gets the S3 refusal before the admin API reads a byte', async () => {
    const path = '/tusk/admin/v1/accounts';
    const signed = signHeaders({
      method: 'POST',
      path,
      headers: [['host', `127.0.0.1:${ctx.server.port}`], ['transfer-encoding', 'identity']],
      credentials: ctx.server.root,
      payloadHash: UNSIGNED_PAYLOAD,
    });
    const res = await rawRequest({ port: ctx.server.port, method: 'POST', target: path, headers: signed.headers, body: '0\r\n\r\n', timeoutMs: 5_000 });
    const err = expectS3Error(res, 400, 'InvalidArgument', 'POST');
    expect(xmlText(err.xml, 'ArgumentName')).toBe('Transfer-Encoding');
    expect(res.headers['connection']).toBe('close');
  });
});
