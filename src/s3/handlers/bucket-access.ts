// Bucket access configuration: ownership controls, bucket policy (+ status) and the public access
// block (AWS *PutBucketOwnershipControls*, *PutBucketPolicy*, *GetBucketPolicyStatus*,
// *PutPublicAccessBlock*). Only the bucket owner reaches these (authorize() in dispatch).

import type { BucketAccess, PublicAccessBlockRecord, S3Bucket } from '../object-attrs.js';
import { isOwnerOnlyAcl } from '../authz/acl-request.js';
import { BUCKET_OWNER_ENFORCED, OBJECT_OWNERSHIPS } from '../authz/authorize.js';
import { compiledPolicy, MAX_POLICY_BYTES } from '../authz/policy.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { readSmallBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';
import { doc, el } from '../xml.js';
import { parseXmlBody, xmlBooleanOf, xmlChildren, xmlTextOf } from '../xml-input.js';

const MAX_CONFIG_BODY = 64 * 1024;

async function saveAccess(ctx: S3Context, bucket: S3Bucket, change: Partial<BucketAccess>, extra: Partial<S3Bucket> = {}): Promise<void> {
  const access: BucketAccess = { ...bucket.access, ...change };
  for (const k of Object.keys(access) as Array<keyof BucketAccess>) if (access[k] === undefined) delete access[k];
  await ctx.services.store.putBucket({ ...bucket, ...extra, access });
}

// --- Ownership controls ----------------------------------------------------------------------

export async function handleGetBucketOwnershipControls(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (!bucket.objectOwnership) throw new S3Error('OwnershipControlsNotFoundError', { BucketName: bucket.name });
  sendXml(ctx, doc('OwnershipControls', `<Rule>${el('ObjectOwnership', bucket.objectOwnership)}</Rule>`));
}

export async function handlePutBucketOwnershipControls(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const body = (await readSmallBody(ctx, MAX_CONFIG_BODY)).toString('utf8');
  const root = parseXmlBody(body, 'OwnershipControls', ['Rule']);
  const rules = xmlChildren(root['Rule']);
  const value = rules.length === 1 ? xmlTextOf(rules[0]!['ObjectOwnership']) : undefined;
  if (value === undefined || !OBJECT_OWNERSHIPS.has(value)) throw new S3Error('MalformedXML');
  // ACLs other than owner-only would stop counting silently: S3 refuses instead
  if (value === BUCKET_OWNER_ENFORCED && !isOwnerOnlyAcl(bucket.acl, bucket.access?.grants, bucket.owner)) {
    throw new S3Error('InvalidBucketAclWithObjectOwnership');
  }
  await ctx.services.store.putBucket({ ...bucket, objectOwnership: value });
  send(ctx, 200);
}

export async function handleDeleteBucketOwnershipControls(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const { objectOwnership: _gone, ...rest } = bucket;
  await ctx.services.store.putBucket(rest);
  send(ctx, 204);
}

// --- Bucket policy ---------------------------------------------------------------------------

export async function handlePutBucketPolicy(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const text = (await readSmallBody(ctx, MAX_POLICY_BYTES)).toString('utf8');
  if (!text.trim()) throw new S3Error('MalformedPolicy', {}, { message: 'Policies must be valid JSON and the first byte must be \'{\'' });
  const policy = compiledPolicy(text, bucket.name);
  if (policy.isPublic && bucket.access?.publicAccessBlock?.blockPublicPolicy) throw new S3Error('AccessDenied');
  await saveAccess(ctx, bucket, { policy: text });
  send(ctx, 204);
}

function storedPolicy(bucket: S3Bucket): string {
  const text = bucket.access?.policy;
  if (text === undefined) throw new S3Error('NoSuchBucketPolicy', { BucketName: bucket.name });
  return text;
}

export async function handleGetBucketPolicy(ctx: S3Context): Promise<void> {
  send(ctx, 200, [], storedPolicy(bucketOf(ctx)), 'application/json');
}

export async function handleDeleteBucketPolicy(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  await saveAccess(ctx, bucket, { policy: undefined });
  send(ctx, 204);
}

export async function handleGetBucketPolicyStatus(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const isPublic = compiledPolicy(storedPolicy(bucket), bucket.name).isPublic;
  sendXml(ctx, doc('PolicyStatus', el('IsPublic', isPublic)));
}

// --- Public access block ---------------------------------------------------------------------

const PAB_FIELDS: ReadonlyArray<readonly [keyof PublicAccessBlockRecord, string]> = [
  ['blockPublicAcls', 'BlockPublicAcls'],
  ['ignorePublicAcls', 'IgnorePublicAcls'],
  ['blockPublicPolicy', 'BlockPublicPolicy'],
  ['restrictPublicBuckets', 'RestrictPublicBuckets'],
];

export async function handleGetPublicAccessBlock(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const pab = bucket.access?.publicAccessBlock;
  if (!pab) throw new S3Error('NoSuchPublicAccessBlockConfiguration', { BucketName: bucket.name });
  sendXml(ctx, doc('PublicAccessBlockConfiguration', PAB_FIELDS.map(([f, name]) => el(name, pab[f])).join('')));
}

export async function handlePutPublicAccessBlock(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const body = (await readSmallBody(ctx, MAX_CONFIG_BODY)).toString('utf8');
  const root = parseXmlBody(body, 'PublicAccessBlockConfiguration');
  const pab = {} as PublicAccessBlockRecord;
  for (const [f, name] of PAB_FIELDS) {
    pab[f] = xmlBooleanOf(root[name]) ?? false;
  }
  await saveAccess(ctx, bucket, { publicAccessBlock: pab });
  send(ctx, 200);
}

export async function handleDeletePublicAccessBlock(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  await saveAccess(ctx, bucket, { publicAccessBlock: undefined });
  send(ctx, 204);
}

