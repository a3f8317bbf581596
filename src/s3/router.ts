// Classifies a request: host/path → resource (s3.md §1.1–1.4), then method + sub-resource query
// → operation (§1.5–1.6). It only classifies; handlers act.

import { percentDecode } from '../http/query.js';
import type { RequestHead } from '../http/request-head.js';
import { S3Error } from './errors/errors.js';
import type { S3Operation } from './operations.js';

export const MAX_KEY_BYTES = 1024;

export interface Resource {
  style: 'path' | 'virtual';
  /** undefined at service level */
  bucket?: string;
  /** decoded key; undefined at bucket level */
  key?: string;
}

export interface Route {
  op: S3Operation;
  /** For the §1.6 stubs: which sub-resource. */
  subresource?: string;
}

/** Base domains sorted longest first, lower-case, so that the longest match wins (§1.1). */
export function normalizeDomains(domains: readonly string[]): string[] {
  return [...new Set(domains.map((d) => d.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean))].sort(
    (a, b) => b.length - a.length,
  );
}

function hostName(host: string | undefined): string {
  let h = (host ?? '').toLowerCase();
  if (h.startsWith('[')) h = h.slice(0, h.indexOf(']') + 1);
  else {
    const colon = h.lastIndexOf(':');
    if (colon >= 0) h = h.slice(0, colon);
  }
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

const BUCKET_CHARS = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const BAD_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const BAD_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

/** s3.md §1.3 */
export function isValidBucketName(name: string): boolean {
  if (!BUCKET_CHARS.test(name)) return false;
  if (name.includes('..') || name.includes('.-') || name.includes('-.')) return false;
  if (IPV4.test(name)) return false;
  if (BAD_PREFIXES.some((p) => name.startsWith(p))) return false;
  if (BAD_SUFFIXES.some((s) => name.endsWith(s))) return false;
  return true;
}

function decodeKey(raw: string): string {
  // '+' in a path is a literal plus (§1.2)
  const key = percentDecode(raw, false);
  if (key === undefined) throw new S3Error('InvalidURI');
  const size = Buffer.byteLength(key);
  if (size > MAX_KEY_BYTES) throw new S3Error('KeyTooLongError', { Size: size, MaxSizeAllowed: MAX_KEY_BYTES });
  return key;
}

function checkBucket(name: string): string {
  if (!isValidBucketName(name)) throw new S3Error('InvalidBucketName', { BucketName: name });
  return name;
}

/** The request names its bucket in the Host header (§1.1), whatever its path. */
export function isVirtualHostStyle(head: RequestHead, domains: readonly string[]): boolean {
  const h = hostName(head.headers['host']);
  return !domains.includes(h) && domains.some((d) => h.endsWith(`.${d}`));
}

/** Host and raw path → service, bucket or object (§1.1). Throws InvalidURI / InvalidBucketName / KeyTooLongError. */
export function resolveResource(head: RequestHead, domains: readonly string[]): Resource {
  const h = hostName(head.headers['host']);
  const path = head.rawPath || '/';
  if (!path.startsWith('/')) throw new S3Error('InvalidURI');
  if (!domains.includes(h)) {
    const base = domains.find((d) => h.endsWith(`.${d}`));
    if (base) {
      const bucket = checkBucket(h.slice(0, h.length - base.length - 1));
      const rest = path.slice(1);
      return rest ? { style: 'virtual', bucket, key: decodeKey(rest) } : { style: 'virtual', bucket };
    }
  }
  const slash = path.indexOf('/', 1);
  const rawBucket = slash < 0 ? path.slice(1) : path.slice(1, slash);
  if (!rawBucket) return { style: 'path' };
  const bucketName = percentDecode(rawBucket, false);
  if (bucketName === undefined) throw new S3Error('InvalidURI');
  const bucket = checkBucket(bucketName);
  const rest = slash < 0 ? '' : path.slice(slash + 1);
  return rest ? { style: 'path', bucket, key: decodeKey(rest) } : { style: 'path', bucket };
}

/** §1.6: bucket sub-resources answered with S3's "not configured" result. */
export const BUCKET_STUBS = [
  'replication', 'logging', 'notification', 'requestPayment', 'accelerate', 'analytics', 'metrics',
  'inventory', 'intelligent-tiering',
] as const;

const ALLOWED: Record<string, string> = {
  SERVICE: 'GET, OPTIONS',
  BUCKET: 'GET, PUT, HEAD, DELETE, POST, OPTIONS',
  OBJECT: 'GET, PUT, HEAD, DELETE, POST, OPTIONS',
};

function methodNotAllowed(method: string, resourceType: keyof typeof ALLOWED): never {
  throw new S3Error('MethodNotAllowed', { Method: method, ResourceType: resourceType }, {
    headers: { Allow: ALLOWED[resourceType]! },
  });
}

function classifyService(method: string): Route {
  if (method === 'GET') return { op: 'ListBuckets' };
  if (method === 'OPTIONS') return { op: 'CorsPreflight' };
  return methodNotAllowed(method, 'SERVICE');
}

function classifyBucket(method: string, q: Map<string, string>): Route {
  const stub = BUCKET_STUBS.find((s) => q.has(s));
  switch (method) {
    case 'PUT':
      if (q.has('versioning')) return { op: 'PutBucketVersioning' };
      if (q.has('acl')) return { op: 'PutBucketAcl' };
      if (q.has('cors')) return { op: 'PutBucketCors' };
      if (q.has('policy')) return { op: 'PutBucketPolicy' };
      if (q.has('ownershipControls')) return { op: 'PutBucketOwnershipControls' };
      if (q.has('publicAccessBlock')) return { op: 'PutPublicAccessBlock' };
      if (q.has('object-lock')) return { op: 'PutObjectLockConfiguration' };
      if (q.has('lifecycle')) return { op: 'PutBucketLifecycleConfiguration' };
      if (q.has('website')) return { op: 'PutBucketWebsite' };
      if (q.has('encryption')) return { op: 'PutBucketEncryption' };
      if (q.has('tagging')) return { op: 'PutBucketTagging' };
      if (q.has('notification')) return { op: 'PutBucketNotificationConfiguration' };
      if (stub) return { op: 'PutBucketSubresourceStub', subresource: stub };
      return { op: 'CreateBucket' };
    case 'GET':
      // list-type=1 is version 1 (ListObjects), as with no list-type
      if (q.has('list-type') && q.get('list-type') !== '1') {
        if (q.get('list-type') !== '2') {
          throw new S3Error('InvalidArgument', { ArgumentName: 'list-type', ArgumentValue: q.get('list-type') });
        }
        return { op: 'ListObjectsV2' };
      }
      if (q.has('versions')) return { op: 'ListObjectVersions' };
      if (q.has('uploads')) return { op: 'ListMultipartUploads' };
      if (q.has('location')) return { op: 'GetBucketLocation' };
      if (q.has('versioning')) return { op: 'GetBucketVersioning' };
      if (q.has('acl')) return { op: 'GetBucketAcl' };
      if (q.has('cors')) return { op: 'GetBucketCors' };
      if (q.has('policyStatus')) return { op: 'GetBucketPolicyStatus' };
      if (q.has('policy')) return { op: 'GetBucketPolicy' };
      if (q.has('ownershipControls')) return { op: 'GetBucketOwnershipControls' };
      if (q.has('publicAccessBlock')) return { op: 'GetPublicAccessBlock' };
      if (q.has('object-lock')) return { op: 'GetObjectLockConfiguration' };
      if (q.has('lifecycle')) return { op: 'GetBucketLifecycleConfiguration' };
      if (q.has('website')) return { op: 'GetBucketWebsite' };
      if (q.has('encryption')) return { op: 'GetBucketEncryption' };
      if (q.has('tagging')) return { op: 'GetBucketTagging' };
      if (q.has('notification')) return { op: 'GetBucketNotificationConfiguration' };
      if (stub) return { op: 'GetBucketSubresourceStub', subresource: stub };
      return { op: 'ListObjects' };
    case 'HEAD':
      return { op: 'HeadBucket' };
    case 'DELETE':
      if (q.has('cors')) return { op: 'DeleteBucketCors' };
      if (q.has('policy')) return { op: 'DeleteBucketPolicy' };
      if (q.has('ownershipControls')) return { op: 'DeleteBucketOwnershipControls' };
      if (q.has('publicAccessBlock')) return { op: 'DeletePublicAccessBlock' };
      if (q.has('lifecycle')) return { op: 'DeleteBucketLifecycle' };
      if (q.has('website')) return { op: 'DeleteBucketWebsite' };
      if (q.has('encryption')) return { op: 'DeleteBucketEncryption' };
      if (q.has('tagging')) return { op: 'DeleteBucketTagging' };
      if (stub) return { op: 'DeleteBucketSubresourceStub', subresource: stub };
      return { op: 'DeleteBucket' };
    case 'POST':
      return q.has('delete') ? { op: 'DeleteObjects' } : { op: 'PostObject' };
    case 'OPTIONS':
      return { op: 'CorsPreflight' };
    default:
      return methodNotAllowed(method, 'BUCKET');
  }
}

function classifyObject(method: string, q: Map<string, string>, headers: Readonly<Record<string, string>>): Route {
  const copy = headers['x-amz-copy-source'] !== undefined;
  switch (method) {
    case 'PUT': {
      const part = q.has('partNumber');
      const upload = q.has('uploadId');
      if (part && upload) return { op: copy ? 'UploadPartCopy' : 'UploadPart' };
      // a copy into an upload without a part number is no operation of S3's: 405, as S3 answers
      if (upload && !part && copy) return methodNotAllowed(method, 'OBJECT');
      if (part || upload) {
        throw new S3Error('InvalidArgument', { ArgumentName: part ? 'uploadId' : 'partNumber' }, {
          message: part ? 'This operation does not accept partNumber without uploadId' : 'Both partNumber and uploadId must be specified for an upload part request.',
        });
      }
      if (q.has('acl')) return { op: 'PutObjectAcl' };
      if (q.has('tagging')) return { op: 'PutObjectTagging' };
      if (q.has('retention')) return { op: 'PutObjectRetention' };
      if (q.has('legal-hold')) return { op: 'PutObjectLegalHold' };
      if (copy) return { op: 'CopyObject' };
      return { op: 'PutObject' };
    }
    case 'GET':
      if (q.has('versions')) {
        throw new S3Error('InvalidRequest', {}, { message: 'There is no such thing as the ?versions sub-resource for a key' });
      }
      if (q.has('uploadId')) return { op: 'ListParts' };
      if (q.has('acl')) return { op: 'GetObjectAcl' };
      if (q.has('tagging')) return { op: 'GetObjectTagging' };
      if (q.has('retention')) return { op: 'GetObjectRetention' };
      if (q.has('legal-hold')) return { op: 'GetObjectLegalHold' };
      if (q.has('attributes')) return { op: 'GetObjectAttributes' };
      if (q.has('torrent')) return { op: 'GetObjectTorrent' };
      return { op: 'GetObject' };
    case 'HEAD':
      return { op: 'HeadObject' };
    case 'DELETE':
      if (q.has('uploadId')) return { op: 'AbortMultipartUpload' };
      if (q.has('tagging')) return { op: 'DeleteObjectTagging' };
      return { op: 'DeleteObject' };
    case 'POST':
      if (q.has('uploads')) return { op: 'CreateMultipartUpload' };
      if (q.has('uploadId')) return { op: 'CompleteMultipartUpload' };
      if (q.has('restore')) return { op: 'RestoreObject' };
      if (q.has('select')) return { op: 'SelectObjectContent' };
      return methodNotAllowed(method, 'OBJECT');
    case 'OPTIONS':
      return { op: 'CorsPreflight' };
    default:
      return methodNotAllowed(method, 'OBJECT');
  }
}

/** Method + resource level + sub-resource query → operation (§1.5). Throws MethodNotAllowed / InvalidArgument. */
export function classify(
  method: string,
  resource: Resource,
  query: Map<string, string>,
  headers: Readonly<Record<string, string>>,
): Route {
  if (resource.bucket === undefined) return classifyService(method);
  if (resource.key === undefined) return classifyBucket(method, query);
  return classifyObject(method, query, headers);
}
