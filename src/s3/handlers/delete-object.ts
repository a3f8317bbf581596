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
  // In an unversioned bucket only the null version exists: another well-formed id is a 204 no-op (s3.md §3.0.7).
  if (versionId !== undefined && versionId !== 'null') return send(ctx, 204);
  const ifMatch = ctx.headers['if-match'];
  await store.deleteObject(bucket.name, key, ifMatch === undefined ? undefined : { ifMatch: normalizeEtag(ifMatch) });
  send(ctx, 204);
}
