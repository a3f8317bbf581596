// The ACL a write request asks for: `x-amz-acl`, `x-amz-grant-*` headers or (ACL calls) an
// AccessControlPolicy body, checked against the bucket's ownership setting and public access block.

import type { Accounts } from '../../identity/accounts.js';
import type { CannedAcl } from '../../store/types.js';
import type { ObjectAccessUpdate, S3Bucket, StoredAcl } from '../object-attrs.js';
import { parseCannedAcl } from '../access.js';
import { S3Error } from '../errors/errors.js';
import { grantsFromHeaders, isPublicAcl, effectiveAcl, type GranteeDirectory } from './acl.js';
import { aclsDisabled } from './authorize.js';

export function granteeDirectory(accounts: Accounts): GranteeDirectory {
  return {
    hasCanonicalId: (id) => accounts.byCanonicalId(id) !== undefined,
    canonicalIdOfEmail: (email) => accounts.byEmail?.(email)?.canonicalId,
    displayNameOf: (id) => accounts.byCanonicalId(id)?.displayName,
  };
}

/** From headers: the canned ACL (default private) or explicit grants; undefined grants when canned. */
export function requestedAcl(
  headers: Readonly<Record<string, string>>,
  ownerId: string,
  accounts: Accounts,
): ObjectAccessUpdate & { given: boolean } {
  const canned = parseCannedAcl(headers['x-amz-acl']);
  const grants = grantsFromHeaders(headers, ownerId, granteeDirectory(accounts));
  return { acl: canned ?? 'private', ...(grants ? { grants } : {}), given: canned !== undefined || grants !== undefined };
}

function ownerOnly(acl: StoredAcl, bucketOwner: string): boolean {
  return acl.grants.every((g) => g.permission === 'FULL_CONTROL' && g.grantee.type === 'CanonicalUser' && g.grantee.id === bucketOwner);
}

/** May this ACL be set where ACLs are disabled (BucketOwnerEnforced)? Only an owner-full-control one. */
export function isOwnerOnlyAcl(acl: CannedAcl, grants: StoredAcl | undefined, bucketOwner: string): boolean {
  return ownerOnly(effectiveAcl(acl, grants, bucketOwner), bucketOwner);
}

/**
 * BucketOwnerEnforced: only the bucket owner's full control may be set, as bucket-owner-full-control
 * or an ACL that is the same when `writer` owns the resource (so `private` from the bucket owner,
 * not from another account) (400 AccessControlListNotSupported); BlockPublicAcls: a public ACL is
 * refused (403 AccessDenied) (AWS *Controlling ownership*, *Troubleshooting* "bucket owner full
 * control ACLs or an equivalent form", *Blocking public access*).
 */
export function checkSettableAcl(bucket: S3Bucket, acl: CannedAcl, grants: StoredAcl | undefined, writer = bucket.owner): void {
  const effective = effectiveAcl(acl, grants, bucket.owner);
  const ownerFullControl = (acl === 'bucket-owner-full-control' && !grants) || ownerOnly(effectiveAcl(acl, grants, writer), bucket.owner);
  if (aclsDisabled(bucket) && !ownerFullControl) throw new S3Error('AccessControlListNotSupported');
  if (bucket.access?.publicAccessBlock?.blockPublicAcls && isPublicAcl(effective)) throw new S3Error('AccessDenied');
}
