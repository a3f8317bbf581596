// --threads: front-end threads share the S3 port with the writer thread and serve reads and
// uploads themselves (the writer commits the bodies they send). Over many connections (the kernel
// spreads them over the threads' listeners), every acknowledged write reads back identical at once,
// a conditional create succeeds once, multipart parts uploaded on every thread make one object, a
// policy change holds on every connection from the next request, and the threads are really
// serving (one listening socket each, all busy).

import { readdirSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand,
  HeadObjectCommand, PutBucketPolicyCommand, PutObjectCommand, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client, sdkError } from './helpers/clients.js';
import { listeningSockets } from './helpers/proc.js';
import { listenerThreadsRun, startTusk, type TuskServer } from './helpers/server.js';

const THREADS = 3;
let server: TuskServer;

beforeAll(async () => {
  server = await startTusk({ durability: 'relaxed', extraArgs: ['--threads', String(THREADS)] });
});
afterAll(async () => {
  await server?.dispose();
});

/** One client per connection, so that requests land on every thread's listener. */
function clients(n: number) {
  return Array.from({ length: n }, () => s3Client(server, { requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 1 }) } }));
}

/** CPU time (ticks) of each thread of the server process. */
function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    out.set(tid, Number(fields[11]) + Number(fields[12]));
  }
  return out;
}

describe(`--threads ${THREADS}`, () => {
  it('listens once per thread and says so', () => {
    if (!listenerThreadsRun()) {
      expect(server.output()).toContain(`--threads ${THREADS}: the node engine shares a port between threads from Node 22.12 on`);
      expect(listeningSockets(server.pid, server.port)).toBe(1);
      return;
    }
    expect(listeningSockets(server.pid, server.port)).toBe(THREADS);
    expect(server.output()).toContain(`with ${THREADS} threads`);
  });

  it('reads back every acknowledged write over many connections, at once and after a delete', async () => {
    const conns = clients(12);
    await conns[0]!.send(new CreateBucketCommand({ Bucket: 'spread' }));
    const before = threadTicks(server.pid);
    await Promise.all(
      conns.map(async (c, i) => {
        for (let n = 0; n < 25; n++) {
          const key = `c${i}/o${n}`;
          const body = Buffer.alloc(500 + ((i * 25 + n) % 7) * 3000, (i * 31 + n) % 251);
          await c.send(new PutObjectCommand({ Bucket: 'spread', Key: key, Body: body }));
          // read on another connection: possibly another thread, which must see the commit already
          const other = conns[(i + n + 1) % conns.length]!;
          const got = await other.send(new GetObjectCommand({ Bucket: 'spread', Key: key }));
          expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
        }
        await c.send(new DeleteObjectCommand({ Bucket: 'spread', Key: `c${i}/o0` }));
        for (const other of conns) expect((await sdkError(other.send(new HeadObjectCommand({ Bucket: 'spread', Key: `c${i}/o0` })))).$metadata.httpStatusCode).toBe(404);
      }),
    );
    // the work was spread: more than one thread of the process took a real share of CPU
    const after = threadTicks(server.pid);
    const busy = [...after].filter(([tid, t]) => t - (before.get(tid) ?? 0) >= 5);
    expect(busy.length).toBeGreaterThan(1);
  });

  it('lets one of many simultaneous If-None-Match creates of a key succeed, on every thread', async () => {
    const conns = clients(12);
    await conns[0]!.send(new CreateBucketCommand({ Bucket: 'once' }));
    for (const size of [100, 300_000]) {
      const key = `k-${size}`;
      const bodies = conns.map(() => randomBytes(size));
      const outcomes = await Promise.all(conns.map((c, i) =>
        c.send(new PutObjectCommand({ Bucket: 'once', Key: key, Body: bodies[i], IfNoneMatch: '*' })).then(
          () => i,
          (e: { $metadata?: { httpStatusCode?: number } }) => {
            // 412: the key exists; 409: another create of it was in flight (both are S3's answers)
            expect([409, 412]).toContain(e.$metadata?.httpStatusCode);
            return -1;
          },
        ),
      ));
      const winners = outcomes.filter((i) => i >= 0);
      expect(winners).toHaveLength(1);
      const got = await conns[5]!.send(new GetObjectCommand({ Bucket: 'once', Key: key }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(bodies[winners[0]!]!)).toBe(true);
    }
  });

  it('completes a multipart upload whose parts went up on every connection', async () => {
    const conns = clients(8);
    await conns[0]!.send(new CreateBucketCommand({ Bucket: 'parts' }));
    const { UploadId } = await conns[0]!.send(new CreateMultipartUploadCommand({ Bucket: 'parts', Key: 'big' }));
    const parts = conns.map((_, i) => randomBytes(i === conns.length - 1 ? 777_777 : 5 * 1024 * 1024));
    const etags = await Promise.all(conns.map(async (c, i) =>
      (await c.send(new UploadPartCommand({ Bucket: 'parts', Key: 'big', UploadId, PartNumber: i + 1, Body: parts[i] }))).ETag!,
    ));
    await conns[3]!.send(new CompleteMultipartUploadCommand({
      Bucket: 'parts', Key: 'big', UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
    }));
    const got = Buffer.from(await (await conns[6]!.send(new GetObjectCommand({ Bucket: 'parts', Key: 'big' }))).Body!.transformToByteArray());
    const whole = Buffer.concat(parts);
    expect(got.length).toBe(whole.length);
    expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(whole).digest('hex'));
  });

  it('applies a bucket policy on every connection from the next request', async () => {
    const conns = clients(9);
    await conns[0]!.send(new CreateBucketCommand({ Bucket: 'guarded' }));
    await conns[0]!.send(new PutObjectCommand({ Bucket: 'guarded', Key: 'secret', Body: 'x' }));
    // every connection reads it (and caches the bucket's record in its thread)
    for (const c of conns) await c.send(new HeadObjectCommand({ Bucket: 'guarded', Key: 'secret' }));
    const policy = { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Principal: '*', Action: ['s3:GetObject', 's3:PutObject'], Resource: 'arn:aws:s3:::guarded/secret' }] };
    await conns[0]!.send(new PutBucketPolicyCommand({ Bucket: 'guarded', Policy: JSON.stringify(policy) }));
    for (const c of conns) {
      const e = await sdkError(c.send(new GetObjectCommand({ Bucket: 'guarded', Key: 'secret' })));
      expect(e.$metadata.httpStatusCode).toBe(403);
      const put = await sdkError(c.send(new PutObjectCommand({ Bucket: 'guarded', Key: 'secret', Body: 'overwrite' })));
      expect(put.$metadata.httpStatusCode).toBe(403);
    }
  });
});
