// Bucket notifications end to end (AWS *Amazon S3 Event Notifications*): configured through boto3's
// put_bucket_notification_configuration against webhook targets declared with --notify-webhook, the
// changes of a boto3 scenario arrive at a real HTTP receiver as S3 event records, filters honoured;
// and kill -9 while the receiver is down loses no acknowledged change's event.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { runBoto3 } from './helpers/boto3.js';
import { SCENARIO_EVENTS } from './helpers/brokers.js';
import { s3Request } from './helpers/clients.js';
import { bucketName, makeTempDirFixture, md5Hex } from './helpers/fixtures.js';
import { startEventReceiver, type EventReceiver, type EventRecord } from './helpers/event-receiver.js';
import { randomCredentials, startTusk, type TuskServer } from './helpers/server.js';

const ARN = 'arn:tusk:sqs:us-east-1:hook:webhook';
const ARN2 = 'arn:tusk:sqs:us-east-1:tags:webhook';
const AUTH = 'Bearer s3cret';

const summary = (r: EventRecord) => `${r.eventName} ${r.s3.object.key}`;

describe('bucket notifications to webhooks', () => {
  let receiver: EventReceiver;
  let server: TuskServer;
  beforeAll(async () => {
    receiver = await startEventReceiver();
    server = await startTusk({
      extraArgs: ['--notify-webhook', `hook=${receiver.url}/hook,tags=${receiver.url}/tags`, '--notify-webhook-auth', `tags=${AUTH}`],
    });
  });
  afterAll(async () => {
    await server?.dispose();
    await receiver?.close();
  });

  it('sends the records of PUT, multipart complete, copy, tagging, delete and delete marker, filters honoured', async () => {
    const bucket = bucketName('notify');
    const out = (await runBoto3(server, 'notifications.py', { BUCKET: bucket, ARN, ARN2 })) as Record<string, string>;
    const expected = SCENARIO_EVENTS;
    await receiver.waitFor((r) => r.records().length >= expected.length);
    // one sender per target: compare each target's records in commit order
    const records = receiver.records().sort((a, b) => a.s3.object.sequencer.localeCompare(b.s3.object.sequencer));
    expect(records.map(summary)).toEqual(expected);

    // S3's test event, once per destination of the configuration
    const tests = receiver.received.filter((r) => r.body.Event === 's3:TestEvent');
    expect(tests.map((t) => t.path).sort()).toEqual(['/hook', '/tags']);
    expect(tests[0]!.body.Bucket).toBe(bucket);

    const put = records[0]!;
    expect(put).toMatchObject({
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: 'us-east-1',
      userIdentity: { principalId: expect.any(String) },
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'created',
        bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}`, ownerIdentity: { principalId: expect.any(String) } },
        object: { key: 'in%2Fa+b%2Bc.txt', size: 5, eTag: out.put, sequencer: expect.stringMatching(/^[0-9A-F]{16}$/) },
      },
    });
    expect(put.requestParameters.sourceIPAddress).toMatch(/127\.0\.0\.1$/);
    expect(put.responseElements['x-amz-request-id']).toMatch(/.+/);
    expect(Date.parse(put.eventTime)).toBeGreaterThan(Date.now() - 120_000);
    expect(records[1]!.s3.object).toMatchObject({ size: 1000, eTag: out.multipart });
    expect(records[2]!.s3.object).toMatchObject({ size: 5, eTag: out.put });
    expect(records[5]!.s3.configurationId).toBe('removed');
    expect(records[5]!.s3.object.size).toBeUndefined();
    expect(records[6]!.s3.object.versionId).toBe(out.marker);
    // the tagging events went to the other target, with its Authorization header
    // (events queued together share a POST: count records, not POSTs)
    const tagged = receiver.received.filter((r) => r.body.Records?.some((x) => x.eventName.startsWith('ObjectTagging')));
    expect(tagged.flatMap((r) => r.body.Records!.map(() => [r.path, r.authorization]))).toEqual([['/tags', AUTH], ['/tags', AUTH]]);
    expect(receiver.received.filter((r) => r.path === '/hook').map((r) => r.authorization)).toEqual(receiver.received.filter((r) => r.path === '/hook').map(() => undefined));

    // status in the admin API
    const status = await s3Request(server, { method: 'GET', path: '/tusk/admin/v1/notify' });
    expect(status.status).toBe(200);
    const targets = (JSON.parse(status.text()) as { targets: Array<{ arn: string; delivered: number; pending: number }> }).targets;
    expect(targets.find((t) => t.arn === ARN)).toMatchObject({ delivered: 5, pending: 0 });
    expect(targets.find((t) => t.arn === ARN2)).toMatchObject({ delivered: 2, pending: 0 });
  });

  it('sends the events queued while the receiver was down several to a POST: Records in commit order, each event once', async () => {
    const bucket = bucketName('notify-batch');
    expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
    const config = `<NotificationConfiguration><QueueConfiguration><Id>batch</Id><Queue>${ARN}</Queue><Event>s3:ObjectCreated:*</Event></QueueConfiguration></NotificationConfiguration>`;
    expect((await s3Request(server, { method: 'PUT', bucket, query: 'notification', body: config })).status).toBe(200);
    await receiver.waitFor((r) => r.received.some((x) => x.body.Event === 's3:TestEvent' && x.body.Bucket === bucket));
    const ofBucket = () => receiver.received.filter((r) => r.body.Records?.[0]?.s3.bucket.name === bucket);
    await receiver.down();
    try {
      // three keys, four writes each, one key's writes after another's: 12 events queued behind a refused POST
      for (let round = 0; round < 4; round++) {
        await Promise.all(['a', 'b', 'c'].map(async (k) => expect((await s3Request(server, { method: 'PUT', bucket, key: `k/${k}`, body: `${k}${round}` })).status).toBe(200)));
      }
    } finally {
      await receiver.up();
    }
    await receiver.waitFor(() => ofBucket().flatMap((r) => r.body.Records!).length >= 12);
    const posts = ofBucket();
    // the queue is delivered whole once the receiver is back: fewer POSTs than events
    expect(posts.length).toBeLessThan(12);
    const several = posts.filter((p) => p.body.Records!.length > 1);
    expect(several.length).toBeGreaterThan(0);
    // a message of several records has only Records (one EventName and Key would not describe them all)
    for (const p of several) expect(Object.keys(p.body)).toEqual(['Records']);
    // a message of one keeps MinIO's EventName and Key
    for (const p of posts.filter((x) => x.body.Records!.length === 1)) expect(p.body.Key).toBe(`${bucket}/${decodeURIComponent(p.body.Records![0]!.s3.object.key)}`);
    const records = posts.flatMap((p) => p.body.Records!);
    const sequencers = records.map((r) => r.s3.object.sequencer);
    // each event once, in commit order across and within POSTs (one sender per target)
    expect(new Set(sequencers).size).toBe(12);
    expect(sequencers).toEqual([...sequencers].sort());
    for (const k of ['a', 'b', 'c']) {
      expect(records.filter((r) => r.s3.object.key === `k%2F${k}`).map((r) => r.s3.object.eTag)).toEqual([0, 1, 2, 3].map((round) => md5Hex(`${k}${round}`)));
    }
  });

  it('answers S3 errors for a bad configuration document', async () => {
    const bucket = bucketName('notify-bad');
    expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
    const put = (body: string) => s3Request(server, { method: 'PUT', bucket, query: 'notification', body });
    const malformed = await put('<NotificationConfiguration><QueueConfiguration><Queue>x</Queue>');
    expect(malformed.status).toBe(400);
    expect(malformed.text()).toContain('<Code>MalformedXML</Code>');
    const badFilter = await put(
      `<NotificationConfiguration><QueueConfiguration><Queue>${ARN}</Queue><Event>s3:ObjectCreated:*</Event>` +
        '<Filter><S3Key><FilterRule><Name>middle</Name><Value>x</Value></FilterRule></S3Key></Filter></QueueConfiguration></NotificationConfiguration>',
    );
    expect(badFilter.status).toBe(400);
    expect(badFilter.text()).toContain('<Code>InvalidArgument</Code>');
    expect(badFilter.text()).toContain('<RequestId>');
    const empty = await s3Request(server, { method: 'GET', bucket, query: 'notification' });
    expect(empty.text()).toContain('<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>');
  });
});

describe('bucket notifications across kill -9', () => {
  const dir = makeTempDirFixture();
  afterAll(() => dir.remove());

  // Two kills at random moments while writers run: one while the target is down, one after it came
  // back, while the backlog is being delivered and its deliveries recorded. After the last restart
  // every acknowledged change's event arrives at least once, none for a change not made (an
  // unacknowledged change counts as made when the data shows it after the restart), in order per key.
  it('delivers every acknowledged change once the target is back, none for a change not made, in order per key', async () => {
    const seed = Number(process.env.TUSK_CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const receiver = await startEventReceiver();
    const root = randomCredentials();
    const args = ['--notify-webhook', `hook=${receiver.url}/hook`];
    const start = () => startTusk({ dataDir: dir.path, root, durability: 'strict', extraArgs: args });
    let server = await start();
    const bucket = 'crash-notify';
    try {
      expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
      const config =
        `<NotificationConfiguration><QueueConfiguration><Id>all</Id><Queue>${ARN}</Queue>` +
        '<Event>s3:ObjectCreated:*</Event><Event>s3:ObjectRemoved:*</Event></QueueConfiguration></NotificationConfiguration>';
      expect((await s3Request(server, { method: 'PUT', bucket, query: 'notification', body: config })).status).toBe(200);
      await receiver.waitFor((r) => r.received.some((x) => x.body.Event === 's3:TestEvent'));
      await receiver.down();

      /**
       * key → its changes in write order: the body's md5 (a PUT) or 'delete', and whether it
       * happened (acknowledged, or not acknowledged and the data showed its result after the restart)
       */
      const history = new Map<string, Array<{ etag: string; happened: boolean; acked: boolean }>>();
      const writers = (round: number, stopped: () => boolean) =>
        [0, 1, 2].map(async (w) => {
          for (let n = 0; !stopped(); n++) {
            const key = `w${w}/k${n % 3}`;
            const del = n % 5 === 4;
            const body = `${key} ${round} ${n} ${seed}`;
            const change = { etag: del ? 'delete' : md5Hex(body), happened: false, acked: false };
            const changes = history.get(key) ?? [];
            changes.push(change);
            history.set(key, changes);
            try {
              const res = await s3Request(server, del ? { method: 'DELETE', bucket, key } : { method: 'PUT', bucket, key, body });
              change.acked = change.happened = res.status === 200 || res.status === 204;
            } catch {
              return; // the connection died with the server
            }
          }
        });
      /** After a restart, before new writes: the data shows whether each key's unacknowledged last change was made. */
      const resolveUnacknowledged = async (): Promise<void> => {
        for (const [key, changes] of history) {
          const last = changes.at(-1)!;
          if (last.acked) continue;
          const res = await s3Request(server, { method: 'HEAD', bucket, key });
          last.happened = last.etag === 'delete' ? res.status === 404 : String(res.headers['etag']) === `"${last.etag}"`;
          last.acked = true; // resolved
        }
      };
      const killWhileWriting = async (round: number): Promise<void> => {
        let stop = false;
        const running = writers(round, () => stop);
        await new Promise((r) => setTimeout(r, 200 + rand() * 600));
        await server.kill9();
        stop = true;
        await Promise.allSettled(running);
      };
      const restart = async (): Promise<void> => {
        server = await start();
        await resolveUnacknowledged();
      };

      await killWhileWriting(0);
      const acked = [...history.values()].flat().filter((c) => c.happened).length;
      expect(acked, `seed ${seed}: no write was acknowledged before the kill`).toBeGreaterThan(0);
      // the target is back: the second kill lands while the backlog is being delivered (and its deliveries recorded)
      await receiver.up();
      await restart();
      await killWhileWriting(1);
      await restart();

      // the events due: a delete of a missing key changes nothing (no event)
      const made = new Map<string, string[]>();
      for (const [key, changes] of history) {
        const events: string[] = [];
        let exists = false;
        for (const c of changes) {
          if (!c.happened) continue;
          if (c.etag !== 'delete') events.push(c.etag);
          else if (exists) events.push('delete');
          exists = c.etag !== 'delete';
        }
        made.set(key, events);
      }
      const total = [...made.values()].flat().length;
      await receiver.waitFor((r) => new Set(r.records().map((x) => x.s3.object.sequencer)).size >= total, 30_000);
      await new Promise((r) => setTimeout(r, 300));

      const got = new Map<string, string[]>();
      const seen = new Set<string>();
      for (const r of receiver.records()) {
        const key = decodeURIComponent(r.s3.object.key.replace(/\+/g, ' '));
        // at least once: a redelivery repeats a sequencer already seen
        if (seen.has(r.s3.object.sequencer)) continue;
        seen.add(r.s3.object.sequencer);
        const list = got.get(key) ?? [];
        list.push(r.eventName.startsWith('ObjectRemoved') ? 'delete' : r.s3.object.eTag!);
        got.set(key, list);
      }
      for (const [key, list] of made) expect(got.get(key) ?? [], `seed ${seed}, key ${key}`).toEqual(list);
      expect([...got.keys()].filter((k) => !made.has(k))).toEqual([]);
      // per key, the sequencers grow in arrival order
      const byKey = new Map<string, string[]>();
      for (const r of receiver.records()) {
        const list = byKey.get(r.s3.object.key) ?? [];
        if (!list.includes(r.s3.object.sequencer)) list.push(r.s3.object.sequencer);
        byKey.set(r.s3.object.key, list);
      }
      for (const list of byKey.values()) expect(list).toEqual([...list].sort());
    } finally {
      await server.dispose();
      await receiver.close();
    }
  }, 90_000);
});
