// Get/PutBucketAcl and Get/PutObjectAcl (s3.md §3.10, §4.9): canned ACLs, x-amz-grant-* headers
// and AccessControlPolicy bodies. Who may call them is decided by authorize() in dispatch
// (READ_ACP / WRITE_ACP); the object forms finish with the object's own ACL.

import type { ObjectAccessUpdate, S3Bucket, S3Object } from '../object-attrs.js';
import { parseAccessControlPolicy, renderAccessControlPolicy } from '../authz/acl.js';
import { checkSettableAcl, granteeDirectory, requestedAcl } from '../authz/acl-request.js';
import { bucketAcl, objectAcl, objectOwner } from '../authz/authorize.js';
import { canListBucket, requireObjectAccess } from '../authz/request.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { readSmallBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';
import type { VersionedParams } from '../routes/object-subresources.js';

const MAX_ACL_BODY = 64 * 1024;

/** The ACL a PUT ?acl asks for: headers or a body, never both (s3.md §3.10). */
async function aclOfPut(ctx: S3Context, ownerId: string): Promise<ObjectAccessUpdate> {
  const fromHeaders = requestedAcl(ctx.headers, ownerId, ctx.services.accounts);
  const body = (await readSmallBody(ctx, MAX_ACL_BODY)).toString('utf8');
  if (fromHeaders.given) {
    if (body.trim()) throw new S3Error('UnexpectedContent');
    return fromHeaders.grants ? { acl: 'private', grants: fromHeaders.grants } : { acl: fromHeaders.acl };
  }
  if (!body.trim()) throw new S3Error('MissingRequestBodyError', {}, { message: 'Request Body is empty' });
  return { acl: 'private', grants: parseAccessControlPolicy(body, ownerId, granteeDirectory(ctx.services.accounts)) };
}

export async function handleGetBucketAcl(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  sendXml(ctx, renderAccessControlPolicy(bucketAcl(bucket), granteeDirectory(ctx.services.accounts)));
}

export async function handlePutBucketAcl(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const { acl, grants } = await aclOfPut(ctx, bucket.owner);
  checkSettableAcl(bucket, acl, grants);
  const { grants: _old, ...access } = bucket.access ?? {};
  const next: S3Bucket = { ...bucket, acl, access: grants ? { ...access, grants } : access };
  await ctx.services.store.putBucket(next);
  send(ctx, 200);
}

function objectOf(ctx: S3Context, bucket: S3Bucket, versionId: string | undefined): S3Object {
  const key = ctx.resource.key!;
  const record = ctx.services.store.getObject(bucket.name, key, versionId);
  if (!record || record.deleteMarker) {
    // without bucket READ a missing key is AccessDenied, so keys cannot be probed (s3.md §2.13)
    if (ctx.verdict === 'object-acl' && !canListBucket(ctx, bucket)) throw new S3Error('AccessDenied');
    // ACL calls on a delete marker's version answer 405 as GET does (s3.md §3.0.7)
    if (record && versionId !== undefined) throw new S3Error('MethodNotAllowed', { Method: ctx.head.method, ResourceType: 'DeleteMarker' });
    if (versionId !== undefined && versionId !== 'null') throw new S3Error('NoSuchVersion', { Key: key, VersionId: versionId });
    throw new S3Error('NoSuchKey', { Key: key });
  }
  requireObjectAccess(ctx, bucket, record);
  return record;
}

export async function handleGetObjectAcl(ctx: S3Context, params: VersionedParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const record = objectOf(ctx, bucket, params.versionId);
  const headers: Array<readonly [string, string]> = record.versionId !== 'null' ? [['x-amz-version-id', record.versionId]] : [];
  sendXml(ctx, renderAccessControlPolicy(objectAcl(bucket, record.attrs), granteeDirectory(ctx.services.accounts)), headers);
}

export async function handlePutObjectAcl(ctx: S3Context, params: VersionedParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const record = objectOf(ctx, bucket, params.versionId);
  const update = await aclOfPut(ctx, objectOwner(bucket, record.attrs));
  checkSettableAcl(bucket, update.acl, update.grants);
  // the version named (or the latest read before the body) must be the one changed
  await ctx.services.store.updateAttrs(bucket.name, record.key, record.versionId, (attrs) => {
    const { grants: _old, ...rest } = attrs;
    return update.grants ? { ...rest, acl: update.acl, grants: update.grants } : { ...rest, acl: update.acl };
  });
  send(ctx, 200, record.versionId !== 'null' ? [['x-amz-version-id', record.versionId]] : []);
}
