// Bucket operations: ListBuckets, CreateBucket, DeleteBucket, HeadBucket, GetBucketLocation and
// the §1.6 sub-resource stubs.

import { isOwnerOnlyAcl, requestedAcl } from '../authz/acl-request.js';
import { BUCKET_OWNER_ENFORCED, OBJECT_OWNERSHIPS } from '../authz/authorize.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { send, sendXml } from '../respond.js';
import { doc, el, escapeXml, isoSeconds, ownerXml } from '../xml.js';
import { readSmallBody } from '../request-body.js';
import { checkMfa } from '../mfa-delete.js';
import type { MfaParams } from '../routes/deletes.js';
import type { ListBucketsParams } from '../routes/list-buckets.js';
import type { S3Bucket } from '../object-attrs.js';

function callerKey(ctx: S3Context) {
  if (ctx.principal.kind !== 'key') throw new S3Error('AccessDenied');
  return ctx.principal.key;
}

export async function handleListBuckets(ctx: S3Context, params: ListBucketsParams): Promise<void> {
  const key = callerKey(ctx);
  const { maxBuckets: max, startAfter: after, bucketRegion: regionFilter } = params;
  const prefix = params.prefix ?? '';
  const region = ctx.services.config.region;
  // a value shaped like no region (ours, or AWS's `xx-name-N`) is refused, as S3 does
  if (regionFilter && regionFilter !== region && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(regionFilter)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'bucket-region', ArgumentValue: regionFilter }, {
      message: `Argument value ${regionFilter} is not a valid AWS Region`,
    });
  }
  const all = ctx.services.store
    .listBuckets(key.account.canonicalId)
    .filter((b) => b.name.startsWith(prefix) && b.name > after && (!regionFilter || regionFilter === region))
    .filter((b) => !key.buckets || key.buckets.has(b.name));
  const page = all.slice(0, max);
  let body = ownerXml({ id: key.account.canonicalId, displayName: key.account.displayName }) + '<Buckets>';
  for (const b of page) {
    body += `<Bucket>${el('Name', b.name)}${el('CreationDate', isoSeconds(b.created))}${el('BucketRegion', region)}</Bucket>`;
  }
  body += '</Buckets>';
  if (all.length > page.length) body += el('ContinuationToken', Buffer.from(page.at(-1)!.name).toString('base64url'));
  if (params.prefix !== undefined) body += el('Prefix', prefix);
  sendXml(ctx, doc('ListAllMyBucketsResult', body));
}

/** `<CreateBucketConfiguration><LocationConstraint>` (s3.md §3.2, §4.2). */
function checkLocationConstraint(xml: string, region: string): void {
  if (!xml.trim()) return;
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new S3Error('MalformedXML');
  if (!/^\s*(<\?xml[^>]*\?>\s*)?<CreateBucketConfiguration[\s>/]/.test(xml)) throw new S3Error('MalformedXML');
  if (!/<\/CreateBucketConfiguration>\s*$|<CreateBucketConfiguration[^>]*\/>\s*$/.test(xml)) throw new S3Error('MalformedXML');
  const m = /<LocationConstraint>([^<]*)<\/LocationConstraint>/.exec(xml);
  const lc = m ? m[1]!.trim() : '';
  // s3cmd sends US for us-east-1 (s3.md §3.2)
  if (lc === '' || lc === region || (lc === 'US' && region === 'us-east-1')) return;
  throw new S3Error('InvalidLocationConstraint', { LocationConstraint: lc });
}

/** The first path segment of the operator endpoints (health, metrics, admin). */
export const RESERVED_BUCKET = 'tusk';

export async function handleCreateBucket(ctx: S3Context): Promise<void> {
  const key = callerKey(ctx);
  const name = ctx.resource.bucket!;
  // path-style /tusk/... is the operator endpoints' (src/ops/routes.ts), as MinIO reserves `minio`
  if (name === RESERVED_BUCKET) {
    throw new S3Error('InvalidBucketName', { BucketName: name }, { message: `The bucket name '${RESERVED_BUCKET}' is reserved for the server's own endpoints.` });
  }
  const h = ctx.headers;
  const { acl, grants } = requestedAcl(h, key.account.canonicalId, ctx.services.accounts);
  const ownership = h['x-amz-object-ownership'];
  if (ownership !== undefined && !OBJECT_OWNERSHIPS.has(ownership)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-object-ownership', ArgumentValue: ownership });
  }
  if (ownership === BUCKET_OWNER_ENFORCED && !isOwnerOnlyAcl(acl, grants, key.account.canonicalId)) {
    throw new S3Error('InvalidBucketAclWithObjectOwnership');
  }
  const region = ctx.services.config.region;
  checkLocationConstraint((await readSmallBody(ctx, 1 << 20)).toString('utf8'), region);
  const record: S3Bucket = {
    name,
    owner: key.account.canonicalId,
    created: Date.now(),
    acl,
    objectLock: (h['x-amz-bucket-object-lock-enabled'] ?? '').trim().toLowerCase() === 'true',
    versioning: 'Unversioned',
    ...(ownership ? { objectOwnership: ownership } : {}),
    ...(grants ? { access: { grants } } : {}),
  };
  if (record.objectLock) record.versioning = 'Enabled';
  const store = ctx.services.store;
  const existing = store.getBucket(name);
  if (!existing && store.listBuckets(key.account.canonicalId).length >= ctx.services.config.maxBucketsPerAccount) {
    throw new S3Error('TooManyBuckets');
  }
  if (existing || (await store.createBucket(record)) === 'exists') {
    const current = existing ?? store.getBucket(name)!;
    if (current.owner !== key.account.canonicalId) throw new S3Error('BucketAlreadyExists', { BucketName: name });
    // S3's legacy us-east-1 behaviour: the owner re-creating answers 200 and resets the ACL (s3.md §3.2, §8 #1)
    if (region !== 'us-east-1') throw new S3Error('BucketAlreadyOwnedByYou', { BucketName: name });
    const { grants: _old, ...access } = current.access ?? {};
    await store.putBucket({ ...current, acl, access: grants ? { ...access, grants } : access });
  }
  send(ctx, 200, [['Location', `/${name}`]]);
}

export async function handleDeleteBucket(ctx: S3Context, params: MfaParams): Promise<void> {
  const bucket = bucketOf(ctx);
  // an x-amz-mfa header is validated but never required here (s3.md §2.14)
  checkMfa(ctx, bucket, params.mfa, false);
  const result = await ctx.services.store.deleteBucket(bucket.name);
  if (result === 'not-empty') throw new S3Error('BucketNotEmpty', { BucketName: bucket.name });
  if (result === 'missing') throw new S3Error('NoSuchBucket', { BucketName: bucket.name });
  send(ctx, 204);
}

export async function handleHeadBucket(ctx: S3Context): Promise<void> {
  bucketOf(ctx);
  send(ctx, 200, [
    ['x-amz-bucket-region', ctx.services.config.region],
    ['x-amz-access-point-alias', 'false'],
  ]);
}

export async function handleGetBucketLocation(ctx: S3Context): Promise<void> {
  // the bucket exists and the caller may read it: dispatch checked both
  const region = ctx.services.config.region;
  // us-east-1 is the empty element (s3.md §3.5)
  sendXml(ctx, doc('LocationConstraint', region === 'us-east-1' ? '' : escapeXml(region)));
}

const STUB_NOT_FOUND: Record<string, ConstructorParameters<typeof S3Error>[0]> = {
  lifecycle: 'NoSuchLifecycleConfiguration',
  replication: 'ReplicationConfigurationNotFoundError',
};

const STUB_EMPTY_DOCS: Record<string, string> = {
  accelerate: 'AccelerateConfiguration',
};

export async function handleGetBucketSubresourceStub(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const sub = ctx.route.subresource!;
  const notFound = STUB_NOT_FOUND[sub];
  if (notFound) throw new S3Error(notFound, { BucketName: bucket.name });
  if (STUB_EMPTY_DOCS[sub]) return sendXml(ctx, doc(STUB_EMPTY_DOCS[sub], ''));
  if (sub === 'requestPayment') return sendXml(ctx, doc('RequestPaymentConfiguration', el('Payer', 'BucketOwner')));
  throw new S3Error('NotImplemented', {}, { message: `The ${sub} sub-resource is not implemented` });
}

export async function handlePutBucketSubresourceStub(ctx: S3Context): Promise<void> {
  throw new S3Error('NotImplemented', {}, { message: `The ${ctx.route.subresource} sub-resource is not implemented` });
}

export async function handleDeleteBucketSubresourceStub(ctx: S3Context): Promise<void> {
  send(ctx, 204);
}

