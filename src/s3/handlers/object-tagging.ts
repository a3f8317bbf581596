// GetObjectTagging, PutObjectTagging, DeleteObjectTagging (s3.md §3.19): tags live in the
// version's attrs and change in place (no new version).

import { requestNotice } from './notification.js';
import { bucketOf, type S3Context } from '../context.js';
import { readSmallBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';
import { parseTaggingXml, renderTagging } from '../tagging.js';
import { readableVersion, versionHeader } from './object-version.js';
import { requestedVersionId } from '../routes/version-id.js';
import type { VersionedParams } from '../routes/object-subresources.js';

const MAX_TAGGING_XML = 1024 * 1024;

export async function handleGetObjectTagging(ctx: S3Context, params: VersionedParams): Promise<void> {
  const version = readableVersion(ctx, bucketOf(ctx), params.versionId);
  sendXml(ctx, renderTagging(version.attrs.tags ?? []), versionHeader(version));
}

async function updateTags(ctx: S3Context, versionId: string | undefined, tags: Array<[string, string]> | undefined, status: number): Promise<void> {
  const bucket = bucketOf(ctx);
  const version = await ctx.services.store.updateAttrs(bucket.name, ctx.resource.key!, versionId, (attrs) => {
    const next = { ...attrs };
    if (tags && tags.length > 0) next.tags = tags;
    else delete next.tags;
    return next;
  }, requestNotice(ctx, bucket, tags ? 'ObjectTagging:Put' : 'ObjectTagging:Delete', ctx.resource.key!));
  send(ctx, status, versionHeader(version));
}

export async function handlePutObjectTagging(ctx: S3Context): Promise<void> {
  const tags = parseTaggingXml(await readSmallBody(ctx, MAX_TAGGING_XML));
  // read after the body: a malformed body is refused before a bad version id, so this stays untyped
  await updateTags(ctx, requestedVersionId(ctx), tags, 200);
}

export async function handleDeleteObjectTagging(ctx: S3Context, params: VersionedParams): Promise<void> {
  await updateTags(ctx, params.versionId, undefined, 204);
}
