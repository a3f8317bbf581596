import { describe, expect, it } from 'vitest';
import type { RequestHead } from '../../../src/http/request-head.js';
import { joinHeaders } from '../../../src/http/request-head.js';
import { parseQuery } from '../../../src/s3/query.js';
import { codeOf } from './helpers/code-of.js';
import { classify, isValidBucketName, normalizeDomains, resolveResource } from '../../../src/s3/router.js';

const DOMAINS = normalizeDomains(['s3.example.com', 'example.com', 'localhost']);

function head(method: string, host: string, url: string, extra: Record<string, string> = {}): RequestHead {
  const [rawPath, rawQuery = ''] = url.split('?') as [string, string?];
  const headerList = [['host', host] as const, ...Object.entries(extra).map(([k, v]) => [k, v] as const)];
  return { method, rawPath, rawQuery, headerList, headers: joinHeaders(headerList) };
}

function route(method: string, host: string, url: string, extra: Record<string, string> = {}) {
  const h = head(method, host, url, extra);
  const resource = resolveResource(h, DOMAINS);
  return { resource, ...classify(method, resource, parseQuery(h.rawQuery), h.headers) };
}


describe('resolveResource (s3.md §1.1–1.4)', () => {
  const cases: Array<[string, string, object]> = [
    ['127.0.0.1:9000', '/', { style: 'path' }],
    ['127.0.0.1:9000', '/b1k', { style: 'path', bucket: 'b1k' }],
    ['127.0.0.1:9000', '/b1k/', { style: 'path', bucket: 'b1k' }],
    ['127.0.0.1:9000', '/b1k/a/b', { style: 'path', bucket: 'b1k', key: 'a/b' }],
    ['127.0.0.1:9000', '/b1k//a', { style: 'path', bucket: 'b1k', key: '/a' }],
    ['127.0.0.1:9000', '/b1k/a%20b+c%2B', { style: 'path', bucket: 'b1k', key: 'a b+c+' }],
    ['127.0.0.1:9000', '/b1k/%F0%9F%98%80', { style: 'path', bucket: 'b1k', key: '😀' }],
    ['s3.example.com', '/b1k/k', { style: 'path', bucket: 'b1k', key: 'k' }],
    ['bkt.s3.example.com', '/', { style: 'virtual', bucket: 'bkt' }],
    ['bkt.s3.example.com:443', '/k/x', { style: 'virtual', bucket: 'bkt', key: 'k/x' }],
    ['logs.2024.s3.example.com', '//a', { style: 'virtual', bucket: 'logs.2024', key: '/a' }],
    ['bkt.example.com.', '/k', { style: 'virtual', bucket: 'bkt', key: 'k' }],
    ['bkt.localhost:9000', '/k', { style: 'virtual', bucket: 'bkt', key: 'k' }],
    ['other.host', '/b1k/k', { style: 'path', bucket: 'b1k', key: 'k' }],
  ];
  it.each(cases)('%s %s', (host, url, want) => {
    expect(resolveResource(head('GET', host, url), DOMAINS)).toEqual(want);
  });

  it('rejects bad escapes and invalid UTF-8 with InvalidURI', () => {
    expect(codeOf(() => resolveResource(head('GET', 'localhost', '/b1k/%zz'), DOMAINS))).toBe('InvalidURI');
    expect(codeOf(() => resolveResource(head('GET', 'localhost', '/b1k/%C3'), DOMAINS))).toBe('InvalidURI');
  });

  it('rejects keys over 1024 bytes with KeyTooLongError, accepts exactly 1024', () => {
    expect(resolveResource(head('GET', 'localhost', `/b1k/${'k'.repeat(1024)}`), DOMAINS).key).toHaveLength(1024);
    expect(codeOf(() => resolveResource(head('GET', 'localhost', `/b1k/${'k'.repeat(1025)}`), DOMAINS))).toBe(
      'KeyTooLongError',
    );
  });

  it('rejects bad bucket names with InvalidBucketName', () => {
    expect(codeOf(() => resolveResource(head('GET', 'localhost', '/Bad_Bucket/k'), DOMAINS))).toBe('InvalidBucketName');
    // host names are case-insensitive, so the virtual-host bucket is lower-cased first (§1.1)
    expect(resolveResource(head('GET', 'UPS.s3.example.com', '/'), DOMAINS).bucket).toBe('ups');
    expect(codeOf(() => resolveResource(head('GET', 'a.s3.example.com', '/'), DOMAINS))).toBe('InvalidBucketName');
  });
});

describe('isValidBucketName (s3.md §1.3)', () => {
  it.each([
    ['abc', true], ['a'.repeat(63), true], ['my.bucket-1', true],
    ['ab', false], ['a'.repeat(64), false], ['Abc', false], ['a_b', false], ['a..b', false], ['a.-b', false],
    ['-ab', false], ['ab-', false], ['192.168.5.4', false], ['xn--abc', false], ['sthree-x', false],
    ['amzn-s3-demo-x', false], ['abc-s3alias', false], ['abc--ol-s3', false], ['abc.mrap', false],
    ['abc--x-s3', false], ['abc--table-s3', false],
  ])('%s → %s', (name, ok) => expect(isValidBucketName(name)).toBe(ok));
});

describe('classify (s3.md §1.5–1.6)', () => {
  const H = 'localhost:9000';
  const cases: Array<[string, string, string, Record<string, string>?]> = [
    ['GET', '/', 'ListBuckets'],
    ['OPTIONS', '/', 'CorsPreflight'],
    ['PUT', '/b1k', 'CreateBucket'],
    ['PUT', '/b1k?versioning', 'PutBucketVersioning'],
    ['PUT', '/b1k?acl', 'PutBucketAcl'],
    ['PUT', '/b1k?cors', 'PutBucketCors'],
    ['PUT', '/b1k?notification', 'PutBucketNotificationConfiguration'],
    ['PUT', '/b1k?object-lock', 'PutObjectLockConfiguration'],
    ['PUT', '/b1k?policy', 'PutBucketPolicy'],
    ['GET', '/b1k?policy', 'GetBucketPolicy'],
    ['DELETE', '/b1k?policy', 'DeleteBucketPolicy'],
    ['GET', '/b1k?policyStatus', 'GetBucketPolicyStatus'],
    ['PUT', '/b1k?ownershipControls', 'PutBucketOwnershipControls'],
    ['GET', '/b1k?ownershipControls', 'GetBucketOwnershipControls'],
    ['DELETE', '/b1k?ownershipControls', 'DeleteBucketOwnershipControls'],
    ['PUT', '/b1k?publicAccessBlock', 'PutPublicAccessBlock'],
    ['GET', '/b1k?publicAccessBlock', 'GetPublicAccessBlock'],
    ['DELETE', '/b1k?publicAccessBlock', 'DeletePublicAccessBlock'],
    ['PUT', '/b1k?website', 'PutBucketWebsite'],
    ['GET', '/b1k?website', 'GetBucketWebsite'],
    ['DELETE', '/b1k?website', 'DeleteBucketWebsite'],
    ['PUT', '/b1k?logging', 'PutBucketLogging'],
    ['GET', '/b1k?logging', 'GetBucketLogging'],
    // S3 has no DeleteBucketLogging: an empty BucketLoggingStatus turns it off
    ['DELETE', '/b1k?logging', 'DeleteBucketSubresourceStub'],
    ['PUT', '/b1k?replication', 'PutBucketSubresourceStub'],
    ['PUT', '/b1k?encryption', 'PutBucketEncryption'],
    ['GET', '/b1k?encryption', 'GetBucketEncryption'],
    ['DELETE', '/b1k?encryption', 'DeleteBucketEncryption'],
    ['GET', '/b1k?list-type=2&x-id=ListObjectsV2', 'ListObjectsV2'],
    ['GET', '/b1k?list-type=1', 'ListObjects'],
    ['GET', '/b1k?versions', 'ListObjectVersions'],
    ['GET', '/b1k?uploads', 'ListMultipartUploads'],
    ['GET', '/b1k?location', 'GetBucketLocation'],
    ['GET', '/b1k?versioning=', 'GetBucketVersioning'],
    ['GET', '/b1k?acl', 'GetBucketAcl'],
    ['GET', '/b1k?cors', 'GetBucketCors'],
    ['GET', '/b1k?notification', 'GetBucketNotificationConfiguration'],
    ['GET', '/b1k?events=s3%3AObjectCreated%3A%2A&prefix=p', 'ListenBucketNotification'],
    ['GET', '/?events=s3%3AObjectCreated%3A%2A', 'ListenNotification'],
    ['GET', '/b1k?object-lock', 'GetObjectLockConfiguration'],
    ['GET', '/b1k?lifecycle', 'GetBucketLifecycleConfiguration'],
    ['PUT', '/b1k?lifecycle', 'PutBucketLifecycleConfiguration'],
    ['DELETE', '/b1k?lifecycle', 'DeleteBucketLifecycle'],
    ['GET', '/b1k/k?retention', 'GetObjectRetention'],
    ['PUT', '/b1k/k?legal-hold', 'PutObjectLegalHold'],
    ['GET', '/b1k/k?legal-hold', 'GetObjectLegalHold'],
    ['GET', '/b1k', 'ListObjects'],
    ['GET', '/b1k?prefix=a&x-id=whatever', 'ListObjects'],
    ['HEAD', '/b1k', 'HeadBucket'],
    ['DELETE', '/b1k?cors', 'DeleteBucketCors'],
    ['DELETE', '/b1k?tagging', 'DeleteBucketTagging'],
    ['DELETE', '/b1k', 'DeleteBucket'],
    ['POST', '/b1k?delete', 'DeleteObjects'],
    ['POST', '/b1k', 'PostObject'],
    ['PUT', '/b1k/k?partNumber=1&uploadId=u', 'UploadPartCopy', { 'x-amz-copy-source': '/a/b' }],
    ['PUT', '/b1k/k?partNumber=1&uploadId=u', 'UploadPart'],
    ['PUT', '/b1k/k?acl', 'PutObjectAcl'],
    ['PUT', '/b1k/k?tagging', 'PutObjectTagging'],
    ['PUT', '/b1k/k?retention', 'PutObjectRetention'],
    ['PUT', '/b1k/k', 'CopyObject', { 'x-amz-copy-source': '/a/b' }],
    ['PUT', '/b1k/k?x-id=PutObject', 'PutObject'],
    ['GET', '/b1k/k?uploadId=u', 'ListParts'],
    ['GET', '/b1k/k?acl', 'GetObjectAcl'],
    ['GET', '/b1k/k?tagging', 'GetObjectTagging'],
    ['GET', '/b1k/k?attributes', 'GetObjectAttributes'],
    ['GET', '/b1k/k?versionId=null&partNumber=1', 'GetObject'],
    ['HEAD', '/b1k/k', 'HeadObject'],
    ['DELETE', '/b1k/k?uploadId=u', 'AbortMultipartUpload'],
    ['DELETE', '/b1k/k?tagging', 'DeleteObjectTagging'],
    ['DELETE', '/b1k/k', 'DeleteObject'],
    ['POST', '/b1k/k?uploads', 'CreateMultipartUpload'],
    ['POST', '/b1k/k?uploadId=u', 'CompleteMultipartUpload'],
    ['POST', '/b1k/k?restore', 'RestoreObject'],
    ['POST', '/b1k/k?select&select-type=2', 'SelectObjectContent'],
  ];
  it.each(cases)('%s %s → %s', (method, url, op, extra) => {
    expect(route(method, H, url, extra).op).toBe(op);
  });

  it('answers MethodNotAllowed for other methods, InvalidArgument for bad list-type and half part uploads, InvalidRequest for ?versions on a key', () => {
    expect(codeOf(() => route('PATCH', H, '/'))).toBe('MethodNotAllowed');
    expect(codeOf(() => route('PATCH', H, '/b1k'))).toBe('MethodNotAllowed');
    expect(codeOf(() => route('PATCH', H, '/b1k/k'))).toBe('MethodNotAllowed');
    expect(codeOf(() => route('GET', H, '/b1k?list-type=3'))).toBe('InvalidArgument');
    expect(codeOf(() => route('GET', H, '/b1k/k?versions'))).toBe('InvalidRequest');
    expect(codeOf(() => route('PUT', H, '/b1k/k?partNumber=1'))).toBe('InvalidArgument');
    expect(codeOf(() => route('PUT', H, '/b1k/k?uploadId=u'))).toBe('InvalidArgument');
  });
});
