// authenticate() against requests signed by @smithy/signature-v4 (aws-sdk-js v3's signer):
// nasty keys, awkward queries and headers, presigned URLs, and tampering of every signed part.

import { describe, expect, it } from 'vitest';
import type { RequestHead } from '../../../src/http/request-head.js';
import { authenticate } from '../../../src/s3/sigv4/authenticate.js';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { ctx, s3ErrorOf } from './helpers.js';
import { NASTY_KEYS } from './nasty-keys.js';
import { s3Path, smithyPresign, smithySign } from './smithy.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const DATE = new Date(NOW);

function reject(h: RequestHead, now = NOW): S3Error {
  return s3ErrorOf(() => authenticate(h, ctx(now)));
}

function withHeader(h: RequestHead, name: string, value: string | undefined): RequestHead {
  const list = h.headerList.filter(([n]) => n !== name);
  if (value !== undefined) list.push([name, value]);
  return { ...h, headerList: list, headers: Object.fromEntries(list) };
}

describe('header auth: smithy-signed requests are accepted', () => {
  it.each(NASTY_KEYS)('object key %j, GET/PUT/DELETE/HEAD', async (key) => {
    for (const method of ['GET', 'PUT', 'DELETE', 'HEAD']) {
      const body = method === 'PUT' ? 'hello' : undefined;
      const h = await smithySign({ method, path: s3Path('bucket', key), date: DATE, body });
      const r = authenticate(h, ctx(NOW));
      expect(r.kind).toBe('signed');
      if (r.kind === 'signed' && method === 'PUT') expect(r.payload.kind).toBe('sha256');
    }
  });

  it('virtual-hosted style with a port in Host', async () => {
    const h = await smithySign({ method: 'GET', path: '/k%20x', host: 'bucket.s3.example.com:8443', date: DATE });
    expect(authenticate(h, ctx(NOW)).kind).toBe('signed');
  });

  it('awkward query strings', async () => {
    const queries: Array<Record<string, string | string[]>> = [
      { 'list-type': '2', prefix: 'a b+c/%ü😀', delimiter: '/', 'encoding-type': 'url', 'max-keys': '5' },
      { 'continuation-token': 'ab+/==', 'start-after': 'x&y=z' },
      { uploads: '' },
      { versionId: 'null', 'x-id': 'GetObject', 'response-content-disposition': 'attachment; filename="a b.txt"' },
      { tag: ['z', 'a', 'm'] },
      { 'UPPER-case': 'Value', lower: 'v', '~tilde': '~' },
    ];
    for (const query of queries) {
      const h = await smithySign({ method: 'GET', path: '/bucket', query, date: DATE });
      expect(authenticate(h, ctx(NOW)).kind, JSON.stringify(query)).toBe('signed');
    }
  });

  it('headers with odd spacing, metadata and md5', async () => {
    const h = await smithySign({
      method: 'PUT',
      path: s3Path('bucket', 'k'),
      date: DATE,
      body: 'x',
      headers: {
        'x-amz-meta-spaced': '  a   b  c ',
        'x-amz-meta-unicode': 'ü',
        'content-md5': 'nTRmjA/GUmfHe3Tn0L4IjA==',
        'content-type': 'text/plain',
        'x-amz-acl': 'public-read',
      },
    });
    expect(authenticate(h, ctx(NOW)).kind).toBe('signed');
  });

  it('other regions with acceptAnyRegion', async () => {
    const h = await smithySign({ method: 'GET', path: '/bucket', date: DATE, region: 'eu-west-3' });
    expect(authenticate(h, ctx(NOW, { acceptAnyRegion: true })).kind).toBe('signed');
    const e = reject(h);
    expect([e.status, e.code]).toEqual([400, 'AuthorizationHeaderMalformed']);
  });
});

describe('header auth: tampering is rejected', () => {
  async function base(): Promise<RequestHead> {
    return smithySign({
      method: 'PUT',
      path: s3Path('bucket', 'some key+x'),
      query: { partNumber: '1', uploadId: 'abc' },
      date: DATE,
      body: 'payload',
      headers: { 'x-amz-meta-a': 'one', 'content-type': 'text/plain' },
    });
  }

  it('accepts the untouched request', async () => {
    expect(authenticate(await base(), ctx(NOW)).kind).toBe('signed');
  });

  it.each([
    ['method', (h: RequestHead) => ({ ...h, method: 'POST' })],
    ['path', (h: RequestHead) => ({ ...h, rawPath: h.rawPath.replace('key', 'kez') })],
    ['space sent as + in the path', (h: RequestHead) => ({ ...h, rawPath: h.rawPath.replace('%20', '+') })],
    ['query value', (h: RequestHead) => ({ ...h, rawQuery: h.rawQuery.replace('partNumber=1', 'partNumber=2') })],
    ['extra query parameter', (h: RequestHead) => ({ ...h, rawQuery: `${h.rawQuery}&acl` })],
    ['removed query parameter', (h: RequestHead) => ({ ...h, rawQuery: h.rawQuery.replace(/&?uploadId=abc/, '') })],
    ['signed header value', (h: RequestHead) => withHeader(h, 'x-amz-meta-a', 'two')],
    ['payload hash', (h: RequestHead) => withHeader(h, 'x-amz-content-sha256', 'UNSIGNED-PAYLOAD')],
    ['host', (h: RequestHead) => withHeader(h, 'host', 'evil:9000')],
    ['duplicated signed header', (h: RequestHead) => ({ ...h, headerList: [...h.headerList, ['x-amz-meta-a', 'x'] as const] })],
  ])('%s → SignatureDoesNotMatch', async (_, mutate) => {
    const e = reject(mutate(await base()));
    expect([e.status, e.code]).toEqual([403, 'SignatureDoesNotMatch']);
  });

  it('a removed signed header → SignatureDoesNotMatch', async () => {
    const h = await base();
    expect(h.headerList.find(([n]) => n === 'authorization')![1]).toContain('x-amz-meta-a');
    const e = reject(withHeader(h, 'x-amz-meta-a', undefined));
    expect([e.status, e.code, e.extras.SignatureProvided]).toEqual([403, 'SignatureDoesNotMatch', expect.any(String)]);
  });

  it('%2B and a literal + in the path name the same key (s3.md §1.2) and both verify', async () => {
    const h = await base();
    expect(h.rawPath).toContain('%2B');
    expect(authenticate({ ...h, rawPath: h.rawPath.replace('%2B', '+') }, ctx(NOW)).kind).toBe('signed');
  });

  it('an added unsigned x-amz-* header → AccessDenied HeadersNotSigned', async () => {
    const e = reject(withHeader(await base(), 'x-amz-acl', 'public-read'));
    expect([e.status, e.code, e.extras.HeadersNotSigned]).toEqual([403, 'AccessDenied', 'x-amz-acl']);
  });

  it('wrong secret → SignatureDoesNotMatch', async () => {
    const h = await smithySign({ method: 'GET', path: '/b/k', date: DATE, secretAccessKey: 'not-the-secret' });
    expect(reject(h).code).toBe('SignatureDoesNotMatch');
  });

  it('unsigned extra headers (user-agent, expect) are fine', async () => {
    const h = withHeader(withHeader(await base(), 'user-agent', 'x'), 'expect', '100-continue');
    expect(authenticate(h, ctx(NOW)).kind).toBe('signed');
  });
});

describe('presigned URLs signed by smithy', () => {
  it.each(NASTY_KEYS)('GET %j', async (key) => {
    const h = await smithyPresign({ method: 'GET', path: s3Path('bucket', key), date: DATE, expiresIn: 3600 });
    const r = authenticate(h, ctx(NOW + 60_000));
    expect(r.kind === 'signed' && r.presigned).toBe(true);
    expect(r.kind === 'signed' && r.payload).toEqual({ kind: 'unsigned' });
  });

  it('PUT with hoisted x-amz-* headers and response overrides', async () => {
    const h = await smithyPresign({
      method: 'PUT',
      path: s3Path('bucket', 'a b/c+d'),
      date: DATE,
      query: { 'response-content-type': 'text/plain; charset=utf-8' },
      headers: { 'x-amz-acl': 'public-read', 'x-amz-meta-name': 'ü & =', 'content-type': 'text/plain' },
    });
    expect(h.rawQuery).toContain('x-amz-acl=public-read');
    const r = authenticate(h, ctx(NOW));
    expect(r.kind).toBe('signed');
    if (r.kind !== 'signed') return;
    expect(r.hoistedHeaders).toEqual({
      'x-amz-acl': 'public-read',
      'x-amz-meta-name': 'ü & =',
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    });
  });

  it('signed real header (kept unhoisted) is used and wins', async () => {
    const h = await smithyPresign({
      method: 'PUT',
      path: '/bucket/k',
      date: DATE,
      headers: { 'x-amz-acl': 'private' },
      keepHeaders: ['x-amz-acl'],
    });
    expect(h.headers['x-amz-acl']).toBe('private');
    const r = authenticate(h, ctx(NOW));
    expect(r.kind === 'signed' && r.hoistedHeaders['x-amz-acl']).toBeUndefined();
    // The signed header cannot be changed…
    expect(reject(withHeader(h, 'x-amz-acl', 'public-read')).code).toBe('SignatureDoesNotMatch');
    // …and an extra unsigned x-amz-* header is refused.
    const e = reject(withHeader(h, 'x-amz-meta-x', '1'));
    expect([e.code, e.extras.HeadersNotSigned]).toEqual(['AccessDenied', 'x-amz-meta-x']);
  });

  it('x-amz-content-sha256 header may accompany a presigned request unsigned', async () => {
    const h = await smithyPresign({ method: 'PUT', path: '/bucket/k', date: DATE });
    const withHash = withHeader(h, 'x-amz-content-sha256', 'a'.repeat(64));
    const r = authenticate(withHash, ctx(NOW));
    expect(r.kind === 'signed' && r.payload).toEqual({ kind: 'sha256', expectedHex: 'a'.repeat(64) });
  });

  it('tampering with the URL is rejected', async () => {
    const h = await smithyPresign({ method: 'GET', path: '/bucket/key', date: DATE, expiresIn: 600 });
    const cases: RequestHead[] = [
      { ...h, rawPath: '/bucket/kez' },
      { ...h, method: 'PUT' },
      { ...h, rawQuery: h.rawQuery.replace('X-Amz-Expires=600', 'X-Amz-Expires=6000') },
      { ...h, rawQuery: `${h.rawQuery}&x-amz-acl=public-read` },
      { ...h, rawQuery: `${h.rawQuery}&response-content-type=x` },
      withHeader(h, 'host', 'other:9000'),
    ];
    for (const t of cases) expect(reject(t).code).toBe('SignatureDoesNotMatch');
  });

  it('validity window: clock skew before, X-Amz-Expires after', async () => {
    const h = await smithyPresign({ method: 'GET', path: '/bucket/key', date: DATE, expiresIn: 600 });
    expect(authenticate(h, ctx(NOW - 899_000)).kind).toBe('signed');
    const early = reject(h, NOW - 901_000);
    expect([early.status, early.code, early.message]).toEqual([403, 'AccessDenied', 'Request is not valid yet']);
    expect(authenticate(h, ctx(NOW + 600_000)).kind).toBe('signed');
    const late = reject(h, NOW + 601_000);
    expect([late.status, late.code, late.message]).toEqual([403, 'AccessDenied', 'Request has expired']);
    expect(late.extras).toEqual({
      'X-Amz-Expires': '600',
      Expires: '2025-01-15T12:10:00Z',
      ServerTime: '2025-01-15T12:10:01Z',
    });
  });
});
