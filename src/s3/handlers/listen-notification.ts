// MinIO's ListenBucketNotification (GET /bucket?events=…&prefix=…&suffix=…, minio-js
// listenBucketNotification, mc watch) and its bucket-less form ListenNotification (GET /?events=…):
// a live stream of the bucket's events (src/notify/listen.ts). Checks as MinIO's
// cmd/listen-notification-handlers.go: at most one prefix and one suffix, each a valid filter value,
// every event name known.

import { principalId } from '../access.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { EVENT_TYPES, MAX_KEY_FILTER } from '../notification.js';
import { queryValues } from '../query.js';
import { commonHeaders } from '../respond.js';
import { LISTEN_EVENTS } from '../router.js';
import type { ListenFilter } from '../../notify/listen.js';

/** MinIO's event names only a listener can ask for; accepted, never produced by Tusk. */
const LISTEN_ONLY_EVENTS = new Set(['s3:ObjectAccessed:*', 's3:ObjectAccessed:Get', 's3:ObjectAccessed:Head', 's3:BucketCreated', 's3:BucketRemoved']);

/** One `prefix` or `suffix` (MinIO: ErrFilterNamePrefix/Suffix, ErrFilterValueInvalid). */
function filterValue(ctx: S3Context, name: 'prefix' | 'suffix'): string {
  const values = queryValues(ctx.head.rawQuery, name);
  if (values.length > 1) throw new S3Error('InvalidArgument', { ArgumentName: name }, { message: `Cannot specify more than one ${name} rule in a filter.` });
  const value = values[0] ?? '';
  // MinIO's event.ValidateFilterRuleValue: no `.` or `..` path segment, no backslash, at most 1024 bytes
  if (Buffer.byteLength(value) > MAX_KEY_FILTER || value.includes('\\') || (value && value.split('/').some((s) => s === '.' || s === '..'))) {
    throw new S3Error('InvalidArgument', { ArgumentName: name, ArgumentValue: value }, { message: 'The filter rule value is not valid.' });
  }
  return value;
}

function listenFilter(ctx: S3Context, bucket: string | undefined): ListenFilter {
  const events = queryValues(ctx.head.rawQuery, LISTEN_EVENTS);
  for (const e of events) {
    if (!EVENT_TYPES.has(e) && !LISTEN_ONLY_EVENTS.has(e)) {
      throw new S3Error('InvalidArgument', { ArgumentName: LISTEN_EVENTS, ArgumentValue: e }, { message: 'A specified event is not supported for notifications.' });
    }
  }
  return { bucket, owner: principalId(ctx.principal), prefix: filterValue(ctx, 'prefix'), suffix: filterValue(ctx, 'suffix'), events };
}

function listen(ctx: S3Context, filter: ListenFilter): Promise<void> {
  const live = ctx.services.live;
  if (!live) throw new S3Error('NotImplemented', {}, { message: 'ListenBucketNotification is not available here.' });
  return live.listen(ctx.ex, filter, commonHeaders(ctx, ctx.services.config.serverHeader));
}

export function handleListenBucketNotification(ctx: S3Context): Promise<void> {
  return listen(ctx, listenFilter(ctx, bucketOf(ctx).name));
}

/** The bucket-less form: the events of every bucket the caller's account owns. */
export function handleListenNotification(ctx: S3Context): Promise<void> {
  return listen(ctx, listenFilter(ctx, undefined));
}
