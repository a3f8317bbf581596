// AWS documentation examples (*Signature Calculations for the Authorization Header: Transferring
// Payload in a Single Chunk*, *… in Multiple Chunks*, *Query String Authentication*).

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authenticate } from '../../../src/s3/sigv4/authenticate.js';
import { AwsChunkedDecoder } from '../../../src/s3/sigv4/aws-chunked.js';
import { describeBody } from '../../../src/s3/sigv4/body-description.js';
import { encodeAwsChunked } from './chunked-encoder.js';
import { canonicalQueryString, canonicalUri, parseQuery } from '../../../src/s3/sigv4/canonical-request.js';
import { deriveSigningKey } from '../../../src/s3/sigv4/signing-key.js';
import { DOC_AK, DOC_SECRET, DOC_TIME_MS, EMPTY_SHA, authHeader, ctx, head, s3ErrorOf } from './helpers.js';

const SCOPE = '20130524/us-east-1/s3/aws4_request';
const HOST = 'examplebucket.s3.amazonaws.com';

function sha(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

describe('AWS SigV4 documentation examples', () => {
  it('GET object with Range', () => {
    const sig = 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41';
    const h = head('GET', '/test.txt', [
      ['Host', HOST],
      ['Range', 'bytes=0-9'],
      ['x-amz-content-sha256', EMPTY_SHA],
      ['x-amz-date', '20130524T000000Z'],
      ['Authorization', authHeader(DOC_AK, SCOPE, 'host;range;x-amz-content-sha256;x-amz-date', sig)],
    ]);
    const r = authenticate(h, ctx());
    expect(r.kind).toBe('signed');
    if (r.kind !== 'signed') return;
    expect(r.accessKeyId).toBe(DOC_AK);
    expect(r.accountId).toBe('111122223333');
    expect(r.presigned).toBe(false);
    expect(r.payload).toEqual({ kind: 'sha256', expectedHex: EMPTY_SHA });
    expect(r.seedSignature).toBe(sig);
    expect(r.scope).toBe(SCOPE);
    expect(r.requestTime).toBe('20130524T000000Z');

    // The documented canonical request and string to sign, seen through the mismatch error.
    const bad = head('GET', '/test.txt', [...h.headerList.slice(0, 4), ['authorization', authHeader(DOC_AK, SCOPE, 'host;range;x-amz-content-sha256;x-amz-date', '0'.repeat(64))]] as Array<[string, string]>);
    const e = s3ErrorOf(() => authenticate(bad, ctx()));
    expect(e.code).toBe('SignatureDoesNotMatch');
    expect(e.status).toBe(403);
    const canonical = [
      'GET',
      '/test.txt',
      '',
      `host:${HOST}`,
      'range:bytes=0-9',
      `x-amz-content-sha256:${EMPTY_SHA}`,
      'x-amz-date:20130524T000000Z',
      '',
      'host;range;x-amz-content-sha256;x-amz-date',
      EMPTY_SHA,
    ].join('\n');
    expect(e.extras.CanonicalRequest).toBe(canonical);
    expect(sha(canonical)).toBe('7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972');
    expect(e.extras.StringToSign).toBe(
      `AWS4-HMAC-SHA256\n20130524T000000Z\n${SCOPE}\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972`,
    );
    expect(e.extras.AWSAccessKeyId).toBe(DOC_AK);
    expect(e.extras.SignatureProvided).toBe('0'.repeat(64));
  });

  it('PUT object (Date header signed, $ in the key)', () => {
    const payloadHash = '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072';
    expect(sha('Welcome to Amazon S3.')).toBe(payloadHash);
    const sig = '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd';
    const h = head('PUT', '/test$file.text', [
      ['Host', HOST],
      ['Date', 'Fri, 24 May 2013 00:00:00 GMT'],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-storage-class', 'REDUCED_REDUNDANCY'],
      ['x-amz-content-sha256', payloadHash],
      ['Content-Length', '21'],
      [
        'Authorization',
        authHeader(DOC_AK, SCOPE, 'date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class', sig),
      ],
    ]);
    expect(canonicalUri(h.rawPath)).toBe('/test%24file.text');
    const r = authenticate(h, ctx());
    expect(r.kind === 'signed' && r.payload).toEqual({ kind: 'sha256', expectedHex: payloadHash });
  });

  it('GET bucket lifecycle (valueless query parameter)', () => {
    expect(canonicalQueryString(parseQuery('lifecycle'))).toBe('lifecycle=');
    const sig = 'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543';
    const h = head('GET', '/?lifecycle', [
      ['Host', HOST],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-content-sha256', EMPTY_SHA],
      ['Authorization', authHeader(DOC_AK, SCOPE, 'host;x-amz-content-sha256;x-amz-date', sig)],
    ]);
    expect(authenticate(h, ctx()).kind).toBe('signed');
  });

  it('list objects (sorted query)', () => {
    expect(canonicalQueryString(parseQuery('prefix=J&max-keys=2'))).toBe('max-keys=2&prefix=J');
    const sig = '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7';
    const h = head('GET', '/?max-keys=2&prefix=J', [
      ['Host', HOST],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-content-sha256', EMPTY_SHA],
      ['Authorization', authHeader(DOC_AK, SCOPE, 'host;x-amz-content-sha256;x-amz-date', sig)],
    ]);
    expect(authenticate(h, ctx()).kind).toBe('signed');
  });

  it('presigned GET (query string authentication)', () => {
    const url =
      '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
      '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
      '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
    const r = authenticate(head('GET', url, [['Host', HOST]]), ctx(DOC_TIME_MS + 3600_000));
    expect(r.kind === 'signed' && r.presigned).toBe(true);
    expect(r.kind === 'signed' && r.payload).toEqual({ kind: 'unsigned' });
    const expired = s3ErrorOf(() => authenticate(head('GET', url, [['Host', HOST]]), ctx(DOC_TIME_MS + 86401_000)));
    expect([expired.status, expired.code, expired.message]).toEqual([403, 'AccessDenied', 'Request has expired']);
    expect(expired.extras).toMatchObject({ 'X-Amz-Expires': '86400', Expires: '2013-05-25T00:00:00Z' });
  });

  it('signing key derivation', () => {
    // kSigning of the documentation credentials for 20130524/us-east-1/s3.
    const k = deriveSigningKey(DOC_SECRET, '20130524', 'us-east-1');
    expect(k.length).toBe(32);
    expect(deriveSigningKey(DOC_SECRET, '20130524', 'us-east-1').equals(k)).toBe(true);
    expect(deriveSigningKey(DOC_SECRET, '20130525', 'us-east-1').equals(k)).toBe(false);
  });

  it('chunked upload: seed signature from the header, then every chunk through the decoder', () => {
    const signedHeaders =
      'content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class';
    const seed = '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9';
    const h = head('PUT', '/examplebucket/chunkObject.txt', [
      ['Host', 's3.amazonaws.com'],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-storage-class', 'REDUCED_REDUNDANCY'],
      ['Authorization', authHeader(DOC_AK, SCOPE, signedHeaders, seed)],
      ['x-amz-content-sha256', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD'],
      ['Content-Encoding', 'aws-chunked'],
      ['x-amz-decoded-content-length', '66560'],
      ['Content-Length', '66824'],
    ]);
    const auth = authenticate(h, ctx());
    expect(auth.kind).toBe('signed');
    if (auth.kind !== 'signed') return;
    expect(auth.seedSignature).toBe(seed);
    expect(auth.payload).toEqual({ kind: 'streaming-signed', trailer: false });
    const body = describeBody(h, auth);
    expect(body).toEqual({ encoding: 'aws-chunked', decodedLength: 66560, declaredTrailer: undefined, storedContentEncoding: undefined });
    const data = Buffer.alloc(66560, 'a');
    const encoded = encodeAwsChunked(data, 65536, { signed: auth }).body;
    expect(encoded.length).toBe(66824);
    expect(encoded.toString('latin1', 0, 88)).toBe(
      '10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n',
    );
    const decoder = new AwsChunkedDecoder({ decodedLength: body.decodedLength, signed: auth, trailer: body.declaredTrailer });
    let n = 0;
    for (let i = 0; i < encoded.length; i += 1000) decoder.push(encoded.subarray(i, i + 1000), (s) => (n += s.length));
    expect(decoder.end()).toEqual({ trailers: {} });
    expect(n).toBe(66560);
  });
});
