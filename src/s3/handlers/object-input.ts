// What a request says about the object it creates (PutObject, CopyObject with REPLACE,
// CreateMultipartUpload): storage class, user metadata, stored system headers, ACL, tags, write
// conditionals, and the headers that imply features Tusk does not have (s3.md §3.0.3–3.0.4).

import type { S3Context } from '../context.js';
import { parseCannedAcl, principalId } from '../access.js';
import { checkSettableAcl, requestedAcl } from '../authz/acl-request.js';
import { ownerOfNewObject } from '../authz/authorize.js';
import { S3Error } from '../errors/errors.js';
import type { S3Bucket, S3ObjectAttrs } from '../object-attrs.js';
import { lockOfNewVersion } from '../object-lock.js';
import { parseTaggingHeader } from '../tagging.js';
import { WALRUS_STORAGE_CLASS } from '../walrus-objects.js';
import type { S3Operation } from '../operations.js';

const MAX_USER_METADATA = 2048;
const STORABLE_CLASSES = new Set(['STANDARD', 'REDUCED_REDUNDANCY', 'STANDARD_IA', 'ONEZONE_IA', 'INTELLIGENT_TIERING', 'GLACIER_IR']);
const STORED_HEADERS = ['cache-control', 'content-disposition', 'content-language', 'expires', 'x-amz-website-redirect-location'];
/** S3's Content-Type when the request names none (s3.md §3.0.3) */
export const DEFAULT_CONTENT_TYPE = 'binary/octet-stream';

type Headers = Readonly<Record<string, string>>;

/** Requests that can store an object of storage class WALRUS so far (walrus-objects.ts). */
const WALRUS_WRITES: ReadonlySet<S3Operation> = new Set<S3Operation>(['PutObject', 'CopyObject', 'CreateMultipartUpload']);

export function storageClassOf(ctx: S3Context, headers: Headers): string {
  const v = headers['x-amz-storage-class'];
  if (v === undefined) return 'STANDARD';
  const sc = v.trim();
  if (sc === WALRUS_STORAGE_CLASS) {
    if (!ctx.services.walrus) {
      throw new S3Error('InvalidStorageClass', { StorageClassRequested: v }, { message: 'Storage class WALRUS needs the publisher (--publisher-listen) on this server' });
    }
    if (!WALRUS_WRITES.has(ctx.route.op)) {
      throw new S3Error('NotImplemented', {}, { message: `Storage class WALRUS is not implemented for ${ctx.route.op} yet` });
    }
    return sc;
  }
  if (!STORABLE_CLASSES.has(sc)) throw new S3Error('InvalidStorageClass', { StorageClassRequested: v });
  return sc;
}

export function userMetadataOf(headers: Headers): Record<string, string> {
  const meta: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('x-amz-meta-')) continue;
    const short = name.slice('x-amz-meta-'.length);
    meta[short] = value;
    size += Buffer.byteLength(short) + Buffer.byteLength(value);
  }
  if (size > MAX_USER_METADATA) throw new S3Error('MetadataTooLarge', { Size: size, MaxSizeAllowed: MAX_USER_METADATA });
  return meta;
}

export function storedHeadersOf(headers: Headers, contentEncoding: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of STORED_HEADERS) if (headers[name] !== undefined) out[name] = headers[name]!;
  const redirect = out['x-amz-website-redirect-location'];
  if (redirect !== undefined && !/^(\/|https?:\/\/)/.test(redirect)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-website-redirect-location', ArgumentValue: redirect }, {
      message: 'The website redirect location must have a prefix of \'http://\' or \'https://\' or \'/\'.',
    });
  }
  if (contentEncoding) out['content-encoding'] = contentEncoding;
  return out;
}

/**
 * The attrs a creating request gives its object (without checksum and part layout): from request
 * headers (PutObject, CopyObject, CreateMultipartUpload) or lower-cased form fields (POST upload).
 * The ACL (canned or x-amz-grant-*) and object-lock headers are checked against the bucket.
 */
export function objectAttrsOf(ctx: S3Context, bucket: S3Bucket, headers: Headers, contentEncoding: string | undefined): S3ObjectAttrs {
  const owner = ownerOfNewObject(bucket, ctx.principal, parseCannedAcl(headers['x-amz-acl']));
  const { acl, grants, given } = requestedAcl(headers, owner, ctx.services.accounts);
  // a write that names no ACL is always taken, whoever writes (AWS *Controlling ownership*)
  if (given) checkSettableAcl(bucket, acl, grants, principalId(ctx.principal));
  const attrs: S3ObjectAttrs = {
    contentType: headers['content-type'] ?? DEFAULT_CONTENT_TYPE,
    storageClass: storageClassOf(ctx, headers),
    acl,
    ...(grants ? { grants } : {}),
    headers: storedHeadersOf(headers, contentEncoding),
    meta: userMetadataOf(headers),
    ...lockOfNewVersion(headers, bucket, Date.now()),
  };
  if (owner !== bucket.owner) attrs.owner = owner;
  const tags = parseTaggingHeader(headers['x-amz-tagging']);
  if (tags && tags.length > 0) attrs.tags = tags;
  return attrs;
}
