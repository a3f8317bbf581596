// Signature Version 2 against the examples of AWS's *Signing and authenticating REST requests*
// (the legacy S3 developer guide): header and query-string authentication, and its errors.

import { describe, expect, it } from 'vitest';
import { authenticate } from '../../../src/s3/sigv4/authenticate.js';
import { stringToSignV2 } from '../../../src/s3/sigv4/sigv2.js';
import { DOC_AK, ctx, head, s3ErrorOf } from './helpers.js';

const HOST = 'johnsmith.s3.amazonaws.com';
const GET_DATE = 'Tue, 27 Mar 2007 19:36:42 +0000';
const GET_MS = Date.parse(GET_DATE);
const v2ctx = (now: number) => ctx(now, { virtualBucket: 'johnsmith' });

describe('SigV2 header authentication (AWS examples)', () => {
  it('Object GET', () => {
    const h = head('GET', '/photos/puppy.jpg', [['host', HOST], ['date', GET_DATE], ['authorization', `AWS ${DOC_AK}:bWq2s1WEIj+Ydj0vQ697zp+IXMU=`]]);
    expect(stringToSignV2(h, [], GET_DATE, 'johnsmith')).toBe(`GET\n\n\n${GET_DATE}\n/johnsmith/photos/puppy.jpg`);
    const auth = authenticate(h, v2ctx(GET_MS));
    expect(auth).toMatchObject({ kind: 'signed', signatureVersion: 'AWS', accessKeyId: DOC_AK, presigned: false, payload: { kind: 'unsigned' } });
  });

  it('Object PUT', () => {
    const date = 'Tue, 27 Mar 2007 21:15:45 +0000';
    const h = head('PUT', '/photos/puppy.jpg', [
      ['host', HOST], ['content-type', 'image/jpeg'], ['content-length', '94328'], ['date', date],
      ['authorization', `AWS ${DOC_AK}:MyyxeRY7whkBe+bq8fHCL/2kKUg=`],
    ]);
    expect(authenticate(h, v2ctx(Date.parse(date))).kind).toBe('signed');
  });

  it('a wrong signature is SignatureDoesNotMatch with the StringToSign; a stale date RequestTimeTooSkewed; no date AccessDenied', () => {
    const bad = head('GET', '/photos/puppy.jpg', [['host', HOST], ['date', GET_DATE], ['authorization', `AWS ${DOC_AK}:AAAAs1WEIj+Ydj0vQ697zp+IXMU=`]]);
    const e = s3ErrorOf(() => authenticate(bad, v2ctx(GET_MS)));
    expect([e.status, e.code]).toEqual([403, 'SignatureDoesNotMatch']);
    expect(e.extras['StringToSign']).toBe(`GET\n\n\n${GET_DATE}\n/johnsmith/photos/puppy.jpg`);
    const skew = s3ErrorOf(() => authenticate(bad, v2ctx(GET_MS + 3600_000)));
    expect(skew.code).toBe('RequestTimeTooSkewed');
    const noDate = s3ErrorOf(() => authenticate(head('GET', '/p', [['host', HOST], ['authorization', `AWS ${DOC_AK}:x`]]), v2ctx(GET_MS)));
    expect([noDate.status, noDate.code, noDate.message]).toEqual([403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header']);
    const malformed = s3ErrorOf(() => authenticate(head('GET', '/p', [['host', HOST], ['authorization', `AWS ${DOC_AK}`]]), v2ctx(GET_MS)));
    expect([malformed.status, malformed.code]).toEqual([400, 'InvalidArgument']);
    const unknown = s3ErrorOf(() => authenticate(head('GET', '/p', [['host', HOST], ['date', GET_DATE], ['authorization', 'AWS NOBODY:x']]), v2ctx(GET_MS)));
    expect(unknown.code).toBe('InvalidAccessKeyId');
  });

  it('signs a path-style bucket as /bucket/', () => {
    expect(stringToSignV2(head('GET', '/b', [['host', 'h']]), [], 'D')).toBe('GET\n\n\nD\n/b/');
  });

  it('signs x-amz-* headers and sub-resources, not other query parameters', () => {
    const h = head('PUT', '/b/k?acl&prefix=x&versionId=v1', [['host', HOST], ['x-amz-date', GET_DATE], ['x-amz-meta-b', ' two  words '], ['x-amz-meta-a', '1'], ['content-md5', 'md5==']]);
    expect(stringToSignV2(h, [
      { rawName: 'acl', rawValue: '', name: 'acl' },
      { rawName: 'prefix', rawValue: 'x', name: 'prefix' },
      { rawName: 'versionId', rawValue: 'v1', name: 'versionId' },
    ], '')).toBe(`PUT\nmd5==\n\n\nx-amz-date:${GET_DATE}\nx-amz-meta-a:1\nx-amz-meta-b:two words\n/b/k?acl&versionId=v1`);
  });
});

describe('SigV2 query-string authentication (AWS example)', () => {
  const target = `/photos/puppy.jpg?AWSAccessKeyId=${DOC_AK}&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=1175139620`;

  it('verifies before Expires and is AccessDenied after', () => {
    const h = head('GET', target, [['host', HOST]]);
    expect(authenticate(h, v2ctx(1175139620_000 - 1000))).toMatchObject({ kind: 'signed', presigned: true, signatureVersion: 'AWS' });
    const late = s3ErrorOf(() => authenticate(h, v2ctx(1175139620_000 + 1000)));
    expect([late.status, late.code, late.message]).toEqual([403, 'AccessDenied', 'Request has expired']);
  });

  it('missing Expires is AccessDenied naming the three parameters', () => {
    const e = s3ErrorOf(() => authenticate(head('GET', `/p?AWSAccessKeyId=${DOC_AK}&Signature=abc`, [['host', HOST]]), v2ctx(0)));
    expect([e.status, e.code, e.message]).toEqual([403, 'AccessDenied', 'Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters']);
  });
});
