// MinIO's ListenBucketNotification end to end: the unmodified minio-js client's
// listenBucketNotification gets the records of PUT and DELETE live (filters honoured), on both HTTP
// engines and, under the threads-4 project, with the listener and the writers on any thread; the
// stream's framing as MinIO sends it (event-stream headers, keep-alive spaces, one JSON line per
// event); the bucket-less form; and the errors of a bad listen request.

import { request } from 'node:http';
import * as Minio from 'minio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { testAccount } from './helpers/accounts.js';
import { uwsAvailability } from '../../src/http/uws-module.js';
import { signHeaders, EMPTY_SHA256, type HeaderList } from './helpers/sigv4.js';
import { startTusk, type Credentials, type TuskServer } from './helpers/server.js';

interface ListenRecord {
  eventName: string;
  s3: { bucket: { name: string }; object: { key: string; size?: number; eTag?: string; sequencer: string } };
}

const other = testAccount('listener', '222233334444');

function minioClient(server: TuskServer): Minio.Client {
  return new Minio.Client({
    endPoint: '127.0.0.1', port: server.port, useSSL: false, pathStyle: true, region: server.region,
    accessKey: server.root.accessKeyId, secretKey: server.root.secretAccessKey,
  });
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits until `records` shows a listener is connected: PUTs `probe` objects until one arrives (the
 * listen request may still be on its way when the first ones commit).
 */
async function connected(server: TuskServer, bucket: string, probeKey: string, records: () => ListenRecord[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!records().some((r) => r.s3.object.key.startsWith(encodeURIComponent(probeKey)))) {
    if (Date.now() > deadline) throw new Error('the listener never got a probe event');
    expect((await s3Request(server, { method: 'PUT', bucket, key: `${probeKey}${Date.now()}.txt`, body: 'p' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A signed GET whose body is read as it arrives (node:http). */
function openStream(server: TuskServer, path: string, query: string, credentials: Credentials = server.root) {
  const headers: HeaderList = [['host', `127.0.0.1:${server.port}`]];
  const signed = signHeaders({ method: 'GET', path, query, headers, credentials, region: server.region, payloadHash: EMPTY_SHA256 }).headers;
  let text = '';
  const arrivals: number[] = [];
  let ended = false;
  const req = request({ host: '127.0.0.1', port: server.port, method: 'GET', path: `${path}?${query}`, headers: Object.fromEntries(signed) });
  const response = new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    req.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        arrivals.push(Date.now());
      });
      res.on('end', () => (ended = true));
      res.on('error', () => (ended = true));
      resolve({ status: res.statusCode!, headers: res.headers });
    });
    req.on('error', reject);
  });
  req.end();
  return {
    response,
    text: () => text,
    arrivals,
    ended: () => ended,
    records: (): ListenRecord[] => text.split('\n').filter((l) => l.trim()).flatMap((l) => (JSON.parse(l) as { Records: ListenRecord[] | null }).Records ?? []),
    close: () => req.destroy(),
  };
}

for (const engine of ['uws', 'node'] as const) {
  // uWS has no binary for some Node/glibc pairs (Node 24 on Debian 12): the node engine runs there
  describe.skipIf(engine === 'uws' && !('module' in uwsAvailability()))(`ListenBucketNotification (${engine} engine)`, () => {
    let server: TuskServer;
    beforeAll(async () => {
      server = await startTusk({ env: { TUSK_HTTP_ENGINE: engine }, extraAccounts: [other] });
    });
    afterAll(async () => {
      await server?.dispose();
    });

    it('minio-js listenBucketNotification gets PUT and DELETE records live, filters honoured', async () => {
      const client = minioClient(server);
      const bucket = bucketName('listen');
      await client.makeBucket(bucket, server.region);
      const got: ListenRecord[] = [];
      const errors: unknown[] = [];
      const poller = client.listenBucketNotification(bucket, 'in/', '.txt', ['s3:ObjectCreated:*', 's3:ObjectRemoved:*']);
      poller.on('notification', (r: unknown) => got.push(r as ListenRecord));
      poller.on('error', (e: unknown) => errors.push(e));
      try {
        await connected(server, bucket, 'in/probe-', () => got);
        got.length = 0;
        const put = await client.putObject(bucket, 'in/a b+c.txt', Buffer.from('hello'));
        await client.putObject(bucket, 'in/skip.bin', Buffer.from('no suffix'));
        await client.putObject(bucket, 'out/skip.txt', Buffer.from('no prefix'));
        const big = Buffer.alloc(4096, 7);
        const put2 = await client.putObject(bucket, 'in/big.txt', big);
        await client.removeObject(bucket, 'in/a b+c.txt');
        await until(() => got.length >= 3, 'three records');
        // a little longer: nothing filtered out may follow
        await new Promise((r) => setTimeout(r, 300));
        expect(got.map((r) => `${r.eventName} ${r.s3.object.key}`)).toEqual([
          's3:ObjectCreated:Put in%2Fa+b%2Bc.txt',
          's3:ObjectCreated:Put in%2Fbig.txt',
          's3:ObjectRemoved:Delete in%2Fa+b%2Bc.txt',
        ]);
        expect(got[0]!.s3.bucket.name).toBe(bucket);
        expect(got[0]!.s3.object).toMatchObject({ size: 5, eTag: put.etag });
        expect(got[1]!.s3.object).toMatchObject({ size: 4096, eTag: put2.etag });
        expect(got[2]!.s3.object.size).toBeUndefined();
        // per key, in commit order
        expect(got[2]!.s3.object.sequencer > got[0]!.s3.object.sequencer).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        poller.stop();
      }
    });

    it('streams as MinIO does: event-stream headers, keep-alive spaces, one {"Records":[…]} line per event; bucket-less form too', async () => {
      const bucket = bucketName('listen-raw');
      expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
      const stream = openStream(server, `/${bucket}`, 'events=s3%3AObjectCreated%3A%2A');
      const all = openStream(server, '/', 'events=s3%3AObjectCreated%3APut');
      try {
        const head = await stream.response;
        expect(head.status).toBe(200);
        expect(head.headers['content-type']).toBe('text/event-stream');
        expect(head.headers['x-amz-request-id']).toMatch(/.+/);
        expect((await all.response).status).toBe(200);
        // keep-alive: a space every 500 ms while nothing happens
        await until(() => stream.text().length >= 2, 'two keep-alive spaces', 5_000);
        expect(stream.text().trim()).toBe('');
        await connected(server, bucket, 'probe-', stream.records);
        await until(() => all.records().length > 0, 'the bucket-less listener');
        const lines = stream.text().split('\n');
        expect(lines.at(-1)!.trim()).toBe('');
        for (const line of lines.slice(0, -1)) expect(line.trimStart()).toMatch(/^\{"Records":\[\{"eventVersion":"2\.1"/);
        expect(all.records()[0]!.s3.bucket.name).toBe(bucket);
      } finally {
        stream.close();
        all.close();
      }
    });

    it('another account may not listen to the bucket; its bucket-less stream gets only its own buckets', async () => {
      const bucket = bucketName('listen-own');
      expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
      const denied = await s3Request(server, { method: 'GET', bucket, query: 'events=s3%3AObjectCreated%3A%2A', credentials: other });
      expect(denied.status).toBe(403);
      expect(denied.body.toString()).toContain('<Code>AccessDenied</Code>');
      const theirs = openStream(server, '/', 'events=s3%3AObjectCreated%3A%2A', other);
      const mine = openStream(server, `/${bucket}`, 'events=s3%3AObjectCreated%3A%2A');
      try {
        expect((await theirs.response).status).toBe(200);
        await connected(server, bucket, 'probe-', mine.records);
        await new Promise((r) => setTimeout(r, 300));
        expect(theirs.records()).toEqual([]);
      } finally {
        theirs.close();
        mine.close();
      }
    });

    it('refuses a bad listen request with S3 errors', async () => {
      const bucket = bucketName('listen-bad');
      expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
      const cases: Array<[string, string | undefined, number, string]> = [
        ['events=s3%3ANoSuchEvent', bucket, 400, 'InvalidArgument'],
        ['events=s3%3AObjectCreated%3A%2A&prefix=a&prefix=b', bucket, 400, 'InvalidArgument'],
        ['events=s3%3AObjectCreated%3A%2A&suffix=a%5Cb', bucket, 400, 'InvalidArgument'],
        ['events=s3%3AObjectCreated%3A%2A', `${bucket}-missing`, 404, 'NoSuchBucket'],
      ];
      for (const [query, b, status, code] of cases) {
        const r = await s3Request(server, { method: 'GET', bucket: b, query });
        expect([query, r.status]).toEqual([query, status]);
        expect(r.body.toString()).toContain(`<Code>${code}</Code>`);
        expect(r.body.toString()).toContain('<RequestId>');
      }
    });
  });
}
