// Put/Get/DeleteBucketWebsite (AWS API reference): the bucket's static website configuration,
// stored with the bucket (src/s3/website.ts). Serving it on a website endpoint is not built yet.

import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { readIntegrityCheckedBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';
import { MAX_WEBSITE_BODY, parseWebsiteConfiguration, renderWebsiteConfiguration } from '../website.js';

export async function handlePutBucketWebsite(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const website = parseWebsiteConfiguration((await readIntegrityCheckedBody(ctx, MAX_WEBSITE_BODY)).toString('utf8'));
  await ctx.services.store.putBucket({ ...bucket, website });
  send(ctx, 200);
}

export async function handleGetBucketWebsite(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (!bucket.website) throw new S3Error('NoSuchWebsiteConfiguration', { BucketName: bucket.name });
  sendXml(ctx, renderWebsiteConfiguration(bucket.website));
}

export async function handleDeleteBucketWebsite(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (bucket.website) {
    const { website: _gone, ...rest } = bucket;
    await ctx.services.store.putBucket(rest);
  }
  send(ctx, 204);
}
