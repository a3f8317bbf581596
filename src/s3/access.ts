// Who may do what (s3.md §2.11–2.13): capability of the key, canned ACL of the bucket or object,
// ownership, and the key's bucket allow-list.

import type { AccessKey, Capability } from '../accounts.js';
import type { BucketRecord, CannedAcl } from '../store/types.js';
import { S3Error } from './errors.js';

export type Principal = { kind: 'anonymous' } | { kind: 'key'; key: AccessKey };

export const CANNED_ACLS: readonly CannedAcl[] = [
  'private', 'public-read', 'public-read-write', 'authenticated-read', 'bucket-owner-read',
  'bucket-owner-full-control', 'aws-exec-read', 'log-delivery-write',
];

/** Parses `x-amz-acl`; undefined when absent. */
export function parseCannedAcl(value: string | undefined): CannedAcl | undefined {
  if (value === undefined) return undefined;
  const acl = value.trim() as CannedAcl;
  if (!CANNED_ACLS.includes(acl)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-acl', ArgumentValue: value });
  }
  return acl;
}

function denied(): never {
  throw new S3Error('AccessDenied');
}

export function isOwner(p: Principal, bucket: BucketRecord): boolean {
  return p.kind === 'key' && p.key.account.canonicalId === bucket.owner;
}

/** Does the canned ACL grant `perm` to a non-owner principal? */
function aclGrants(acl: CannedAcl, p: Principal, perm: 'read' | 'write'): boolean {
  switch (acl) {
    case 'public-read':
      return perm === 'read';
    case 'public-read-write':
      return true;
    case 'authenticated-read':
      return perm === 'read' && p.kind === 'key';
    default:
      return false;
  }
}

export function requireCapability(p: Principal, cap: Capability, bucket?: string): void {
  if (p.kind === 'anonymous') return;
  if (!p.key.capabilities.has(cap)) denied();
  if (bucket !== undefined && p.key.buckets && !p.key.buckets.has(bucket)) denied();
}

/** Bucket-level read (listing, HeadBucket, location) or write (put/delete objects), by the bucket ACL. */
export function canBucket(p: Principal, bucket: BucketRecord, perm: 'read' | 'write'): boolean {
  if (p.kind === 'key') {
    if (!p.key.capabilities.has(perm)) return false;
    if (p.key.buckets && !p.key.buckets.has(bucket.name)) return false;
  }
  return isOwner(p, bucket) || aclGrants(bucket.acl, p, perm);
}

export function requireBucket(p: Principal, bucket: BucketRecord, perm: 'read' | 'write'): void {
  if (!canBucket(p, bucket, perm)) denied();
}

/** Object read is decided by the object's own ACL; the bucket owner owns every object (s3.md §2.11 [DEV]). */
export function canReadObject(p: Principal, bucket: BucketRecord, objectAcl: CannedAcl): boolean {
  if (p.kind === 'key') {
    if (!p.key.capabilities.has('read')) return false;
    if (p.key.buckets && !p.key.buckets.has(bucket.name)) return false;
  }
  return isOwner(p, bucket) || aclGrants(objectAcl, p, 'read');
}

/** Operations reserved to the bucket owner (DeleteBucket, sub-resource configuration). */
export function requireOwner(p: Principal, bucket: BucketRecord, cap: Capability): void {
  requireCapability(p, cap, bucket.name);
  if (!isOwner(p, bucket)) denied();
}

/** `x-amz-expected-bucket-owner` (s3.md §2.11). */
export function checkExpectedOwner(expected: string | undefined, ownerAccountId: string | undefined): void {
  if (expected !== undefined && expected !== ownerAccountId) denied();
}
