// Put/GetBucketNotificationConfiguration (AWS S3 API reference). The rules live in the bucket
// record, so that every write reads them from the bucket cache (src/s3/notification.ts noticeOf).

import { principalId } from '../access.js';
import { bucketOf, type S3Context } from '../context.js';
import { MAX_NOTIFICATION_BODY, noticeOf, parseNotificationConfiguration, renderNotificationConfiguration, type S3Notice } from '../notification.js';
import type { S3Bucket } from '../object-attrs.js';
import { readSmallBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';

export async function handlePutBucketNotificationConfiguration(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const { config } = ctx.services;
  const xml = (await readSmallBody(ctx, MAX_NOTIFICATION_BODY)).toString('utf8');
  const rules = parseNotificationConfiguration(xml, config.notify.targets, config.region);
  await ctx.services.store.updateBucket(bucket.name, ({ notification: _old, ...current }) => (rules.length ? { ...current, notification: rules } : current));
  // S3 sends an s3:TestEvent to each destination of a new configuration
  if (ctx.headers['x-amz-skip-destination-validation'] !== 'true') ctx.services.notifier?.test(bucket.name, rules, ctx.requestId, ctx.hostId);
  send(ctx, 200);
}

export async function handleGetBucketNotificationConfiguration(ctx: S3Context): Promise<void> {
  sendXml(ctx, renderNotificationConfiguration(bucketOf(ctx).notification ?? []));
}

/**
 * The notice of this request's change `name` (ObjectCreated:Put, ObjectRemoved:*, …) of `key`, with
 * the requester fields of an event record (AWS *Event message structure*: userIdentity,
 * requestParameters, responseElements); undefined when no rule of the bucket takes it and nobody listens.
 */
export function requestNotice(ctx: S3Context, bucket: S3Bucket, name: string, key: string): S3Notice | undefined {
  const listening = ctx.services.live?.active() ?? false;
  if (!bucket.notification && !listening) return undefined;
  return noticeOf(bucket, name, key, { user: principalId(ctx.principal), ip: ctx.head.remoteAddress?.() ?? '', rid: ctx.requestId }, listening);
}

export { noticeField } from '../notification.js';
