// The one authorization decision (AWS *How Amazon S3 authorizes a request*, simplified to one
// deployment): key capabilities and bucket allow-list (s3.md §2.11) → explicit Deny in the bucket
// policy → the bucket owner → an Allow in the policy → an ACL grant → implicit deny. Public access
// block and BucketOwnerEnforced shape the last two steps.

import { isBucketOwner, type Principal } from '../access.js';
import type { CannedAcl } from '../../store/types.js';
import type { S3Bucket, S3ObjectAttrs, StoredAcl } from '../object-attrs.js';
import { aclAllows, effectiveAcl } from './acl.js';
import type { AclNeed, OperationAccess } from './actions.js';
import { compiledPolicy, evaluatePolicy, policyMayAllow, type ConditionValues, type PolicyPrincipal } from './policy.js';

/**
 * `acl`: allowed by a grant of the bucket's ACL and nothing else (the request "required an ACL",
 * as a server access log record says: AWS *Amazon S3 server access log format*, ACL Required);
 * `object-acl`: allowed only if the object's own ACL grants `need` (the handler holds the object);
 * `initiator`: allowed only to the upload's initiator (the handler holds the upload).
 */
export type Verdict = 'allow' | 'acl' | 'deny' | 'object-acl' | 'initiator';

/** The verdicts that let the request through as it stands. */
export function allowed(v: Verdict): boolean {
  return v === 'allow' || v === 'acl';
}

export interface AuthzRequest {
  principal: Principal;
  access: OperationAccess;
  action: string;
  /** the addressed bucket (undefined at service level) */
  bucket?: S3Bucket;
  /** policy resource ARN: `arn:aws:s3:::bucket` or `arn:aws:s3:::bucket/key` */
  arn: string;
  values: ConditionValues;
}

export const BUCKET_OWNER_ENFORCED = 'BucketOwnerEnforced';
export const BUCKET_OWNER_PREFERRED = 'BucketOwnerPreferred';
/** The values of x-amz-object-ownership and PutBucketOwnershipControls (AWS *Controlling ownership of objects*). */
export const OBJECT_OWNERSHIPS: ReadonlySet<string> = new Set([BUCKET_OWNER_ENFORCED, BUCKET_OWNER_PREFERRED, 'ObjectWriter']);

const ANONYMOUS: PolicyPrincipal = Object.freeze({ anonymous: true });
/** one PolicyPrincipal per account, made on its first request (accounts are few and long-lived) */
const principals = new WeakMap<object, PolicyPrincipal>();

export function policyPrincipalOf(p: Principal): PolicyPrincipal {
  if (p.kind === 'anonymous') return ANONYMOUS;
  const account = p.key.account;
  let principal = principals.get(account);
  if (!principal) principals.set(account, (principal = Object.freeze({ anonymous: false, accountId: account.accountId, canonicalId: account.canonicalId })));
  return principal;
}

function keyAllows(p: Principal, access: OperationAccess, bucket: string | undefined): boolean {
  if (p.kind === 'anonymous') return true;
  if (!p.key.capabilities.has(access.capability)) return false;
  return bucket === undefined || !p.key.buckets || p.key.buckets.has(bucket);
}


/** ACLs are disabled by BucketOwnerEnforced (AWS *Controlling ownership of objects*). */
export function aclsDisabled(bucket: S3Bucket): boolean {
  return bucket.objectOwnership === BUCKET_OWNER_ENFORCED;
}

/**
 * Who owns an object (or upload) `p` writes now into `bucket` with the canned ACL `acl` (AWS
 * *Controlling ownership of objects*): BucketOwnerEnforced the bucket owner; BucketOwnerPreferred
 * the bucket owner when the writer sends bucket-owner-full-control, else the writer; ObjectWriter,
 * and a bucket without ownership controls (S3's behaviour before them), the writer. An anonymous
 * write (a public-read-write bucket) is the bucket owner's: Tusk has no anonymous owner to name.
 */
export function ownerOfNewObject(bucket: S3Bucket, p: Principal, acl: CannedAcl | undefined): string {
  if (p.kind === 'anonymous') return bucket.owner;
  if (bucket.objectOwnership === BUCKET_OWNER_ENFORCED) return bucket.owner;
  if (bucket.objectOwnership === BUCKET_OWNER_PREFERRED && acl === 'bucket-owner-full-control') return bucket.owner;
  return p.key.account.canonicalId;
}

/** The owner of a stored object or upload; BucketOwnerEnforced gives the bucket owner every object, older ones too (AWS). */
export function objectOwner(bucket: S3Bucket, attrs: S3ObjectAttrs): string {
  return aclsDisabled(bucket) ? bucket.owner : attrs.owner ?? bucket.owner;
}

/** A stored object's ACL: its grants, or its canned ACL expanded for its owner and the bucket owner. */
export function objectAcl(bucket: S3Bucket, attrs: S3ObjectAttrs): StoredAcl {
  // with ACLs disabled the stored grants count for nothing: S3 shows the bucket owner's full control
  if (aclsDisabled(bucket)) return effectiveAcl('private', undefined, bucket.owner);
  return effectiveAcl(attrs.acl, attrs.grants, objectOwner(bucket, attrs), bucket.owner);
}

export function bucketAcl(bucket: S3Bucket): StoredAcl {
  return effectiveAcl(bucket.acl, bucket.access?.grants, bucket.owner);
}

/** ACL step for object-level needs, once the handler holds the object's ACL. */
export function objectAclAllows(p: Principal, bucket: S3Bucket, acl: StoredAcl, need: AclNeed): boolean {
  if (aclsDisabled(bucket)) return false;
  return aclAllows(acl, p, need.permission, bucket.access?.publicAccessBlock?.ignorePublicAcls ?? false);
}

export function authorize(r: AuthzRequest): Verdict {
  const { principal: p, access, bucket } = r;
  if (access.scope === 'preflight') return 'allow';
  if (!keyAllows(p, access, bucket?.name)) return 'deny';
  if (access.scope === 'service' || !bucket) return p.kind === 'key' ? 'allow' : 'deny';
  const owner = isBucketOwner(p, bucket);
  // only the owner's account may manage the policy, and its own policy cannot lock it out (AWS *PutBucketPolicy*)
  if (access.ownerAlways) return owner ? 'allow' : 'deny';
  const text = bucket.access?.policy;
  const policy = text === undefined ? undefined : compiledPolicy(text, bucket.name);
  const principal = policy && policyPrincipalOf(p);
  let verdict = policy ? evaluatePolicy(policy, principal!, r.action, r.arn, r.values) : 'none';
  if (verdict === 'deny') return 'deny';
  if (owner) return 'allow';
  // the handler decides each key: a caller the policy may allow for some key gets that far
  if (verdict === 'none' && policy && access.perKey && policyMayAllow(policy, principal!, access.perKey)) verdict = 'allow';
  if (verdict !== 'none') {
    // RestrictPublicBuckets: a public policy serves only the owner's account (AWS *Blocking public access*)
    const restricted = policy!.isPublic && (bucket.access?.publicAccessBlock?.restrictPublicBuckets ?? false);
    if (!restricted) return 'allow';
  }
  if (access.initiator) return 'initiator';
  const need = access.acl;
  if (!need || aclsDisabled(bucket)) return 'deny';
  if (need.on === 'object') return 'object-acl';
  return aclAllows(bucketAcl(bucket), p, need.permission, bucket.access?.publicAccessBlock?.ignorePublicAcls ?? false)
    ? 'acl'
    : 'deny';
}
