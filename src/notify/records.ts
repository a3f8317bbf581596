// S3's event message format (AWS *Event message structure*, eventVersion 2.1) built from a stored
// notice, and the s3:TestEvent message S3 sends when a configuration is set.

import type { StoredNotice } from '../store/redo-ops.js';

/** What a stored S3 notice carries (src/s3/notification.ts S3Notice), as the notifier reads it. */
export interface NoticeData {
  name: string;
  /** `events` only when the name ends in `:*` (older versions stored them always) */
  rules: Array<{ id: string; arn: string; events?: string[] }>;
  user: string;
  ip: string;
  rid: string;
  time: number;
  owner?: string;
}

/** The event's name (without `s3:`): a `…:*` name takes the engine's outcome (a delete marker or a removal). */
export function eventNameOf(n: StoredNotice): string {
  const { name } = n.ev as unknown as NoticeData;
  if (!name.endsWith(':*')) return name;
  return `${name.slice(0, -1)}${n.t === 'put' && n.deleteMarker ? 'DeleteMarkerCreated' : 'Delete'}`;
}

/**
 * AWS: "The object key name value is URL encoded", as a form is ("red flower.jpg" becomes
 * "red+flower.jpg"): everything but letters, digits and `.-*_` as UTF-8 %XX, a space as '+'.
 */
export function encodeEventKey(key: string): string {
  return encodeURIComponent(key)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Whether the event type `pattern` of a configuration (s3:ObjectCreated:*) covers `eventName` (ObjectCreated:Put). */
export function eventMatches(pattern: string, eventName: string): boolean {
  const p = pattern.slice('s3:'.length);
  return p === eventName || (p.endsWith(':*') && eventName.startsWith(p.slice(0, -1)));
}

/** The sequencer: hex of the commit sequence, fixed width so that later changes of a key compare greater. */
export function sequencerOf(seq: number): string {
  return seq.toString(16).toUpperCase().padStart(16, '0');
}

export function eventRecord(n: StoredNotice, configurationId: string, region: string): Record<string, unknown> {
  const ev = n.ev as unknown as NoticeData;
  const object: Record<string, unknown> = { key: encodeEventKey(n.k) };
  if (n.size !== undefined && !n.deleteMarker) object.size = n.size;
  if (n.etag) object.eTag = n.etag;
  // the null version has no id to report (AWS: versionId only for versioned buckets)
  if (n.versionId && n.versionId !== 'null') object.versionId = n.versionId;
  object.sequencer = sequencerOf(n.seq);
  return {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: region,
    eventTime: new Date(ev.time).toISOString(),
    eventName: eventNameOf(n),
    userIdentity: { principalId: ev.user },
    requestParameters: { sourceIPAddress: ev.ip },
    responseElements: { 'x-amz-request-id': ev.rid, 'x-amz-id-2': ev.rid },
    s3: {
      s3SchemaVersion: '1.0',
      configurationId,
      bucket: { name: n.b, ownerIdentity: { principalId: ev.owner ?? '' }, arn: `arn:aws:s3:::${n.b}` },
      object,
    },
  };
}

/** An event queued for a target: its record already serialized (once, however many targets). */
export interface QueuedEvent {
  seq: number;
  /** `s3:ObjectCreated:Put` */
  name: string;
  /** `bucket/key` (MinIO's `Key`) */
  key: string;
  /** the JSON of its S3 event record */
  record: string;
}

export function queuedEvent(n: StoredNotice, configurationId: string, region: string): QueuedEvent {
  const record = eventRecord(n, configurationId, region);
  return { seq: n.seq, name: `s3:${record.eventName as string}`, key: `${n.b}/${n.k}`, record: JSON.stringify(record) };
}

/**
 * The message a target gets. One event: S3's `Records` of one record, with MinIO's `EventName` and
 * `Key` beside them. Several (a webhook's batch, in commit order): only `Records`, one record per
 * event, as S3's event message allows ("Records": an array), since one name and key would not
 * describe them all.
 */
export function eventMessage(events: readonly QueuedEvent[]): string {
  if (events.length === 1) {
    const [e] = events as [QueuedEvent];
    return `{"EventName":${JSON.stringify(e.name)},"Key":${JSON.stringify(e.key)},"Records":[${e.record}]}`;
  }
  return `{"Records":[${events.map((e) => e.record).join(',')}]}`;
}

/** AWS *Event message structure*: the test message sent to each destination of a new configuration. */
export function testEventMessage(bucket: string, requestId: string, hostId: string, now = Date.now()): string {
  return JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent', Time: new Date(now).toISOString(), Bucket: bucket, RequestId: requestId, HostId: hostId });
}
