// The object version a sub-resource request (tagging, attributes) addresses: `versionId` or the
// latest, never a delete marker; NoSuchKey / NoSuchVersion otherwise (s3.md §3.0.7).

import { canListBucket, requireObjectAccess } from '../authz/request.js';
import type { S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import type { S3Object } from '../object-attrs.js';
import type { BucketRecord } from '../../store/types.js';

export function addressedVersion(ctx: S3Context, bucket: BucketRecord, versionId: string | undefined): { version: S3Object; versionId?: string } {
  const key = ctx.resource.key!;
  const found = ctx.services.store.getObject(bucket.name, key, versionId);
  if (!found || found.deleteMarker) {
    if (versionId !== undefined && versionId !== 'null') throw new S3Error('NoSuchVersion', { Key: key, VersionId: versionId });
    throw new S3Error('NoSuchKey', { Key: key });
  }
  return versionId === undefined ? { version: found } : { version: found, versionId };
}

export function versionHeader(version: S3Object): Array<readonly [string, string]> {
  return version.versionId === 'null' ? [] : [['x-amz-version-id', version.versionId]];
}

/** The addressed version for a read: without bucket READ a missing key is AccessDenied, so keys cannot be probed (s3.md §2.13). */
export function readableVersion(ctx: S3Context, bucket: BucketRecord, versionId: string | undefined): S3Object {
  let version: S3Object;
  try {
    version = addressedVersion(ctx, bucket, versionId).version;
  } catch (e) {
    if (!canListBucket(ctx, bucket)) throw new S3Error('AccessDenied');
    throw e;
  }
  requireObjectAccess(ctx, bucket, version);
  return version;
}
