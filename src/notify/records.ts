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

/**
 * The JSON of an S3 event record, written as a template: the notifier serializes one for every
 * notified write, and this costs about half of JSON.stringify on the record's object. Key order
 * is AWS's (*Event message structure*); `eventName` is the event's unless given (listen.ts).
 */
export function eventRecordJson(n: StoredNotice, configurationId: string, region: string, eventName = eventNameOf(n)): string {
  const ev = n.ev as unknown as NoticeData;
  const q = JSON.stringify;
  let object = `{"key":${q(encodeEventKey(n.k))}`;
  if (n.size !== undefined && !n.deleteMarker) object += `,"size":${n.size}`;
  if (n.etag) object += `,"eTag":${q(n.etag)}`;
  // the null version has no id to report (AWS: versionId only for versioned buckets)
  if (n.versionId && n.versionId !== 'null') object += `,"versionId":${q(n.versionId)}`;
  object += `,"sequencer":"${sequencerOf(n.seq)}"}`;
  return (
    `{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":${q(region)},"eventTime":"${new Date(ev.time).toISOString()}",` +
    `"eventName":${q(eventName)},"userIdentity":{"principalId":${q(ev.user)}},"requestParameters":{"sourceIPAddress":${q(ev.ip)}},` +
    `"responseElements":{"x-amz-request-id":${q(ev.rid)},"x-amz-id-2":${q(ev.rid)}},"s3":{"s3SchemaVersion":"1.0","configurationId":${q(configurationId)},` +
    `"bucket":{"name":${q(n.b)},"ownerIdentity":{"principalId":${q(ev.owner ?? '')}},"arn":${q(`arn:aws:s3:::${n.b}`)}},"object":${object}}}`
  );
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
  const eventName = eventNameOf(n);
  return { seq: n.seq, name: `s3:${eventName}`, key: `${n.b}/${n.k}`, record: eventRecordJson(n, configurationId, region, eventName) };
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
