// DeleteObject (s3.md §3.16): idempotent 204; If-Match; version ids (unversioned buckets only for now).

import { normalizeEtag } from '../conditionals.js';
import { bucketOf, type S3Context } from '../context.js';
import { send } from '../respond.js';
import { requestedVersionId } from './version-id.js';

export async function handleDeleteObject(ctx: S3Context): Promise<void> {
  const versionId = requestedVersionId(ctx);
  const bucket = bucketOf(ctx);
  const key = ctx.resource.key!;
  const store = ctx.services.store;
  const ifMatch = ctx.headers['if-match'];
  // an id that names no version is a 204 no-op, as a missing key is (s3.md §3.0.7)
  const outcome = await store.deleteObject(bucket.name, key, {
    versionId,
    condition: ifMatch === undefined ? undefined : { ifMatch: normalizeEtag(ifMatch) },
  });
  const headers: Array<readonly [string, string]> = [];
  if (outcome.kind === 'marker') {
    headers.push(['x-amz-delete-marker', 'true']);
    if (outcome.marker.versionId !== 'null') headers.push(['x-amz-version-id', outcome.marker.versionId]);
  } else if (outcome.kind === 'removed' && versionId !== undefined) {
    headers.push(['x-amz-version-id', outcome.version.versionId]);
    if (outcome.version.deleteMarker) headers.push(['x-amz-delete-marker', 'true']);
  }
  send(ctx, 204, headers);
}
