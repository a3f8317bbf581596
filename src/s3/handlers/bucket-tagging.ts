// Put/Get/DeleteBucketTagging (AWS API reference): the bucket's own tags, up to 50, kept in its
// record; answered in key order as object tags are.

import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { readIntegrityCheckedBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';
import { MAX_BUCKET_TAGS, parseTaggingXml, renderTagging } from '../tagging.js';

const MAX_TAGGING_BODY = 64 * 1024;

export async function handlePutBucketTagging(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const body = await readIntegrityCheckedBody(ctx, MAX_TAGGING_BODY);
  if (!body.toString().trim()) throw new S3Error('MissingRequestBodyError', {}, { message: 'Request Body is empty' });
  const tags = parseTaggingXml(body, MAX_BUCKET_TAGS);
  await ctx.services.store.putBucket({ ...bucket, tags });
  send(ctx, 204);
}

export async function handleGetBucketTagging(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (!bucket.tags) throw new S3Error('NoSuchTagSet', { BucketName: bucket.name });
  sendXml(ctx, renderTagging(bucket.tags));
}

export async function handleDeleteBucketTagging(ctx: S3Context): Promise<void> {
  const { tags: _gone, ...bucket } = bucketOf(ctx);
  await ctx.services.store.putBucket(bucket);
  send(ctx, 204);
}
