// Who is calling (s3.md §2.11) and the request-level checks that are not authorization proper:
// the canned ACL header and `x-amz-expected-bucket-owner`. Authorization itself is src/s3/authz/.

import type { AccessKey } from '../accounts.js';
import type { CannedAcl } from '../store/types.js';
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

/** `x-amz-expected-bucket-owner` (s3.md §2.11). */
export function checkExpectedOwner(expected: string | undefined, ownerAccountId: string | undefined): void {
  if (expected !== undefined && expected !== ownerAccountId) throw new S3Error('AccessDenied');
}
