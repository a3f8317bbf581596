// S3's event message format (AWS *Event message structure*, eventVersion 2.1) built from a stored
// notice, and the s3:TestEvent message S3 sends when a configuration is set.

import type { StoredNotice } from '../store/redo-ops.js';

/** What a stored S3 notice carries (src/s3/notification.ts S3Notice), as the notifier reads it. */
export interface NoticeData {
  name: string;
  rules: Array<{ id: string; arn: string; events: string[] }>;
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

/** The message a target gets for one event: S3's `Records`, with MinIO's `EventName` and `Key` beside them. */
export function eventMessage(n: StoredNotice, configurationId: string, region: string): string {
  const record = eventRecord(n, configurationId, region);
  return JSON.stringify({ EventName: `s3:${record.eventName as string}`, Key: `${n.b}/${n.k}`, Records: [record] });
}

/** AWS *Event message structure*: the test message sent to each destination of a new configuration. */
export function testEventMessage(bucket: string, requestId: string, hostId: string, now = Date.now()): string {
  return JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent', Time: new Date(now).toISOString(), Bucket: bucket, RequestId: requestId, HostId: hostId });
}
