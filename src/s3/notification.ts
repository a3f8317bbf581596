// Bucket notification configuration (AWS *Amazon S3 Event Notifications*, PutBucketNotificationConfiguration):
// parsing and validation of NotificationConfiguration, its rendering, and which rules an event matches.

import { randomBytes } from 'node:crypto';
import { S3Error } from './errors/errors.js';
import { doc, el } from './xml.js';
import { parseXmlBody, xmlChildren, xmlTextOf, type XmlNode, type XmlValue } from './xml-input.js';
import { targetOfArn, type TargetConfig } from '../notify/config.js';
import { eventMatches } from '../notify/records.js';

export const MAX_NOTIFICATION_BODY = 64 * 1024;

/** The three kinds of destination, as their XML elements name them (LambdaFunction is CloudFunction on the wire). */
const KINDS = [
  ['TopicConfiguration', 'Topic'],
  ['QueueConfiguration', 'Queue'],
  ['CloudFunctionConfiguration', 'CloudFunction'],
] as const;
export type DestinationKind = (typeof KINDS)[number][1];

/** One configuration of a bucket's NotificationConfiguration, as stored in the bucket record. */
export interface NotificationRule {
  kind: DestinationKind;
  id: string;
  arn: string;
  /** e.g. s3:ObjectCreated:* */
  events: string[];
  prefix?: string;
  suffix?: string;
}

/**
 * Event types S3 accepts in a configuration (AWS *Supported event types*). Tusk produces the
 * ObjectCreated, ObjectRemoved, ObjectTagging and LifecycleExpiration ones; the others are
 * accepted as S3 does and never fire (Tusk has no restore, replication, ACL change or transition events).
 */
export const EVENT_TYPES = new Set([
  's3:TestEvent',
  's3:ObjectCreated:*', 's3:ObjectCreated:Put', 's3:ObjectCreated:Post', 's3:ObjectCreated:Copy', 's3:ObjectCreated:CompleteMultipartUpload',
  's3:ObjectRemoved:*', 's3:ObjectRemoved:Delete', 's3:ObjectRemoved:DeleteMarkerCreated',
  's3:ObjectTagging:*', 's3:ObjectTagging:Put', 's3:ObjectTagging:Delete',
  's3:LifecycleExpiration:*', 's3:LifecycleExpiration:Delete', 's3:LifecycleExpiration:DeleteMarkerCreated',
  's3:ObjectRestore:*', 's3:ObjectRestore:Post', 's3:ObjectRestore:Completed', 's3:ObjectRestore:Delete',
  's3:ObjectAcl:Put', 's3:ReducedRedundancyLostObject',
  's3:Replication:*', 's3:Replication:OperationFailedReplication', 's3:Replication:OperationNotTracked',
  's3:Replication:OperationMissedThreshold', 's3:Replication:OperationReplicatedAfterThreshold',
  's3:LifecycleTransition', 's3:IntelligentTiering',
]);
EVENT_TYPES.delete('s3:TestEvent');

export const MAX_KEY_FILTER = 1024;

function invalid(message: string, name?: string, value?: string): S3Error {
  // S3 numbers the arguments of this error (ArgumentName1, ArgumentValue1)
  return new S3Error('InvalidArgument', name === undefined ? {} : { ArgumentName1: name, ArgumentValue1: value }, { message });
}

function filterOf(node: XmlNode): { prefix?: string; suffix?: string } {
  const out: { prefix?: string; suffix?: string } = {};
  const filter = node['Filter'];
  if (filter === undefined) return out;
  const [f] = xmlChildren(filter);
  const [key] = xmlChildren(f?.['S3Key']);
  for (const rule of xmlChildren(key?.['FilterRule'])) {
    const name = (xmlTextOf(rule['Name']) ?? '').toLowerCase();
    const value = xmlTextOf(rule['Value']) ?? '';
    if (name !== 'prefix' && name !== 'suffix') throw invalid('filter rule name must be either prefix or suffix', 'FilterRule', xmlTextOf(rule['Name']) ?? '');
    if (out[name] !== undefined) throw invalid(`Cannot specify more than one ${name} rule in a filter.`, 'FilterRule', name);
    if (Buffer.byteLength(value) > MAX_KEY_FILTER) throw invalid('The filter rule value is too long', 'FilterRule', name);
    out[name] = value;
  }
  return out;
}

/**
 * The configuration document's rules; every ARN must name a declared target (S3 checks each
 * destination: "Unable to validate the following destination configurations").
 */
export function parseNotificationConfiguration(xml: string, targets: readonly TargetConfig[], region: string): NotificationRule[] {
  const root = parseXmlBody(xml, 'NotificationConfiguration', [...KINDS.map(([c]) => c), 'Event', 'FilterRule']);
  const rules: NotificationRule[] = [];
  const ids = new Set<string>();
  for (const [element, kind] of KINDS) {
    for (const node of xmlChildren(root[element])) {
      const arn = xmlTextOf(node[kind]);
      if (!arn) throw new S3Error('MalformedXML');
      const events: string[] = [];
      for (const e of node['Event'] === undefined ? [] : ([] as XmlValue[]).concat(node['Event'])) {
        const name = xmlTextOf(e);
        if (name === undefined || !EVENT_TYPES.has(name)) throw invalid('The event is not supported for notifications', 'Event', name ?? '');
        events.push(name);
      }
      if (events.length === 0) throw new S3Error('MalformedXML');
      // an absent Id gets one generated, as S3 does
      const id = xmlTextOf(node['Id']) || randomBytes(24).toString('base64url');
      if (ids.has(id)) throw invalid('Configurations must have unique IDs', 'Id', id);
      ids.add(id);
      rules.push({ kind, id, arn, events, ...filterOf(node) });
    }
  }
  const unknown = rules.filter((r) => !targetOfArn(r.arn, targets, region));
  if (unknown.length) {
    const extras: Record<string, string> = {};
    unknown.forEach((r, i) => {
      extras[`ArgumentName${i + 1}`] = r.arn;
      extras[`ArgumentValue${i + 1}`] = 'The destination is not a notification target of this server';
    });
    throw new S3Error('InvalidArgument', extras, { message: 'Unable to validate the following destination configurations' });
  }
  checkOverlaps(rules);
  return rules;
}

/** Two event types overlap when one is the other or a wildcard over it. */
function eventsOverlap(a: string, b: string): boolean {
  return a === b || (a.endsWith(':*') && b.startsWith(a.slice(0, -1))) || (b.endsWith(':*') && a.startsWith(b.slice(0, -1)));
}

/**
 * S3 refuses two configurations for an overlapping event type whose prefixes and suffixes overlap
 * (one starts, resp. ends, the other; an absent filter overlaps everything): AWS *Configuring event
 * notifications using object key name filtering*, "overlapping prefixes and suffixes".
 */
function checkOverlaps(rules: readonly NotificationRule[]): void {
  for (let i = 0; i < rules.length; i++) {
    for (let j = i + 1; j < rules.length; j++) {
      const a = rules[i]!;
      const b = rules[j]!;
      if (!a.events.some((x) => b.events.some((y) => eventsOverlap(x, y)))) continue;
      const p1 = a.prefix ?? '';
      const p2 = b.prefix ?? '';
      const s1 = a.suffix ?? '';
      const s2 = b.suffix ?? '';
      if ((p1.startsWith(p2) || p2.startsWith(p1)) && (s1.endsWith(s2) || s2.endsWith(s1))) {
        throw invalid(
          'Configuration is ambiguously defined. Cannot have overlapping suffixes in two rules if the prefixes are overlapping for the same event type.',
          'Event',
          a.events.find((x) => b.events.some((y) => eventsOverlap(x, y)))!,
        );
      }
    }
  }
}

export function renderNotificationConfiguration(rules: readonly NotificationRule[]): string {
  let body = '';
  for (const [element, kind] of KINDS) {
    for (const r of rules.filter((x) => x.kind === kind)) {
      let filter = '';
      if (r.prefix !== undefined) filter += `<FilterRule>${el('Name', 'Prefix')}${el('Value', r.prefix)}</FilterRule>`;
      if (r.suffix !== undefined) filter += `<FilterRule>${el('Name', 'Suffix')}${el('Value', r.suffix)}</FilterRule>`;
      body +=
        `<${element}>${el('Id', r.id)}${el(kind, r.arn)}${r.events.map((e) => el('Event', e)).join('')}` +
        `${filter ? `<Filter><S3Key>${filter}</S3Key></Filter>` : ''}</${element}>`;
    }
  }
  return doc('NotificationConfiguration', body);
}

/** The rules whose filter takes `key` and one of whose event types is in `family` (e.g. ObjectCreated). */
export function rulesFor(rules: readonly NotificationRule[] | undefined, family: string, key: string): NotificationRule[] {
  if (!rules) return [];
  return rules.filter(
    (r) =>
      (r.prefix === undefined || key.startsWith(r.prefix)) &&
      (r.suffix === undefined || key.endsWith(r.suffix)) &&
      r.events.some((e) => e.startsWith(`s3:${family}:`)),
  );
}

/** What an S3 change's notice carries (stored with the change: store/types.ts Notice). */
export interface S3Notice {
  [field: string]: unknown;
  /** the event name without `s3:`; `…:*` when the engine's outcome decides (Delete or DeleteMarkerCreated) */
  name: string;
  /**
   * the rules the key passed (prefix/suffix) and, for a final event name, whose event types take
   * it; a rule carries its event types only when the engine's outcome decides the name (`…:*`)
   */
  rules: Array<Pick<NotificationRule, 'id' | 'arn'> & { events?: string[] }>;
  /** principal id of the requester, its IP address and the request's id (event record fields) */
  user: string;
  ip: string;
  rid: string;
  /** ms since the epoch */
  time: number;
  /** the bucket owner's canonical id */
  owner: string;
  /** store/types.ts Notice: for live listeners only */
  live?: true;
}

/**
 * The notice of a change of `key` in `bucket`, or undefined when no rule of the bucket takes it and
 * nobody listens (`listening`: a ListenBucketNotification stream is open on some thread): a bucket
 * without notifications pays one property read and one look at the listener counts.
 */
export function noticeOf(
  bucket: { notification?: NotificationRule[]; owner: string },
  name: string,
  key: string,
  request: { user: string; ip: string; rid: string } = { user: 'AmazonS3', ip: '', rid: '' },
  listening = false,
): S3Notice | undefined {
  const decided = !name.endsWith(':*');
  const rules = bucket.notification ? rulesFor(bucket.notification, name.slice(0, name.indexOf(':')), key) : [];
  // the fewer rules and fields a notice carries, the less each notified write packs and stores
  const taken = decided
    ? rules.filter((r) => r.events.some((e) => eventMatches(e, name))).map(({ id, arn }) => ({ id, arn }))
    : rules.map(({ id, arn, events }) => ({ id, arn, events }));
  if (taken.length === 0 && !listening) return undefined;
  const notice: S3Notice = { name, rules: taken, ...request, time: Date.now(), owner: bucket.owner };
  // no target takes it: only the live streams get it (not stored for delivery)
  if (taken.length === 0) notice.live = true;
  return notice;
}

/** `{ notice }` for a store input when there is one; nothing otherwise (no field: the change logs as before). */
export function noticeField(notice: S3Notice | undefined): { notice?: S3Notice } {
  return notice ? { notice } : {};
}
