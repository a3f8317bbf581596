// Golden strings for every XML (and JSON) response type the S3 face renders (style.md §10):
// namespace, element order, escaping.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { escapeXml, httpDate, isoSeconds, renderError } from '../../../src/s3/xml.js';
import type { VersionInput } from '../../../src/store/types.js';
import type { S3ObjectAttrs } from '../../../src/s3/object-attrs.js';
import { openHarness, OWNER_ID, type Harness } from './helpers/harness.js';

const T = Date.parse('2025-01-31T12:00:00.789Z');
const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';
const OWNER = `<Owner><ID>${OWNER_ID}</ID><DisplayName>owner</DisplayName></Owner>`;

function meta(etag: string): VersionInput<S3ObjectAttrs> {
  return { etag, lastModified: T, attrs: { contentType: 'text/plain', storageClass: 'STANDARD', acl: 'private', headers: {}, meta: {} } };
}

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
  await h.store.createBucket({ name: 'gold', owner: OWNER_ID, created: T, acl: 'private', objectLock: false, versioning: 'Unversioned' });
  for (const [key, body] of [['a&b<c>', 'x'], ['dir/one', 'yy'], ['dir/two', 'zzz'], ['plus+ sign', '']] as const) {
    const w = h.store.beginWrite(body.length);
    if (body.length) await w.write(Buffer.from(body));
    await w.commit('gold', key, meta(`e${body.length}`.padEnd(32, '0')));
  }
});
afterAll(() => h.close());

describe('error body (s3.md §1.9)', () => {
  it('has Code, Message, extras, RequestId, HostId in order, no namespace', () => {
    const xml = renderError(new S3Error('NoSuchKey', { Key: 'a<b' }), 'REQ1', 'HOST');
    expect(xml).toBe(
      `${DECL}<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>` +
        '<Key>a&lt;b</Key><RequestId>REQ1</RequestId><HostId>HOST</HostId></Error>',
    );
  });
  it('escapes CR and control characters as numeric references (s3.md §1.4)', () => {
    expect(escapeXml('a\rb\u0001c"\'&')).toBe('a&#xD;b&#x1;c&quot;&apos;&amp;');
    expect(escapeXml('😀\ttab\nnl')).toBe('😀\ttab\nnl');
    // lone surrogates, a pair next to an entity, U+FFFE, escapes at both ends
    expect(escapeXml('\ud800x\udc00')).toBe('&#xD800;x&#xDC00;');
    expect(escapeXml('&😀&')).toBe('&amp;😀&amp;');
    expect(escapeXml('a\ufffeb\ud83d')).toBe('a&#xFFFE;b&#xD83D;');
    expect(escapeXml('<tag attr="v">')).toBe('&lt;tag attr=&quot;v&quot;&gt;');
  });
  it('is rendered through HTTP with status and RequestId', async () => {
    const r = await h.request('GET', '/nosuch/key');
    expect(r.status).toBe(404);
    expect(r.body).toBe(
      `${DECL}<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message>` +
        '<BucketName>nosuch</BucketName><RequestId>REQ0000000000001</RequestId><HostId>HOSTID</HostId></Error>',
    );
    expect(r.headers).toContainEqual(['Content-Type', 'application/xml']);
    expect(r.headers).toContainEqual(['x-amz-request-id', 'REQ0000000000001']);
  });
});

describe('dates (s3.md §0.5)', () => {
  it('formats whole seconds, whichever second came before (each format remembers its last one)', () => {
    const a = Date.UTC(2026, 10, 25, 3, 37, 5, 999);
    const b = Date.UTC(1999, 0, 1, 0, 0, 0, 1);
    for (const ms of [a, a - 999, b, a, b + 998, a + 1]) {
      const whole = new Date(Math.floor(ms / 1000) * 1000);
      expect(isoSeconds(ms)).toBe(whole.toISOString());
      expect(httpDate(ms)).toBe(whole.toUTCString());
    }
    expect(isoSeconds(a)).toBe('2026-11-25T03:37:05.000Z');
  });
});

describe('bucket responses', () => {
  it('ListAllMyBucketsResult (§4.1)', async () => {
    const r = await h.request('GET', '/');
    expect(r.body).toBe(
      `${DECL}<ListAllMyBucketsResult ${NS}>${OWNER}<Buckets><Bucket><Name>gold</Name>` +
        '<CreationDate>2025-01-31T12:00:00.000Z</CreationDate><BucketRegion>us-east-1</BucketRegion></Bucket>' +
        '</Buckets></ListAllMyBucketsResult>',
    );
  });
  it('LocationConstraint is the empty element for us-east-1 (§3.5)', async () => {
    const r = await h.request('GET', '/gold?location');
    expect(r.body).toBe(`${DECL}<LocationConstraint ${NS}/>`);
  });
  it('§1.6 stubs', async () => {
    expect((await h.request('GET', '/gold?logging')).body).toBe(`${DECL}<BucketLoggingStatus ${NS}/>`);
    expect((await h.request('GET', '/gold?requestPayment')).body).toBe(
      `${DECL}<RequestPaymentConfiguration ${NS}><Payer>BucketOwner</Payer></RequestPaymentConfiguration>`,
    );
    const policy = await h.request('GET', '/gold?policy');
    expect([policy.status, /<Code>NoSuchBucketPolicy<\/Code>/.test(policy.body)]).toEqual([404, true]);
    expect((await h.request('DELETE', '/gold?lifecycle')).status).toBe(204);
    expect((await h.request('PUT', '/gold?logging')).status).toBe(501);
    // PutBucketWebsite is implemented: a PUT without a configuration is malformed
    expect((await h.request('PUT', '/gold?website')).status).toBe(400);
  });
});

describe('listings', () => {
  it('ListObjectsV2 with delimiter, escaping and url encoding (§4.3)', async () => {
    const r = await h.request('GET', '/gold?list-type=2&delimiter=%2F&encoding-type=url&max-keys=2000');
    expect(r.body).toBe(
      `${DECL}<ListBucketResult ${NS}><Name>gold</Name><Prefix></Prefix><KeyCount>3</KeyCount>` +
        '<MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>false</IsTruncated>' +
        '<Contents><Key>a%26b%3Cc%3E</Key><LastModified>2025-01-31T12:00:00.000Z</LastModified>' +
        `<ETag>&quot;e1${'0'.repeat(30)}&quot;</ETag><Size>1</Size><StorageClass>STANDARD</StorageClass></Contents>` +
        '<Contents><Key>plus%2B%20sign</Key><LastModified>2025-01-31T12:00:00.000Z</LastModified>' +
        `<ETag>&quot;e0${'0'.repeat(30)}&quot;</ETag><Size>0</Size><StorageClass>STANDARD</StorageClass></Contents>` +
        '<CommonPrefixes><Prefix>dir/</Prefix></CommonPrefixes><EncodingType>url</EncodingType></ListBucketResult>',
    );
  });
  it('ListObjectsV2 pagination with a continuation token', async () => {
    const first = await h.request('GET', '/gold?list-type=2&max-keys=1&start-after=a');
    expect(first.body).toContain('<StartAfter>a</StartAfter>');
    expect(first.body).toContain('<KeyCount>1</KeyCount><MaxKeys>1</MaxKeys><IsTruncated>true</IsTruncated>');
    const token = /<NextContinuationToken>([^<]+)</.exec(first.body)![1]!;
    const second = await h.request('GET', `/gold?list-type=2&max-keys=5&continuation-token=${token}`);
    expect(second.body).toContain(`<ContinuationToken>${token}</ContinuationToken><KeyCount>3</KeyCount>`);
    expect(second.body).not.toContain('NextContinuationToken');
    expect((await h.request('GET', '/gold?list-type=2&continuation-token=bogus')).status).toBe(400);
  });
  it('ListObjects V1 with Owner, Marker and NextMarker (§4.4)', async () => {
    const r = await h.request('GET', '/gold?delimiter=/&max-keys=2&marker=a');
    expect(r.body).toBe(
      `${DECL}<ListBucketResult ${NS}><Name>gold</Name><Prefix></Prefix><Marker>a</Marker>` +
        '<NextMarker>dir/</NextMarker><MaxKeys>2</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>' +
        '<Contents><Key>a&amp;b&lt;c&gt;</Key><LastModified>2025-01-31T12:00:00.000Z</LastModified>' +
        `<ETag>&quot;e1${'0'.repeat(30)}&quot;</ETag><Size>1</Size>${OWNER}<StorageClass>STANDARD</StorageClass></Contents>` +
        '<CommonPrefixes><Prefix>dir/</Prefix></CommonPrefixes></ListBucketResult>',
    );
  });
  it('the seed JSON shape with Accept: application/json (§3.7.1)', async () => {
    const r = await h.request('GET', '/gold?list-type=2&prefix=dir/', { headers: { accept: 'application/json' } });
    expect(r.headers).toContainEqual(['Content-Type', 'application/json']);
    expect(r.body).toBe(
      '{"Name":"gold","Prefix":"dir/","MaxKeys":1000,"IsTruncated":false,"Contents":[' +
        `{"Key":"dir/one","LastModified":"2025-01-31T12:00:00.000Z","ETag":"\\"e2${'0'.repeat(30)}\\"","Size":2,"StorageClass":"STANDARD"},` +
        `{"Key":"dir/two","LastModified":"2025-01-31T12:00:00.000Z","ETag":"\\"e3${'0'.repeat(30)}\\"","Size":3,"StorageClass":"STANDARD"}` +
        '],"KeyCount":2}',
    );
  });
  it('rejects bad max-keys and encoding-type', async () => {
    expect((await h.request('GET', '/gold?max-keys=-1')).body).toContain('<Code>InvalidArgument</Code>');
    expect((await h.request('GET', '/gold?encoding-type=xml')).body).toContain(
      '<Message>Invalid Encoding Method specified in Request</Message>',
    );
  });
});

describe('access-control responses (issue 12)', () => {
  const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
  it('AccessControlPolicy of a canned ACL (§4.9)', async () => {
    await h.request('PUT', '/gold?acl', { headers: { 'x-amz-acl': 'public-read' } });
    expect((await h.request('GET', '/gold?acl')).body).toBe(
      `${DECL}<AccessControlPolicy ${NS}>${OWNER}<AccessControlList>` +
        `<Grant><Grantee ${XSI} xsi:type="CanonicalUser"><ID>${OWNER_ID}</ID><DisplayName>owner</DisplayName></Grantee><Permission>FULL_CONTROL</Permission></Grant>` +
        `<Grant><Grantee ${XSI} xsi:type="Group"><URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee><Permission>READ</Permission></Grant>` +
        '</AccessControlList></AccessControlPolicy>',
    );
    await h.request('PUT', '/gold?acl', { headers: { 'x-amz-acl': 'private' } });
  });
  it('CORSConfiguration (§4.10), in element order', async () => {
    const body = '<CORSConfiguration><CORSRule><AllowedOrigin>https://a&amp;b</AllowedOrigin><AllowedMethod>GET</AllowedMethod><ID>r1</ID><MaxAgeSeconds>5</MaxAgeSeconds><ExposeHeader>ETag</ExposeHeader><AllowedHeader>*</AllowedHeader></CORSRule></CORSConfiguration>';
    const md5 = createHash('md5').update(body).digest('base64');
    expect((await h.request('PUT', '/gold?cors', { body, headers: { 'content-md5': md5 } })).status).toBe(200);
    expect((await h.request('GET', '/gold?cors')).body).toBe(
      `${DECL}<CORSConfiguration ${NS}><CORSRule><ID>r1</ID><AllowedHeader>*</AllowedHeader><AllowedMethod>GET</AllowedMethod>` +
        '<AllowedOrigin>https://a&amp;b</AllowedOrigin><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>5</MaxAgeSeconds></CORSRule></CORSConfiguration>',
    );
    await h.request('DELETE', '/gold?cors');
  });
  it('PolicyStatus, PublicAccessBlockConfiguration, OwnershipControls', async () => {
    const policy = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::gold/*' }] });
    expect((await h.request('PUT', '/gold?policy', { body: policy })).status).toBe(204);
    expect((await h.request('GET', '/gold?policyStatus')).body).toBe(`${DECL}<PolicyStatus ${NS}><IsPublic>true</IsPublic></PolicyStatus>`);
    await h.request('DELETE', '/gold?policy');
    await h.request('PUT', '/gold?publicAccessBlock', { body: '<PublicAccessBlockConfiguration><IgnorePublicAcls>true</IgnorePublicAcls></PublicAccessBlockConfiguration>' });
    expect((await h.request('GET', '/gold?publicAccessBlock')).body).toBe(
      `${DECL}<PublicAccessBlockConfiguration ${NS}><BlockPublicAcls>false</BlockPublicAcls><IgnorePublicAcls>true</IgnorePublicAcls>` +
        '<BlockPublicPolicy>false</BlockPublicPolicy><RestrictPublicBuckets>false</RestrictPublicBuckets></PublicAccessBlockConfiguration>',
    );
    await h.request('DELETE', '/gold?publicAccessBlock');
    await h.request('PUT', '/gold?ownershipControls', { body: '<OwnershipControls><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership></Rule></OwnershipControls>' });
    expect((await h.request('GET', '/gold?ownershipControls')).body).toBe(
      `${DECL}<OwnershipControls ${NS}><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership></Rule></OwnershipControls>`,
    );
    await h.request('DELETE', '/gold?ownershipControls');
  });
});
