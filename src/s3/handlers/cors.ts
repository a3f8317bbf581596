// Put/Get/DeleteBucketCors and the OPTIONS preflight (s3.md §3.11). CORS headers on actual
// requests are added by the request entry (service.ts), errors included.

import { consoleCorsHeaders, corsHeaders, MAX_CORS_BODY, matchCorsRule, parseCorsConfiguration, renderCorsConfiguration, splitHeaderList } from '../cors.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { readIntegrityCheckedBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';

export async function handlePutBucketCors(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const rules = parseCorsConfiguration((await readIntegrityCheckedBody(ctx, MAX_CORS_BODY)).toString('utf8'));
  await ctx.services.store.putBucket({ ...bucket, access: { ...bucket.access, cors: rules } });
  send(ctx, 200);
}

export async function handleGetBucketCors(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const rules = bucket.access?.cors;
  if (!rules) throw new S3Error('NoSuchCORSConfiguration', { BucketName: bucket.name });
  sendXml(ctx, renderCorsConfiguration(rules));
}

export async function handleDeleteBucketCors(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const { cors: _gone, ...access } = bucket.access ?? {};
  await ctx.services.store.putBucket({ ...bucket, access });
  send(ctx, 204);
}

const NOT_ENABLED = 'CORSResponse: CORS is not enabled for this bucket.';

export async function handleCorsPreflight(ctx: S3Context): Promise<void> {
  const origin = ctx.headers['origin'];
  const method = ctx.headers['access-control-request-method'];
  if (origin === undefined || method === undefined) throw new S3Error('BadRequest');
  if (ctx.services.config.console.origins.includes(origin)) {
    send(ctx, 200, consoleCorsHeaders(origin, ctx.headers['access-control-request-headers']));
    return;
  }
  if (ctx.resource.bucket === undefined) throw new S3Error('AccessForbidden', {}, { message: NOT_ENABLED });
  const rules = bucketOf(ctx).access?.cors;
  if (!rules) throw new S3Error('AccessForbidden', {}, { message: NOT_ENABLED });
  const requested = ctx.headers['access-control-request-headers'];
  const rule = matchCorsRule(rules, origin, method, splitHeaderList(requested));
  if (!rule) {
    throw new S3Error('AccessForbidden', {}, {
      message:
        "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
    });
  }
  send(ctx, 200, corsHeaders(rule, origin, requested && splitHeaderList(requested).join(', ')));
}
