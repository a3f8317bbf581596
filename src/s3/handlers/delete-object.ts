// DeleteObject (s3.md §3.16, §3.0.7): idempotent 204; If-Match; version ids and delete markers; MFA
// delete (§2.14) and object lock (§3.0.9) on permanent deletes. deleteVersion() is the one path for
// DeleteObject and each entry of DeleteObjects.

import { noticeField, requestNotice } from './notification.js';
import { requireEtagReadable } from '../authz/request.js';
import { normalizeEtag } from '../conditionals.js';
import { bucketOf, type S3Context } from '../context.js';
import { checkMfa, mfaDeleteEnabled, mfaMissing } from '../mfa-delete.js';
import { governanceBypass, lockedError, removalGuard } from '../object-lock.js';
import { S3Error } from '../errors/errors.js';
import type { S3Bucket, S3ObjectAttrs } from '../object-attrs.js';
import { send } from '../respond.js';
import { isStoreError } from '../../store/errors.js';
import { NULL_VERSION, type DeleteOutcome, type WriteCondition } from '../../store/types.js';
import type { DeleteObjectParams, DeleteObjectsParams } from '../routes/deletes.js';

/** What a delete request may do, decided once per request (DeleteObjects: for all its entries). */
export interface DeleteAuthority {
  /** a valid `x-amz-mfa` code was presented (or the bucket has no MFA delete) */
  mfa: boolean;
  /** `x-amz-bypass-governance-retention: true` */
  bypassGovernance: boolean;
}

/**
 * Checks `x-amz-mfa` once for the request: present and wrong → 403 for the whole request (§2.14).
 * `needsMfa`: the request certainly makes a permanent delete (DeleteObject with a version id).
 */
export function deleteAuthority(ctx: S3Context, bucket: S3Bucket, params: DeleteObjectsParams, needsMfa: boolean): DeleteAuthority {
  const presented = checkMfa(ctx, bucket, params.mfa, needsMfa && mfaDeleteEnabled(bucket));
  return { mfa: presented || !mfaDeleteEnabled(bucket), bypassGovernance: governanceBypass(params.bypassGovernance, ctx.principal, bucket) };
}

/**
 * Deletes `key` (a marker or the unversioned object) or, with `versionId`, that version for good.
 * Throws S3Errors: AccessDenied when MFA is required and missing, or when object lock protects it.
 */
export async function deleteVersion(
  ctx: S3Context,
  bucket: S3Bucket,
  key: string,
  versionId: string | undefined,
  authority: DeleteAuthority,
  condition?: WriteCondition,
): Promise<DeleteOutcome<S3ObjectAttrs>> {
  if (versionId !== undefined && !authority.mfa) throw mfaMissing();
  try {
    return await ctx.services.store.deleteObject(bucket.name, key, {
      versionId,
      condition,
      mayRemove: removalGuard(authority.bypassGovernance),
      ...noticeField(requestNotice(ctx, bucket, 'ObjectRemoved:*', key)),
    });
  } catch (e) {
    if (isStoreError(e, 'condition-failed') && e.detail.condition === 'guard') throw lockedError();
    throw e;
  }
}

export async function handleDeleteObject(ctx: S3Context, params: DeleteObjectParams): Promise<void> {
  const { versionId, ifMatch } = params;
  const bucket = bucketOf(ctx);
  if (params.bypassGovernance !== undefined && !bucket.objectLock) {
    throw new S3Error('InvalidArgument', {}, { message: 'x-amz-bypass-governance-retention is only applicable to Object Lock enabled buckets.' });
  }
  const authority = deleteAuthority(ctx, bucket, params, versionId !== undefined);
  requireEtagReadable(ctx, bucket, ctx.resource.key!, ifMatch);
  // an id that names no version is a 204 no-op, as a missing key is (s3.md §3.0.7)
  const outcome = await deleteVersion(
    ctx,
    bucket,
    ctx.resource.key!,
    versionId,
    authority,
    ifMatch === undefined ? undefined : { ifMatch: normalizeEtag(ifMatch) },
  );
  const headers: Array<readonly [string, string]> = [];
  if (outcome.kind === 'marker') {
    // a suspended bucket's marker is the null version and says so (s3.md §3.0.7)
    headers.push(['x-amz-delete-marker', 'true'], ['x-amz-version-id', outcome.marker.versionId]);
  } else if (outcome.kind === 'removed' && versionId !== undefined) {
    headers.push(['x-amz-version-id', outcome.version.versionId]);
    if (outcome.version.deleteMarker) headers.push(['x-amz-delete-marker', 'true']);
  } else if (outcome.kind === 'missing' && versionId !== undefined && versionId !== NULL_VERSION) {
    headers.push(['x-amz-version-id', versionId]);
  }
  send(ctx, 204, headers);
}
