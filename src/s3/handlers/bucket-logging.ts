// Put/GetBucketLogging (AWS API reference): the bucket's server access logging, stored with the
// bucket (logging/config.ts); records are journaled per request and delivered in batches
// (logging/journal.ts, logging/delivery.ts).

import { bucketOf, type S3Context } from '../context.js';
import { checkLoggingTarget, MAX_LOGGING_BODY, parseBucketLoggingStatus, renderBucketLoggingStatus } from '../logging/config.js';
import { readIntegrityCheckedBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';

export async function handlePutBucketLogging(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const logging = parseBucketLoggingStatus((await readIntegrityCheckedBody(ctx, MAX_LOGGING_BODY)).toString('utf8'));
  const { store, accounts } = ctx.services;
  if (logging) {
    const owner = accounts.byCanonicalId(bucket.owner);
    checkLoggingTarget(bucket, store.getBucket(logging.targetBucket), logging, owner ? [owner.accountId, owner.canonicalId] : [bucket.owner]);
  }
  // an empty BucketLoggingStatus turns logging off (AWS *PutBucketLogging*)
  await store.updateBucket(bucket.name, (current) => {
    const { logging: _old, ...rest } = current;
    return logging ? { ...rest, logging } : rest;
  });
  send(ctx, 200);
}

export async function handleGetBucketLogging(ctx: S3Context): Promise<void> {
  sendXml(ctx, renderBucketLoggingStatus(bucketOf(ctx).logging));
}
