// Runs the one authorize() for a classified request (called by dispatch before any handler) and
// gives handlers the object-level step they alone can take: the object's own ACL.

import { S3Error } from '../errors/errors.js';
import { parseTaggingHeader } from '../tagging.js';
import type { S3Context } from '../context.js';
import type { S3Bucket, S3Object, S3ObjectAttrs } from '../object-attrs.js';
import { principalId } from '../access.js';
import type { Upload } from '../../store/types.js';
import { OPERATION_ACCESS, actionOf, versionAccess, type AclNeed, type OperationAccess } from './actions.js';
import { allowed, authorize, objectAcl, objectAclAllows, objectOwner, type Verdict } from './authorize.js';
import type { ConditionValues } from './policy.js';

const SIGV4 = 'AWS4-HMAC-SHA256';

let lastNow = 0;
let lastNowText = '';
/** aws:CurrentTime, formatted once per millisecond: formatting a date costs more than the rest of a policy. */
function currentTimeText(): string {
  const now = Date.now();
  if (now !== lastNow) (lastNow = now), (lastNowText = new Date(now).toISOString());
  return lastNowText;
}

/** Condition keys from the request (AWS *Amazon S3 condition keys*, *AWS global condition context keys*). */
function conditionValues(ctx: S3Context): ConditionValues {
  const h = ctx.headers;
  const q = ctx.query;
  const p = ctx.principal;
  return (key) => {
    switch (key) {
      // Tusk speaks plain HTTP; TLS is terminated in front of it, if at all
      case 'aws:securetransport': return ctx.head.secure ? 'true' : 'false';
      case 'aws:sourceip': return ctx.head.remoteAddress?.();
      case 'aws:currenttime': return currentTimeText();
      case 'aws:epochtime': return String(Math.floor(Date.now() / 1000));
      case 'aws:useragent': return h['user-agent'];
      case 'aws:referer': return h['referer'];
      case 'aws:principaltype': return p.kind === 'anonymous' ? 'Anonymous' : 'Account';
      case 'aws:principalaccount': return p.kind === 'key' ? p.key.account.accountId : undefined;
      case 'aws:userid': return principalId(p);
      case 's3:prefix': return q.get('prefix');
      case 's3:delimiter': return q.get('delimiter');
      case 's3:max-keys': return q.get('max-keys');
      case 's3:versionid': return q.get('versionId');
      // conditional writes and deletes (AWS *Enforce conditional writes/deletes*)
      case 's3:if-match': return h['if-match'];
      case 's3:if-none-match': return h['if-none-match'];
      case 's3:authtype': return ctx.auth.kind === 'anonymous' ? undefined : ctx.auth.presigned ? 'REST-QUERY-STRING' : 'REST-HEADER';
      case 's3:signatureversion': return ctx.auth.kind === 'anonymous' ? undefined : (ctx.auth.signatureVersion ?? SIGV4);
      case 's3:x-amz-acl':
      case 's3:x-amz-content-sha256':
      case 's3:x-amz-copy-source':
      case 's3:x-amz-metadata-directive':
      case 's3:x-amz-storage-class':
      case 's3:x-amz-server-side-encryption':
      case 's3:x-amz-server-side-encryption-customer-algorithm':
      case 's3:x-amz-server-side-encryption-aws-kms-key-id':
      case 's3:x-amz-website-redirect-location':
      case 's3:x-amz-grant-full-control':
      case 's3:x-amz-grant-read':
      case 's3:x-amz-grant-write':
      case 's3:x-amz-grant-read-acp':
      case 's3:x-amz-grant-write-acp':
        return h[key.slice(3)];
      // the lock a PutObject asks for (AWS *Amazon S3 condition keys*: s3:object-lock-*)
      case 's3:object-lock-mode': return h['x-amz-object-lock-mode'];
      case 's3:object-lock-retain-until-date': return h['x-amz-object-lock-retain-until-date'];
      case 's3:object-lock-legal-hold': return h['x-amz-object-lock-legal-hold'];
      default:
        if (key.startsWith(EXISTING_TAG)) return tagValue(existingTags(ctx), key.slice(EXISTING_TAG.length));
        if (key.startsWith(REQUEST_TAG)) return tagValue(requestTags(ctx), key.slice(REQUEST_TAG.length));
        return undefined;
    }
  };
}

const EXISTING_TAG = 's3:existingobjecttag/';
const REQUEST_TAG = 's3:requestobjecttag/';

/** A tag's value by key; condition keys reach here lower-cased, so tag keys match without case. */
function tagValue(tags: ReadonlyArray<readonly [string, string]> | undefined, key: string): string | undefined {
  return tags?.find(([k]) => k.toLowerCase() === key)?.[1];
}

/** The tags of the object (or version) the request names, read only when a condition asks. */
function existingTags(ctx: S3Context): ReadonlyArray<readonly [string, string]> | undefined {
  const { bucket, key } = ctx.resource;
  if (bucket === undefined || key === undefined) return undefined;
  return ctx.services.store.getObject(bucket, key, ctx.query.get('versionId'))?.attrs?.tags;
}

/** The tags the request sets (x-amz-tagging); a malformed header is the handler's error, not a match. */
function requestTags(ctx: S3Context): ReadonlyArray<readonly [string, string]> | undefined {
  try {
    return parseTaggingHeader(ctx.headers['x-amz-tagging']);
  } catch {
    return undefined;
  }
}

const objectArn = (bucket: string, key: string): string => `arn:aws:s3:::${bucket}/${key}`;

/** The policy resource: the object for object-level actions, else the bucket. */
function arnOf(ctx: S3Context, access: OperationAccess): string {
  const { bucket, key } = ctx.resource;
  if (bucket === undefined) return '*';
  return key === undefined || access.scope === 'bucket' ? `arn:aws:s3:::${bucket}` : objectArn(bucket, key);
}

/** The row of this request: its operation's, or the by-version one when it names a version id. */
function requestAccess(ctx: S3Context): OperationAccess {
  return versionAccess(OPERATION_ACCESS[ctx.route.op], ctx.query.has('versionId'));
}

/** authorize() for `access` in this request's context (the caller, its bucket and resource). */
export function verdictFor(ctx: S3Context, access: OperationAccess, bucket: S3Bucket | undefined, values = conditionValues(ctx)): Verdict {
  return authorize({
    principal: ctx.principal,
    access,
    action: actionOf(access, ctx.route.subresource),
    bucket,
    arn: arnOf(ctx, access),
    values,
  });
}

/**
 * DeleteObjects' step for each key of its body (AWS *DeleteObjects*: s3:DeleteObject on each
 * object, s3:DeleteObjectVersion for one named by version id): AccessDenied for that key when a
 * policy denies it. The request itself passed the bucket-level gate in dispatch. `ifMatch` is the
 * entry's `<ETag>`, the key's s3:if-match.
 */
export function requireKeyDeletable(ctx: S3Context, bucket: S3Bucket, key: string, versionId: string | undefined, ifMatch?: string): void {
  const base = conditionValues(ctx);
  const values: ConditionValues = (name) => (name === 's3:versionid' ? versionId : name === 's3:if-match' ? ifMatch : base(name));
  const verdict = objectVerdict(ctx, versionAccess(OPERATION_ACCESS.DeleteObject, versionId !== undefined), bucket, key, values);
  if (verdict === 'deny') throw new S3Error('AccessDenied');
  requireEtagReadable(ctx, bucket, key, ifMatch, values);
}

/**
 * A delete conditional on an ETag (If-Match other than `*`) reads the object's ETag, so it needs
 * s3:GetObject on the object besides s3:DeleteObject (AWS *Enforce conditional deletes*). A
 * missing object has nothing to read: the delete's own outcome answers for it.
 */
export function requireEtagReadable(ctx: S3Context, bucket: S3Bucket, key: string, ifMatch: string | undefined, values = conditionValues(ctx)): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const object = ctx.services.store.getObject(bucket.name, key);
  if (object) requireReadable(ctx, bucket, object, false, values);
}

/** authorize() for `access` on object `key` of `bucket`, not (only) the one the request names. */
function objectVerdict(ctx: S3Context, access: OperationAccess, bucket: S3Bucket, key: string, values: ConditionValues): Verdict {
  return authorize({
    principal: ctx.principal,
    access,
    action: actionOf(access, undefined),
    bucket,
    arn: objectArn(bucket.name, key),
    values,
  });
}

/** Dispatch's gate: AccessDenied unless allowed or left to the object's ACL. */
export function authorizeRequest(ctx: S3Context, bucket: S3Bucket | undefined): Exclude<Verdict, 'deny'> {
  const verdict = verdictFor(ctx, requestAccess(ctx), bucket);
  if (verdict === 'deny') throw new S3Error('AccessDenied');
  ctx.summary.aclRequired = verdict === 'acl';
  return verdict;
}

/**
 * May the caller list this bucket where the request's key is? (missing keys are 404 only then,
 * s3.md §2.13): s3:prefix is the key, so that a ListBucket allowed under a prefix tells of the
 * keys under it only.
 */
export function canListBucket(ctx: S3Context, bucket: S3Bucket): boolean {
  const values = conditionValues(ctx);
  const key = ctx.resource.key;
  return allowed(verdictFor(ctx, OPERATION_ACCESS.ListObjects, bucket, (k) => (k === 's3:prefix' && key !== undefined ? key : values(k))));
}

/** The object step for operations whose ACL permission is on the object (GetObject, Get/PutObjectAcl). */
export function requireObjectAccess(ctx: S3Context, bucket: S3Bucket, object: S3Object): void {
  const need = requestAccess(ctx).acl;
  if (ctx.verdict !== 'object-acl' && !ownedElsewhere(bucket, object, need)) return;
  requireObjectAcl(ctx, bucket, object, need!);
}

/** The object's own ACL decides: AccessDenied unless it grants `need`; the request then "required an ACL". */
function requireObjectAcl(ctx: S3Context, bucket: S3Bucket, object: S3Object, need: AclNeed): void {
  if (!objectAclAllows(ctx.principal, bucket, objectAcl(bucket, object.attrs), need)) throw new S3Error('AccessDenied');
  ctx.summary.aclRequired = true;
}

/**
 * An object another account owns: the bucket owner's ownership and bucket policy grant nothing on
 * it, its own ACL decides (AWS *How Amazon S3 authorizes a request for an object operation*: "the
 * bucket owner can't grant permissions on objects that it doesn't own"). Operations whose ACL
 * permission is on the bucket (DeleteObject: WRITE) stay the bucket's.
 */
function ownedElsewhere(bucket: S3Bucket, object: S3Object, need: AclNeed | undefined): boolean {
  return need?.on === 'object' && objectOwner(bucket, object.attrs) !== bucket.owner;
}

/**
 * May the caller read `object` of `bucket`, another object than the request's own or in another
 * operation (the source of CopyObject and UploadPartCopy, AWS *CopyObject*: s3:GetObject on the
 * source, s3:GetObjectVersion when the source names a version)? AccessDenied if not.
 */
export function requireReadable(ctx: S3Context, bucket: S3Bucket, object: S3Object, byVersionId: boolean, values = conditionValues(ctx)): void {
  const access = versionAccess(OPERATION_ACCESS.GetObject, byVersionId);
  const verdict = objectVerdict(ctx, access, bucket, object.key, values);
  if (allowed(verdict) && !ownedElsewhere(bucket, object, access.acl)) return;
  if (verdict === 'deny') throw new S3Error('AccessDenied');
  requireObjectAcl(ctx, bucket, object, access.acl!);
}

/**
 * The upload step of AbortMultipartUpload and ListParts for a caller neither the bucket owner nor
 * allowed by the policy: its initiator passes (AWS *Multipart upload API and permissions*; no ACL
 * permission grants either action). A missing upload is AccessDenied unless the caller may list
 * the bucket's uploads, so that one without access learns nothing (as for objects, s3.md §2.13).
 */
export function requireUploadAccess(ctx: S3Context, bucket: S3Bucket, upload: Upload<S3ObjectAttrs> | undefined): void {
  if (ctx.verdict !== 'initiator') return;
  const mayAct = upload ? upload.attrs.initiator === principalId(ctx.principal) : allowed(verdictFor(ctx, OPERATION_ACCESS.ListMultipartUploads, bucket));
  if (!mayAct) throw new S3Error('AccessDenied');
}

/** The object step by key: a missing object is AccessDenied unless the caller may list (s3.md §2.13). */
export function requireObjectAccessByKey(ctx: S3Context, bucket: S3Bucket): void {
  const record = ctx.services.store.getObject(bucket.name, ctx.resource.key!);
  if (!record) {
    if (!canListBucket(ctx, bucket)) throw new S3Error('AccessDenied');
    return;
  }
  requireObjectAccess(ctx, bucket, record);
}
