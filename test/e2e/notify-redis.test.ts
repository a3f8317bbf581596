// Bucket notifications to Redis (--notify-redis ID=redis://HOST:PORT/KEY): events RPUSHed to a list
// of Debian's redis-server, started here on a free loopback port in a temp dir; a change made while
// Redis is down arrives once it is back.

import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/http/listener.js';
import { s3Request } from './helpers/clients.js';
import { spawnUntil, type TestChild } from './helpers/child-process.js';
import { bucketName, makeTempDirFixture, md5Hex } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const ARN = 'arn:tusk:sqs:us-east-1:cache:redis';
const LIST = 'tusk-events';

const missing = !existsSync(REDIS_SERVER);
if (missing) console.warn(`skipping the Redis notification test: ${REDIS_SERVER} is missing (apt-get install redis-server; node scripts/setup.mjs --test)`);

describe.skipIf(missing)('bucket notifications to Redis', () => {
  const dir = makeTempDirFixture();
  let port: number;
  let redisServer: TestChild | undefined;
  let server: TuskServer;
  let client: Redis;
  const startRedis = async () => {
    redisServer = await spawnUntil(['--port', String(port), '--bind', '127.0.0.1', '--dir', dir.path, '--save', '', '--appendonly', 'no'], /Ready to accept connections/, {
      command: REDIS_SERVER,
      label: 'redis-server',
      startTimeoutMs: 20_000,
    });
  };
  beforeAll(async () => {
    port = await freePort('127.0.0.1');
    await startRedis();
    client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    server = await startTusk({ extraArgs: ['--notify-redis', `cache=redis://127.0.0.1:${port}/${LIST}`] });
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.dispose();
    await redisServer?.stop();
    dir.remove();
  });

  const events = async () => (await client.lrange(LIST, 0, -1)).map((m) => JSON.parse(m) as { EventName: string; Records?: Array<{ s3: { object: { key: string; eTag?: string } } }> });

  it('pushes the records of the configured events, and those made while Redis was down once it is back', async () => {
    const bucket = bucketName('notify-redis');
    expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
    const config =
      `<NotificationConfiguration><QueueConfiguration><Id>r</Id><Queue>${ARN}</Queue><Event>s3:ObjectCreated:*</Event>` +
      '<Event>s3:ObjectRemoved:*</Event><Filter><S3Key><FilterRule><Name>suffix</Name><Value>.log</Value></FilterRule></S3Key></Filter>' +
      '</QueueConfiguration></NotificationConfiguration>';
    expect((await s3Request(server, { method: 'PUT', bucket, query: 'notification', body: config })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket, key: 'a.log', body: 'one' })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket, key: 'a.txt', body: 'filtered out' })).status).toBe(200);
    expect((await s3Request(server, { method: 'DELETE', bucket, key: 'a.log' })).status).toBe(204);
    const wait = async (n: number) => {
      const until = Date.now() + 20_000;
      while ((await events()).filter((e) => e.Records).length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} events, got ${JSON.stringify(await events())}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await wait(2);
    const first = (await events()).filter((e) => e.Records);
    expect(first.map((e) => e.EventName)).toEqual(['s3:ObjectCreated:Put', 's3:ObjectRemoved:Delete']);
    expect(first[0]!.Records![0]!.s3.object).toMatchObject({ key: 'a.log', eTag: md5Hex('one') });
    // the test event went there too
    expect((await events()).some((e) => (e as { Event?: string }).Event === 's3:TestEvent')).toBe(true);

    await redisServer!.stop();
    expect((await s3Request(server, { method: 'PUT', bucket, key: 'b.log', body: 'while down' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    await startRedis();
    // Redis kept nothing (no persistence): only what came after it came back is in the list
    await wait(1);
    const after = (await events()).filter((e) => e.Records);
    expect(after.map((e) => e.Records![0]!.s3.object.key)).toEqual(['b.log']);
  });
});
