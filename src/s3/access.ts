// Who is calling (s3.md §2.11) and the request-level checks that are not authorization proper:
// the canned ACL header and `x-amz-expected-bucket-owner`. Authorization itself is src/s3/authz/.

import type { AccessKey } from '../identity/accounts.js';
import type { CannedAcl } from '../store/types.js';
import type { S3Context } from './context.js';
import { S3Error } from './errors/errors.js';
import type { S3Bucket } from './object-attrs.js';
import type { OwnerXml } from './xml.js';

export type Principal = { kind: 'anonymous' } | { kind: 'key'; key: AccessKey };

/** An `<Owner>` (or `<Initiator>`) for the account with canonical id `id`. */
export function ownerNamed(ctx: S3Context, id: string): OwnerXml {
  return { id, displayName: ctx.services.accounts.byCanonicalId(id)?.displayName ?? '' };
}

/** Who a principal is, as aws:userid names it: the account's canonical id, or `anonymous`. */
export function principalId(p: Principal): string {
  return p.kind === 'key' ? p.key.account.canonicalId : 'anonymous';
}

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

/**
 * `x-amz-expected-bucket-owner` (and, for a copy's source, `x-amz-source-expected-bucket-owner`):
 * 403 unless the bucket's owner has that account id (s3.md §2.11); for a signed request, 400 when
 * it is no account id (12 digits) at all (an anonymous one is refused either way, as Ceph's
 * s3-tests and versitygw's record of S3 both expect). Every bucket-level and object operation
 * honours it, as S3 does.
 */
export function checkExpectedOwner(ctx: S3Context, bucket: S3Bucket, header = 'x-amz-expected-bucket-owner'): void {
  const expected = ctx.headers[header];
  if (expected === undefined) return;
  if (!/^\d{12}$/.test(expected) && ctx.principal.kind !== 'anonymous') {
    throw new S3Error('InvalidBucketOwnerAWSAccountID', { ArgumentName: header, ArgumentValue: expected });
  }
  if (expected !== ctx.services.accounts.byCanonicalId(bucket.owner)?.accountId) throw new S3Error('AccessDenied');
}

export function isBucketOwner(p: Principal, bucket: S3Bucket): boolean {
  return p.kind === 'key' && p.key.account.canonicalId === bucket.owner;
}
