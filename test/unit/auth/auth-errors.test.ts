// Every authentication failure of s3.md §2.1–§2.10, with its status, Code, message and extras.

import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RequestHead } from '../../../src/http/request-head.js';
import { authenticate } from '../../../src/s3/sigv4/authenticate.js';
import { describeBody, storedContentEncoding } from '../../../src/s3/sigv4/body-description.js';
import { contentSha256MismatchError } from '../../../src/s3/sigv4/payload-mode.js';
import { SigningKeyCache, deriveSigningKey } from '../../../src/s3/sigv4/signing-key.js';
import type { AuthContext } from '../../../src/s3/sigv4/types.js';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { DOC_AK, DOC_SECRET, DOC_TIME_MS, EMPTY_SHA, authHeader, ctx, head, s3ErrorOf } from './helpers.js';

const SCOPE = '20130524/us-east-1/s3/aws4_request';
const HOST = 'examplebucket.s3.amazonaws.com';
const DOC_GET_SIG = 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41';
const DOC_SIGNED = 'host;range;x-amz-content-sha256;x-amz-date';

/** The AWS documentation GET example, with `authorization` replaced or headers overridden. */
function docGet(opts: { auth?: string; set?: Record<string, string | undefined>; target?: string } = {}): RequestHead {
  const base: Record<string, string | undefined> = {
    host: HOST,
    range: 'bytes=0-9',
    'x-amz-content-sha256': EMPTY_SHA,
    'x-amz-date': '20130524T000000Z',
    authorization: opts.auth ?? authHeader(DOC_AK, SCOPE, DOC_SIGNED, DOC_GET_SIG),
    ...opts.set,
  };
  const list = Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined);
  return head('GET', opts.target ?? '/test.txt', list);
}

function fail(h: RequestHead, c: AuthContext = ctx()): S3Error {
  return s3ErrorOf(() => authenticate(h, c));
}

function expectError(e: S3Error, status: number, code: string, message?: string): void {
  expect([e.status, e.code]).toEqual([status, code]);
  if (message !== undefined) expect(e.message).toBe(message);
}

const MALFORMED = 'The authorization header is malformed; ';

describe('§2.1 authentication mode', () => {
  it('no credentials → anonymous', () => {
    expect(authenticate(head('GET', '/b/k?list-type=2&prefix=X-Amz-', [['host', 'h']]), ctx())).toEqual({ kind: 'anonymous' });
  });

  it('Authorization header and X-Amz-Algorithm query → InvalidArgument', () => {
    const e = fail(docGet({ target: '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256' }));
    expectError(
      e,
      400,
      'InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
    );
  });

  it('SigV4a → InvalidRequest (SigV2 is accepted: test/unit/auth/sigv2.test.ts)', () => {
    const msg = 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';
    expectError(
      fail(docGet({ auth: `AWS4-ECDSA-P256-SHA256 Credential=${DOC_AK}/20130524/s3/aws4_request, SignedHeaders=host, Signature=00` })),
      400,
      'InvalidRequest',
      msg,
    );
    expectError(
      fail(head('GET', '/k?X-Amz-Algorithm=AWS4-ECDSA-P256-SHA256&X-Amz-Region-Set=*', [['host', 'h']])),
      400,
      'InvalidRequest',
      msg,
    );
  });

  it('other Authorization schemes → InvalidArgument "Unsupported Authorization Type"', () => {
    const e = fail(docGet({ auth: 'Bearer abc' }));
    expectError(e, 400, 'InvalidArgument', 'Unsupported Authorization Type');
    expect(e.extras).toEqual({ ArgumentName: 'Authorization', ArgumentValue: 'Bearer abc' });
  });

  it('session tokens (header or query) → InvalidToken', () => {
    expectError(fail(docGet({ set: { 'x-amz-security-token': 'tok' } })), 400, 'InvalidToken');
    const q =
      '/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Security-Token=tok&X-Amz-Credential=a&X-Amz-Date=b&X-Amz-Expires=1&X-Amz-SignedHeaders=host&X-Amz-Signature=c';
    expectError(fail(head('GET', q, [['host', 'h']])), 400, 'InvalidToken');
  });
});

describe('§2.2 Authorization header parsing', () => {
  it('components in any order, with or without spaces, signature in upper case', () => {
    const variants = [
      `AWS4-HMAC-SHA256 Signature=${DOC_GET_SIG}, SignedHeaders=${DOC_SIGNED}, Credential=${DOC_AK}/${SCOPE}`,
      `AWS4-HMAC-SHA256 Credential=${DOC_AK}/${SCOPE},SignedHeaders=${DOC_SIGNED},Signature=${DOC_GET_SIG.toUpperCase()}`,
      `AWS4-HMAC-SHA256   Credential=${DOC_AK}/${SCOPE} ,  SignedHeaders=${DOC_SIGNED} , Signature=${DOC_GET_SIG}`,
    ];
    for (const auth of variants) expect(authenticate(docGet({ auth }), ctx()).kind).toBe('signed');
  });

  it.each([
    ['missing Signature', `AWS4-HMAC-SHA256 Credential=${DOC_AK}/${SCOPE}, SignedHeaders=host`],
    ['duplicate Credential', `AWS4-HMAC-SHA256 Credential=${DOC_AK}/${SCOPE}, Credential=${DOC_AK}/${SCOPE}, SignedHeaders=host, Signature=${DOC_GET_SIG}`],
    ['unknown component', `AWS4-HMAC-SHA256 Credential=${DOC_AK}/${SCOPE}, SignedHeaders=host, Signature=${DOC_GET_SIG}, Foo=bar`],
    ['no parameters', 'AWS4-HMAC-SHA256'],
    ['component without =', `AWS4-HMAC-SHA256 Credential=${DOC_AK}/${SCOPE}, SignedHeaders, Signature=${DOC_GET_SIG}`],
  ])('%s → AuthorizationHeaderMalformed', (_, auth) => {
    expectError(
      fail(docGet({ auth })),
      400,
      'AuthorizationHeaderMalformed',
      `${MALFORMED}the authorization header requires three components: Credential, SignedHeaders, and Signature.`,
    );
  });

  it.each([
    ['four parts', `${DOC_AK}/20130524/us-east-1/s3`],
    ['six parts', `${DOC_AK}/20130524/us-east-1/s3/aws4_request/x`],
    ['empty access key', `/20130524/us-east-1/s3/aws4_request`],
  ])('Credential with %s → AuthorizationHeaderMalformed', (_, credential) => {
    const auth = `AWS4-HMAC-SHA256 Credential=${credential}, SignedHeaders=${DOC_SIGNED}, Signature=${DOC_GET_SIG}`;
    expectError(
      fail(docGet({ auth })),
      400,
      'AuthorizationHeaderMalformed',
      `${MALFORMED}the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`,
    );
  });

  it('unknown access key → 403 InvalidAccessKeyId', () => {
    const e = fail(docGet({ auth: authHeader('AKIDUNKNOWN', SCOPE, DOC_SIGNED, DOC_GET_SIG) }));
    expectError(e, 403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    expect(e.extras).toEqual({ AWSAccessKeyId: 'AKIDUNKNOWN' });
  });

  it('credential date ≠ request date → AuthorizationHeaderMalformed', () => {
    const e = fail(docGet({ auth: authHeader(DOC_AK, '20130523/us-east-1/s3/aws4_request', DOC_SIGNED, DOC_GET_SIG) }));
    expectError(e, 400, 'AuthorizationHeaderMalformed', `${MALFORMED}Invalid credential date. Date is not the same as X-Amz-Date.`);
  });

  it('a credential date that is no yyyyMMdd → AuthorizationHeaderMalformed naming the format', () => {
    const e = fail(docGet({ auth: authHeader(DOC_AK, '201305/us-east-1/s3/aws4_request', DOC_SIGNED, DOC_GET_SIG) }));
    expectError(e, 400, 'AuthorizationHeaderMalformed', `${MALFORMED}incorrect date format "201305". This date in the credential must be in the format "yyyyMMdd".`);
  });

  it('wrong region → AuthorizationHeaderMalformed with Region and x-amz-bucket-region', () => {
    const e = fail(docGet({ auth: authHeader(DOC_AK, '20130524/eu-west-1/s3/aws4_request', DOC_SIGNED, DOC_GET_SIG) }));
    expectError(e, 400, 'AuthorizationHeaderMalformed', `${MALFORMED}the region 'eu-west-1' is wrong; expecting 'us-east-1'`);
    expect(e.extras).toEqual({ Region: 'us-east-1' });
    expect(e.headers).toEqual({ 'x-amz-bucket-region': 'us-east-1' });
    // With accept_any_region the scope region is not checked (the signature then decides).
    const any = fail(docGet({ auth: authHeader(DOC_AK, '20130524/eu-west-1/s3/aws4_request', DOC_SIGNED, DOC_GET_SIG) }), ctx(DOC_TIME_MS, { acceptAnyRegion: true }));
    expect(any.code).toBe('SignatureDoesNotMatch');
  });

  it('wrong service and terminator → AuthorizationHeaderMalformed', () => {
    expectError(
      fail(docGet({ auth: authHeader(DOC_AK, '20130524/us-east-1/ec2/aws4_request', DOC_SIGNED, DOC_GET_SIG) })),
      400,
      'AuthorizationHeaderMalformed',
      `${MALFORMED}incorrect service 'ec2'. This endpoint belongs to 's3'.`,
    );
    expectError(
      fail(docGet({ auth: authHeader(DOC_AK, '20130524/us-east-1/s3/aws5_request', DOC_SIGNED, DOC_GET_SIG) })),
      400,
      'AuthorizationHeaderMalformed',
      `${MALFORMED}incorrect terminal 'aws5_request'. This endpoint uses 'aws4_request'.`,
    );
  });

  it('empty SignedHeaders → AuthorizationHeaderMalformed', () => {
    expectError(fail(docGet({ auth: authHeader(DOC_AK, SCOPE, '', DOC_GET_SIG) })), 400, 'AuthorizationHeaderMalformed');
  });

  it('signature not 64 hex digits → 403 SignatureDoesNotMatch', () => {
    for (const sig of ['abc', `${DOC_GET_SIG}0`, 'g'.repeat(64), '']) {
      expectError(fail(docGet({ auth: authHeader(DOC_AK, SCOPE, DOC_SIGNED, sig) })), 403, 'SignatureDoesNotMatch');
    }
  });

  it('a signed header missing from the request → SignatureDoesNotMatch', () => {
    const e = fail(docGet({ set: { range: undefined } }));
    expectError(e, 403, 'SignatureDoesNotMatch');
    expect(e.extras).toMatchObject({ AWSAccessKeyId: DOC_AK, SignatureProvided: DOC_GET_SIG });
  });
});

describe('§2.3 canonical headers from the raw header list', () => {
  /** Signs a literal canonical request, independent of the implementation's canonicalisation. */
  function sign(canonical: string, time = '20130524T000000Z'): string {
    const sts = `AWS4-HMAC-SHA256\n${time}\n${SCOPE}\n${createHash('sha256').update(canonical).digest('hex')}`;
    return createHmac('sha256', deriveSigningKey(DOC_SECRET, '20130524', 'us-east-1')).update(sts).digest('hex');
  }

  it('repeated headers are joined with "," in arrival order, values trimmed and collapsed', () => {
    const canonical = [
      'GET',
      '/a%20b/%2F/c',
      'a=&b=%2B%20&b=1',
      'host:h:9000',
      'x-amz-content-sha256:UNSIGNED-PAYLOAD',
      'x-amz-date:20130524T000000Z',
      'x-amz-meta-m:one two,three,',
      '',
      'host;x-amz-content-sha256;x-amz-date;x-amz-meta-m',
      'UNSIGNED-PAYLOAD',
    ].join('\n');
    const h = head('GET', '/a+b/%2f/c'.replace('+', '%20') + '?b=1&b=%2b+&a', [
      ['host', 'h:9000'],
      ['x-amz-meta-m', '  one \t  two '],
      ['x-amz-content-sha256', 'UNSIGNED-PAYLOAD'],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-meta-m', 'three'],
      ['x-amz-meta-m', ''],
      ['authorization', authHeader(DOC_AK, SCOPE, 'host;x-amz-content-sha256;x-amz-date;x-amz-meta-m', sign(canonical))],
    ]);
    expect(authenticate(h, ctx()).kind).toBe('signed');
  });

  it('Date header supplies the request time when x-amz-date is absent', () => {
    const canonical = [
      'GET',
      '/k',
      '',
      'date:Fri, 24 May 2013 00:00:00 GMT',
      'host:h',
      `x-amz-content-sha256:${EMPTY_SHA}`,
      '',
      'date;host;x-amz-content-sha256',
      EMPTY_SHA,
    ].join('\n');
    const h = head('GET', '/k', [
      ['host', 'h'],
      ['date', 'Fri, 24 May 2013 00:00:00 GMT'],
      ['x-amz-content-sha256', EMPTY_SHA],
      ['authorization', authHeader(DOC_AK, SCOPE, 'date;host;x-amz-content-sha256', sign(canonical))],
    ]);
    const r = authenticate(h, ctx(DOC_TIME_MS + 60_000));
    expect(r.kind === 'signed' && r.requestTime).toBe('20130524T000000Z');
  });
});

describe('§2.4 signed-header requirements', () => {
  it('host not signed → AccessDenied HeadersNotSigned', () => {
    const e = fail(docGet({ auth: authHeader(DOC_AK, SCOPE, 'range;x-amz-content-sha256;x-amz-date', DOC_GET_SIG) }));
    expectError(e, 403, 'AccessDenied', 'There were headers present in the request which were not signed');
    expect(e.extras).toEqual({ HeadersNotSigned: 'host' });
  });

  it('unsigned x-amz-* and content-md5 headers are listed', () => {
    const e = fail(docGet({ set: { 'x-amz-acl': 'public-read', 'content-md5': 'x', 'x-amz-meta-a': '1', 'user-agent': 'ok' } }));
    expectError(e, 403, 'AccessDenied');
    expect(e.extras).toEqual({ HeadersNotSigned: 'x-amz-acl, content-md5, x-amz-meta-a' });
  });

  it('x-amz-date that supplied the time must be signed', () => {
    const e = fail(docGet({ auth: authHeader(DOC_AK, SCOPE, 'host;range;x-amz-content-sha256', DOC_GET_SIG) }));
    expect(e.extras).toEqual({ HeadersNotSigned: 'x-amz-date' });
  });
});

describe('§2.5 request time', () => {
  it('no usable date → AccessDenied', () => {
    const msg = 'AWS authentication requires a valid Date or x-amz-date header';
    expectError(fail(docGet({ set: { 'x-amz-date': undefined } })), 403, 'AccessDenied', msg);
    expectError(fail(docGet({ set: { 'x-amz-date': '2013-05-24T00:00:00Z' } })), 403, 'AccessDenied', msg);
    expectError(fail(docGet({ set: { 'x-amz-date': '20130231T000000Z' } })), 403, 'AccessDenied', msg);
    expectError(fail(docGet({ set: { 'x-amz-date': undefined, date: 'yesterday' } })), 403, 'AccessDenied', msg);
  });

  it('skew > 15 min → RequestTimeTooSkewed; exactly 15 min is accepted', () => {
    expect(authenticate(docGet(), ctx(DOC_TIME_MS + 900_000)).kind).toBe('signed');
    expect(authenticate(docGet(), ctx(DOC_TIME_MS - 900_000)).kind).toBe('signed');
    const e = fail(docGet(), ctx(DOC_TIME_MS + 960_000));
    expectError(e, 403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    expect(e.extras).toEqual({
      RequestTime: '20130524T000000Z',
      ServerTime: '2013-05-24T00:16:00Z',
      MaxAllowedSkewMilliseconds: 900000,
    });
    expect(fail(docGet(), ctx(DOC_TIME_MS - 901_000)).code).toBe('RequestTimeTooSkewed');
  });
});

describe('§2.6 payload hash modes', () => {
  it('missing x-amz-content-sha256 → InvalidRequest', () => {
    const e = fail(docGet({ set: { 'x-amz-content-sha256': undefined }, auth: authHeader(DOC_AK, SCOPE, 'host;range;x-amz-date', DOC_GET_SIG) }));
    expectError(e, 400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  });

  it('invalid value → InvalidArgument; SigV4a streaming → InvalidRequest', () => {
    const e = fail(docGet({ set: { 'x-amz-content-sha256': 'STREAMING-FOO' } }));
    expectError(e, 400, 'InvalidArgument');
    expect(e.message).toMatch(/^x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-.* or a valid sha256 value\.$/);
    expect(e.extras).toEqual({ ArgumentName: 'x-amz-content-sha256', ArgumentValue: 'STREAMING-FOO' });
    for (const v of ['STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD', 'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER']) {
      expectError(fail(docGet({ set: { 'x-amz-content-sha256': v } })), 400, 'InvalidRequest');
    }
  });

  it('payload hash mismatch error (raised by the PUT pipeline)', () => {
    const e = contentSha256MismatchError('a'.repeat(64), 'b'.repeat(64));
    expectError(e, 400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    expect(e.extras).toEqual({ ClientComputedContentSHA256: 'a'.repeat(64), S3ComputedContentSHA256: 'b'.repeat(64) });
  });
});

describe('§2.7/§2.8 body description', () => {
  const signedAs = (payload: unknown) =>
    ({ kind: 'signed', payload, presigned: false, accessKeyId: 'a', signingKey: Buffer.alloc(32), scope: '', requestTime: '', seedSignature: '', hoistedHeaders: {} }) as never;

  it('aws-chunked with a STREAMING- hash: decoded length, trailer, stored encoding', () => {
    const h = head('PUT', '/b/k', [
      ['content-encoding', 'aws-chunked,gzip'],
      ['x-amz-decoded-content-length', '66560'],
      ['x-amz-trailer', ' X-Amz-Checksum-CRC32C '],
      ['content-length', '66824'],
    ]);
    expect(describeBody(h, signedAs({ kind: 'streaming-signed', trailer: true }))).toEqual({
      encoding: 'aws-chunked',
      decodedLength: 66560,
      declaredTrailer: 'x-amz-checksum-crc32c',
      storedContentEncoding: 'gzip',
    });
    // Content-Encoding without aws-chunked is accepted (s3.md §2.7); no trailer in non-trailer mode.
    const plain = head('PUT', '/b/k', [['x-amz-decoded-content-length', '5']]);
    expect(describeBody(plain, signedAs({ kind: 'streaming-signed', trailer: false }))).toEqual({
      encoding: 'aws-chunked',
      decodedLength: 5,
      declaredTrailer: undefined,
      storedContentEncoding: undefined,
    });
  });

  it('aws-chunked without x-amz-decoded-content-length → 411 MissingContentLength', () => {
    const h = head('PUT', '/b/k', [['content-encoding', 'aws-chunked'], ['content-length', '10']]);
    expect(() => describeBody(h, signedAs({ kind: 'streaming-unsigned-trailer' }))).toThrow(
      expect.objectContaining({ status: 411, code: 'MissingContentLength' }),
    );
    const bad = head('PUT', '/b/k', [['x-amz-decoded-content-length', '12x']]);
    expect(() => describeBody(bad, signedAs({ kind: 'streaming-unsigned-trailer' }))).toThrow(
      expect.objectContaining({ status: 400, code: 'InvalidArgument' }),
    );
  });

  it('raw bodies: Content-Length required; aws-chunked encoding without STREAMING- → InvalidRequest', () => {
    expect(describeBody(head('PUT', '/b/k', [['content-length', '42'], ['content-encoding', 'gzip']]), signedAs({ kind: 'unsigned' }))).toEqual({
      encoding: 'raw',
      decodedLength: 42,
      storedContentEncoding: 'gzip',
    });
    expect(() => describeBody(head('PUT', '/b/k', []), { kind: 'anonymous' })).toThrow(
      expect.objectContaining({ status: 411, code: 'MissingContentLength' }),
    );
    expect(() =>
      describeBody(head('PUT', '/b/k', [['content-encoding', 'aws-chunked'], ['content-length', '3']]), signedAs({ kind: 'unsigned' })),
    ).toThrow(expect.objectContaining({ status: 400, code: 'InvalidRequest' }));
  });

  it('anonymous aws-chunked uploads: unsigned trailer ok, signed chunks refused', () => {
    const h = (v: string) => head('PUT', '/b/k', [['x-amz-content-sha256', v], ['x-amz-decoded-content-length', '1'], ['x-amz-trailer', 'x-amz-checksum-crc32']]);
    expect(describeBody(h('STREAMING-UNSIGNED-PAYLOAD-TRAILER'), { kind: 'anonymous' }).declaredTrailer).toBe('x-amz-checksum-crc32');
    expect(() => describeBody(h('STREAMING-AWS4-HMAC-SHA256-PAYLOAD'), { kind: 'anonymous' })).toThrow(
      expect.objectContaining({ code: 'InvalidRequest' }),
    );
  });

  it('storedContentEncoding drops only the aws-chunked token', () => {
    expect(storedContentEncoding(undefined)).toBeUndefined();
    expect(storedContentEncoding('aws-chunked')).toBeUndefined();
    expect(storedContentEncoding('gzip, AWS-CHUNKED ,br')).toBe('gzip,br');
    expect(storedContentEncoding('deflate, gzip')).toBe('deflate, gzip');
  });
});

describe('§2.9 presigned URL parameters', () => {
  const CRED = `${DOC_AK}%2F20130524%2Fus-east-1%2Fs3%2Faws4_request`;
  const full: Record<string, string> = {
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': CRED,
    'X-Amz-Date': '20130524T000000Z',
    'X-Amz-Expires': '86400',
    'X-Amz-SignedHeaders': 'host',
    'X-Amz-Signature': 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
  };
  const url = (over: Record<string, string | undefined>) =>
    '/test.txt?' +
    Object.entries({ ...full, ...over })
      .filter((e) => e[1] !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
  const presigned = (over: Record<string, string | undefined> = {}, now = DOC_TIME_MS) =>
    fail(head('GET', url(over), [['host', HOST]]), ctx(now));

  it('the documented URL verifies', () => {
    expect(authenticate(head('GET', url({}), [['host', HOST]]), ctx()).kind).toBe('signed');
  });

  it.each(['X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'])(
    'missing %s → AuthorizationQueryParametersError',
    (name) => {
      expectError(
        presigned({ [name]: undefined }),
        400,
        'AuthorizationQueryParametersError',
        'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
      );
    },
  );

  it('unknown algorithm → AuthorizationQueryParametersError', () => {
    expectError(presigned({ 'X-Amz-Algorithm': 'HMAC-SHA1' }), 400, 'AuthorizationQueryParametersError');
  });

  it('X-Amz-Expires out of 1..604800 → AccessDenied (as Ceph RGW), not a number → AuthorizationQueryParametersError', () => {
    const tooLong = 'X-Amz-Expires must be less than a week (in seconds) that is 604800';
    expectError(presigned({ 'X-Amz-Expires': '604801' }), 403, 'AccessDenied', tooLong);
    expectError(presigned({ 'X-Amz-Expires': '99999999999999' }), 403, 'AccessDenied', tooLong);
    for (const v of ['-1', '-1000']) expectError(presigned({ 'X-Amz-Expires': v }), 403, 'AccessDenied', 'X-Amz-Expires must be non-negative');
    for (const v of ['0', '-0']) expectError(presigned({ 'X-Amz-Expires': v }), 403, 'AccessDenied', 'Request has expired');
    for (const v of ['abc', '', '1.5', '+5', '--1']) {
      expectError(presigned({ 'X-Amz-Expires': v }), 400, 'AuthorizationQueryParametersError', 'X-Amz-Expires should be a number');
    }
  });

  it('malformed X-Amz-Date', () => {
    expectError(presigned({ 'X-Amz-Date': '2013-05-24' }), 400, 'AuthorizationQueryParametersError');
  });

  it('credential errors carry the X-Amz-Credential prefix', () => {
    const e = presigned({ 'X-Amz-Credential': `${DOC_AK}%2F20130524%2Feu-west-1%2Fs3%2Faws4_request` });
    expectError(
      e,
      400,
      'AuthorizationQueryParametersError',
      "Error parsing the X-Amz-Credential parameter; the region 'eu-west-1' is wrong; expecting 'us-east-1'",
    );
    expect(e.extras).toEqual({ Region: 'us-east-1' });
    expect(e.headers).toEqual({ 'x-amz-bucket-region': 'us-east-1' });
    expectError(presigned({ 'X-Amz-Credential': `${DOC_AK}%2F20130524%2Fus-east-1%2Fs3` }), 400, 'AuthorizationQueryParametersError');
    expectError(presigned({ 'X-Amz-Credential': `${DOC_AK}%2F20130525%2Fus-east-1%2Fs3%2Faws4_request` }), 400, 'AuthorizationQueryParametersError');
  });

  it('unknown access key → InvalidAccessKeyId', () => {
    expectError(presigned({ 'X-Amz-Credential': `NOPE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request` }), 403, 'InvalidAccessKeyId');
  });

  it('host not signed → AccessDenied HeadersNotSigned', () => {
    const e = presigned({ 'X-Amz-SignedHeaders': 'range' });
    expectError(e, 403, 'AccessDenied');
    expect(e.extras).toEqual({ HeadersNotSigned: 'host' });
  });

  it('not yet valid / expired → AccessDenied', () => {
    expectError(presigned({}, DOC_TIME_MS - 901_000), 403, 'AccessDenied', 'Request is not valid yet');
    expectError(presigned({}, DOC_TIME_MS + 86_401_000), 403, 'AccessDenied', 'Request has expired');
  });

  it('bad signature → SignatureDoesNotMatch with the canonical request', () => {
    const e = presigned({ 'X-Amz-Signature': 'f'.repeat(64) });
    expectError(e, 403, 'SignatureDoesNotMatch');
    expect(String(e.extras.CanonicalRequest).split('\n')[2]).toBe(
      `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${CRED}&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host`,
    );
    expect(String(e.extras.CanonicalRequest).endsWith('\nUNSIGNED-PAYLOAD')).toBe(true);
  });
});

describe('signing-key cache', () => {
  it('is bounded and keyed by secret as well as access key, date and region', () => {
    const cache = new SigningKeyCache(4);
    const a = cache.get('AK', 'secret1', '20130524', 'us-east-1');
    expect(cache.get('AK', 'secret1', '20130524', 'us-east-1')).toBe(a);
    expect(cache.get('AK', 'secret2', '20130524', 'us-east-1').equals(a)).toBe(false);
    for (let d = 10; d < 30; d++) cache.get('AK', 'secret1', `201305${d}`, 'us-east-1');
    expect(cache.size).toBe(4);
    expect(cache.get('AK', 'secret1', '20130524', 'us-east-1').equals(a)).toBe(true);
  });
});
