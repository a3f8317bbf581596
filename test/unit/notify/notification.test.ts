// Protocol details of bucket notifications: the configuration document's validation and golden
// rendering (AWS PutBucketNotificationConfiguration), the event record (AWS *Event message
// structure*), the key encoding, the sequencer, and the targets' flags.

import { describe, expect, it } from 'vitest';
import { noticeOf, parseNotificationConfiguration, renderNotificationConfiguration, rulesFor } from '../../../src/s3/notification.js';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { encodeEventKey, eventMatches, eventMessage, eventNameOf, eventRecordJson, queuedEvent, sequencerOf, type QueuedEvent } from '../../../src/notify/records.js';
import { BATCH_MAX_BYTES, takeBatch } from '../../../src/notify/notifier.js';
import { WEBHOOK_BATCH } from '../../../src/notify/webhook.js';
import { parseNotifyTargets, targetOfArn, type TargetConfig } from '../../../src/notify/config.js';
import type { StoredNotice } from '../../../src/store/redo-ops.js';

const TARGETS: TargetConfig[] = [
  { id: 'hook', kind: 'webhook', url: 'http://127.0.0.1:1/' },
  { id: 'q', kind: 'redis', url: 'redis://127.0.0.1:1/k' },
];
const ARN = 'arn:tusk:sqs:us-east-1:hook:webhook';

const queue = (events: string[], filter = '', arn = ARN, id = '') =>
  `<QueueConfiguration>${id ? `<Id>${id}</Id>` : ''}<Queue>${arn}</Queue>${events.map((e) => `<Event>${e}</Event>`).join('')}` +
  `${filter ? `<Filter><S3Key>${filter}</S3Key></Filter>` : ''}</QueueConfiguration>`;
const rule = (name: string, value: string) => `<FilterRule><Name>${name}</Name><Value>${value}</Value></FilterRule>`;
const parse = (body: string) => parseNotificationConfiguration(`<NotificationConfiguration>${body}</NotificationConfiguration>`, TARGETS, 'us-east-1');

function s3Error(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (e) {
    if (e instanceof S3Error) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('NotificationConfiguration', () => {
  it('renders what it parsed: Topic, Queue, CloudFunction, in S3 element order (golden)', () => {
    const rules = parse(
      queue(['s3:ObjectCreated:*'], rule('prefix', 'a&amp;b/') + rule('suffix', '.txt'), ARN, 'q1') +
        `<TopicConfiguration><Id>t1</Id><Topic>${ARN}</Topic><Event>s3:ObjectRemoved:*</Event></TopicConfiguration>` +
        `<CloudFunctionConfiguration><Id>f1</Id><CloudFunction>arn:tusk:sqs::q:redis</CloudFunction><Event>s3:ObjectTagging:Put</Event></CloudFunctionConfiguration>`,
    );
    expect(renderNotificationConfiguration(rules)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        `<TopicConfiguration><Id>t1</Id><Topic>${ARN}</Topic><Event>s3:ObjectRemoved:*</Event></TopicConfiguration>` +
        `<QueueConfiguration><Id>q1</Id><Queue>${ARN}</Queue><Event>s3:ObjectCreated:*</Event>` +
        '<Filter><S3Key><FilterRule><Name>Prefix</Name><Value>a&amp;b/</Value></FilterRule><FilterRule><Name>Suffix</Name><Value>.txt</Value></FilterRule></S3Key></Filter></QueueConfiguration>' +
        '<CloudFunctionConfiguration><Id>f1</Id><CloudFunction>arn:tusk:sqs::q:redis</CloudFunction><Event>s3:ObjectTagging:Put</Event></CloudFunctionConfiguration>' +
        '</NotificationConfiguration>',
    );
  });

  it('gives a configuration without an Id one; an empty document has no rules', () => {
    expect(parse(queue(['s3:ObjectCreated:Put']))[0]!.id).toMatch(/^[\w-]{32}$/);
    expect(parse('')).toEqual([]);
  });

  it('refuses a destination this server does not declare, naming each', () => {
    const e = s3Error(() => parse(queue(['s3:ObjectCreated:*'], '', 'arn:tusk:sqs:us-east-1:nope:webhook') + queue(['s3:ObjectRemoved:*'], '', 'arn:tusk:sqs:eu-west-1:hook:webhook')));
    expect([e.code, e.status, e.message]).toEqual(['InvalidArgument', 400, 'Unable to validate the following destination configurations']);
    expect(e.extras).toMatchObject({ ArgumentName1: 'arn:tusk:sqs:us-east-1:nope:webhook', ArgumentName2: 'arn:tusk:sqs:eu-west-1:hook:webhook' });
    // the kind must match too; the check can pass
    expect(s3Error(() => parse(queue(['s3:ObjectCreated:*'], '', 'arn:tusk:sqs:us-east-1:hook:redis'))).code).toBe('InvalidArgument');
    expect(parse(queue(['s3:ObjectCreated:*'], '', 'arn:tusk:sqs::hook:webhook'))).toHaveLength(1);
  });

  it('refuses overlapping prefixes and suffixes for an overlapping event type, and takes disjoint ones', () => {
    const overlap = 'Configuration is ambiguously defined. Cannot have overlapping suffixes in two rules if the prefixes are overlapping for the same event type.';
    expect(s3Error(() => parse(queue(['s3:ObjectCreated:*'], rule('prefix', 'a/')) + queue(['s3:ObjectCreated:Put'], rule('prefix', 'a/b/')))).message).toBe(overlap);
    expect(s3Error(() => parse(queue(['s3:ObjectCreated:Put']) + queue(['s3:ObjectCreated:Put'], rule('suffix', '.jpg')))).message).toBe(overlap);
    expect(parse(queue(['s3:ObjectCreated:*'], rule('prefix', 'a/')) + queue(['s3:ObjectCreated:*'], rule('prefix', 'b/')))).toHaveLength(2);
    expect(parse(queue(['s3:ObjectCreated:*'], rule('suffix', '.jpg')) + queue(['s3:ObjectCreated:*'], rule('suffix', '.png')))).toHaveLength(2);
    expect(parse(queue(['s3:ObjectCreated:*']) + queue(['s3:ObjectRemoved:*']))).toHaveLength(2);
  });

  it('refuses unknown events, filter names and a repeated filter rule', () => {
    expect(s3Error(() => parse(queue(['s3:ObjectCreated:Get']))).message).toBe('The event is not supported for notifications');
    expect(s3Error(() => parse(queue(['s3:ObjectCreated:*'], rule('infix', 'x')))).code).toBe('InvalidArgument');
    expect(s3Error(() => parse(queue(['s3:ObjectCreated:*'], rule('prefix', 'a') + rule('Prefix', 'b')))).code).toBe('InvalidArgument');
    expect(s3Error(() => parse(queue([]))).code).toBe('MalformedXML');
    expect(s3Error(() => parse(`<QueueConfiguration><Event>s3:ObjectCreated:*</Event></QueueConfiguration>`)).code).toBe('MalformedXML');
  });

  it('matches rules by filter and event family', () => {
    const rules = parse(queue(['s3:ObjectCreated:Put'], rule('prefix', 'in/') + rule('suffix', '.txt')));
    expect(rulesFor(rules, 'ObjectCreated', 'in/a.txt')).toHaveLength(1);
    expect(rulesFor(rules, 'ObjectCreated', 'out/a.txt')).toHaveLength(0);
    expect(rulesFor(rules, 'ObjectCreated', 'in/a.bin')).toHaveLength(0);
    expect(rulesFor(rules, 'ObjectRemoved', 'in/a.txt')).toHaveLength(0);
    expect(eventMatches('s3:ObjectCreated:*', 'ObjectCreated:Copy')).toBe(true);
    expect(eventMatches('s3:ObjectCreated:Put', 'ObjectCreated:Post')).toBe(false);
    expect(eventMatches('s3:ObjectRemoved:*', 'ObjectCreated:Put')).toBe(false);
  });

  it('a notice carries the rules that take its event, with event types only when the outcome decides the name', () => {
    const bucket = {
      owner: 'o',
      notification: parse(queue(['s3:ObjectCreated:Copy'], '', ARN, 'copies') + queue(['s3:ObjectCreated:Put', 's3:ObjectRemoved:*'], rule('prefix', 'in/'), ARN, 'puts')),
    };
    expect(noticeOf(bucket, 'ObjectCreated:Put', 'in/a')?.rules).toEqual([{ id: 'puts', arn: ARN }]);
    expect(noticeOf(bucket, 'ObjectCreated:Copy', 'in/a')?.rules).toEqual([{ id: 'copies', arn: ARN }]);
    // no rule takes it: nothing to store, unless a live stream listens
    expect(noticeOf(bucket, 'ObjectCreated:Put', 'out/a')).toBeUndefined();
    expect(noticeOf(bucket, 'ObjectCreated:Post', 'in/a')).toBeUndefined();
    expect(noticeOf(bucket, 'ObjectCreated:Post', 'in/a', undefined, true)).toMatchObject({ rules: [], live: true });
    expect(noticeOf(bucket, 'ObjectRemoved:*', 'in/a')?.rules).toEqual([{ id: 'puts', arn: ARN, events: ['s3:ObjectCreated:Put', 's3:ObjectRemoved:*'] }]);
  });
});

const eventRecord = (n: StoredNotice, configurationId: string, region: string) => JSON.parse(eventRecordJson(n, configurationId, region)) as Record<string, unknown>;

describe('event records', () => {
  const notice = (over: Partial<StoredNotice> = {}): StoredNotice => ({
    seq: 0x1234,
    t: 'put',
    b: 'bkt',
    k: 'dir/red flower+~*.jpg',
    versionId: 'null',
    size: 3,
    etag: 'abc',
    deleteMarker: false,
    ev: { name: 'ObjectCreated:Put', rules: [], user: 'owner-id', ip: '127.0.0.1', rid: 'RID', time: Date.UTC(2026, 0, 2, 3, 4, 5, 6), owner: 'bucket-owner' },
    ...over,
  });

  it('is S3 event version 2.1 with the key form-encoded (golden)', () => {
    // AWS's key order, written as a template
    expect(eventRecordJson(notice(), 'cfg', 'us-east-1')).toBe(
      '{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-east-1","eventTime":"2026-01-02T03:04:05.006Z","eventName":"ObjectCreated:Put",' +
        '"userIdentity":{"principalId":"owner-id"},"requestParameters":{"sourceIPAddress":"127.0.0.1"},"responseElements":{"x-amz-request-id":"RID","x-amz-id-2":"RID"},' +
        '"s3":{"s3SchemaVersion":"1.0","configurationId":"cfg","bucket":{"name":"bkt","ownerIdentity":{"principalId":"bucket-owner"},"arn":"arn:aws:s3:::bkt"},' +
        '"object":{"key":"dir%2Fred+flower%2B%7E*.jpg","size":3,"eTag":"abc","sequencer":"0000000000001234"}}}',
    );
    // strings are JSON-escaped
    expect(eventRecord(notice({ etag: '"q\\"', ev: { ...notice().ev, user: 'a"b\u{1F600}' } }), 'c"', 'r')).toMatchObject({
      userIdentity: { principalId: 'a"b\u{1F600}' },
      s3: { configurationId: 'c"', object: { eTag: '"q\\"' } },
    });
    expect(eventRecord(notice(), 'cfg', 'us-east-1')).toEqual({
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: 'us-east-1',
      eventTime: '2026-01-02T03:04:05.006Z',
      eventName: 'ObjectCreated:Put',
      userIdentity: { principalId: 'owner-id' },
      requestParameters: { sourceIPAddress: '127.0.0.1' },
      responseElements: { 'x-amz-request-id': 'RID', 'x-amz-id-2': 'RID' },
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'cfg',
        bucket: { name: 'bkt', ownerIdentity: { principalId: 'bucket-owner' }, arn: 'arn:aws:s3:::bkt' },
        object: { key: 'dir%2Fred+flower%2B%7E*.jpg', size: 3, eTag: 'abc', sequencer: '0000000000001234' },
      },
    });
  });

  it('names a removal by what the engine did, and reports the version id of a versioned change', () => {
    const removed = { ev: { ...notice().ev, name: 'ObjectRemoved:*' } };
    expect(eventNameOf(notice({ ...removed, t: 'remove', versionId: 'v1', size: undefined, etag: undefined }))).toBe('ObjectRemoved:Delete');
    const marker = notice({ ...removed, versionId: 'v2', deleteMarker: true, size: 0, etag: '' });
    expect(eventNameOf(marker)).toBe('ObjectRemoved:DeleteMarkerCreated');
    expect(eventRecord(marker, 'c', 'r').s3).toMatchObject({ object: { key: expect.any(String), versionId: 'v2', sequencer: expect.any(String) } });
    expect((eventRecord(marker, 'c', 'r').s3 as { object: object }).object).not.toHaveProperty('size');
  });

  it('a message of one event is MinIO\'s (EventName, Key, Records of one); of several, only Records in queue order', () => {
    const one = queuedEvent(notice(), 'cfg', 'us-east-1');
    expect(JSON.parse(eventMessage([one]))).toEqual({ EventName: 's3:ObjectCreated:Put', Key: 'bkt/dir/red flower+~*.jpg', Records: [eventRecord(notice(), 'cfg', 'us-east-1')] });
    // the same bytes as serializing the whole message at once (the format before batching)
    expect(eventMessage([one])).toBe(JSON.stringify({ EventName: 's3:ObjectCreated:Put', Key: 'bkt/dir/red flower+~*.jpg', Records: [eventRecord(notice(), 'cfg', 'us-east-1')] }));
    const two = queuedEvent(notice({ seq: 0x1235, k: 'other' }), 'cfg', 'us-east-1');
    const both = JSON.parse(eventMessage([one, two])) as { Records: Array<{ s3: { object: { key: string; sequencer: string } } }> };
    expect(Object.keys(both)).toEqual(['Records']);
    expect(both.Records.map((r) => [r.s3.object.key, r.s3.object.sequencer])).toEqual([
      ['dir%2Fred+flower%2B%7E*.jpg', '0000000000001234'],
      ['other', '0000000000001235'],
    ]);
  });

  it('a batch takes the head of the queue: at most its count and BATCH_MAX_BYTES of records, and always one event', () => {
    const ev = (seq: number, bytes = 100): QueuedEvent => ({ seq, name: 's3:ObjectCreated:Put', key: `b/${seq}`, record: 'x'.repeat(bytes) });
    const queue = Array.from({ length: 250 }, (_, i) => ev(i));
    expect(WEBHOOK_BATCH).toBe(100);
    expect(takeBatch(queue, WEBHOOK_BATCH).map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(takeBatch(queue.slice(0, 3), WEBHOOK_BATCH).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(takeBatch(queue, 1).map((e) => e.seq)).toEqual([0]);
    // bytes: records up to the limit share a message; one over it goes alone
    const half = BATCH_MAX_BYTES / 2;
    expect(takeBatch([ev(1, half), ev(2, half), ev(3, 1)], WEBHOOK_BATCH).map((e) => e.seq)).toEqual([1, 2]);
    expect(takeBatch([ev(1, BATCH_MAX_BYTES + 1), ev(2)], WEBHOOK_BATCH).map((e) => e.seq)).toEqual([1]);
    expect(takeBatch([], WEBHOOK_BATCH)).toEqual([]);
  });

  it('keys and sequencers: non-BMP UTF-8 encoded, sequencers of later commits compare greater', () => {
    expect(encodeEventKey('😀 a')).toBe('%F0%9F%98%80+a');
    expect(sequencerOf(9) < sequencerOf(10)).toBe(true);
    expect(sequencerOf(0xff) < sequencerOf(0x100)).toBe(true);
  });
});

describe('notification targets', () => {
  it('parses ID=URL lists with auth, and the ARN names the target', () => {
    const targets = parseNotifyTargets({ webhook: ['a=http://h:1/x', 'b=https://h/y?q=1'], redis: ['r=redis://h:2/list'] }, ['a=Bearer x=y'], []);
    expect(targets).toEqual([
      { id: 'a', kind: 'webhook', url: 'http://h:1/x', auth: 'Bearer x=y' },
      { id: 'b', kind: 'webhook', url: 'https://h/y?q=1' },
      { id: 'r', kind: 'redis', url: 'redis://h:2/list' },
    ]);
    expect(targetOfArn('arn:tusk:sqs:us-east-1:r:redis', targets, 'us-east-1')?.id).toBe('r');
    expect(targetOfArn('arn:tusk:sqs:us-east-1:r:webhook', targets, 'us-east-1')).toBeUndefined();
  });

  it('refuses a bad ID, URL, scheme, duplicate or an auth for no webhook', () => {
    const none = { webhook: [], redis: [] };
    expect(() => parseNotifyTargets({ ...none, webhook: ['http://h/'] }, [], [])).toThrow(/ID=VALUE/);
    expect(() => parseNotifyTargets({ ...none, webhook: ['a=not a url'] }, [], [])).toThrow(/not a URL/);
    expect(() => parseNotifyTargets({ ...none, webhook: ['a=redis://h/'] }, [], [])).toThrow(/http/);
    expect(() => parseNotifyTargets({ webhook: ['a=http://h/'], redis: ['a=redis://h/k'] }, [], [])).toThrow(/twice/);
    expect(() => parseNotifyTargets(none, ['a=x'], [])).toThrow(/no webhook target/);
  });
});
