// A front-end thread that fails (an error nobody caught in it) ends alone: the process keeps
// serving on its other threads, a new thread takes the failed one's place on the port, every
// acknowledged write reads back, and shutdown does not wait for the requests the failed thread
// left unanswered. The failure is made with a test-only path (TUSK_TEST_FRONT_FAULT_PATH).

import { request, Agent } from 'node:http';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from './helpers/clients.js';
import { listeningSockets } from './helpers/proc.js';
import { listenerThreadsRun, startTusk, waitForOutput, type TuskServer } from './helpers/server.js';

const FAULT_PATH = '/tusk-test-fault';
let server: TuskServer;

beforeAll(async () => {
  server = await startTusk({ durability: 'relaxed', extraArgs: ['--threads', '2'], env: { TUSK_TEST_FRONT_FAULT_PATH: FAULT_PATH } });
});
afterAll(async () => {
  await server?.dispose();
});

/** One GET of the fault path on a new connection: the writer thread answers it, the front end fails on it. */
function probeFault(): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: FAULT_PATH, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve());
    req.end();
  });
}

describe.skipIf(!listenerThreadsRun())('a front-end thread that fails', () => {
  it('is replaced while the other thread keeps serving, and shutdown does not wait for its requests', async () => {
    // new connections until one lands on the front end's listener (the kernel spreads them)
    for (let i = 0; i < 60 && !/front-end thread 1 failed/.test(server.output()); i++) await probeFault();
    const failed = await waitForOutput(server.output, /^.*front-end thread 1 failed: Error: test fault.*$/m, 10_000);
    expect(JSON.parse(failed[0]).level).toBe(50); // error
    expect(server.alive()).toBe(true);

    await waitForOutput(server.output, /front-end thread 1 ended; starting a new one/, 10_000);
    const deadline = Date.now() + 20_000;
    while (listeningSockets(server.pid, server.port) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(listeningSockets(server.pid, server.port)).toBe(2);

    // both threads serve again: many connections, each write read back on another one
    const conns = Array.from({ length: 8 }, () => s3Client(server, { requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 1 }) } }));
    await conns[0]!.send(new CreateBucketCommand({ Bucket: 'after-failure' }));
    await Promise.all(
      conns.map(async (c, i) => {
        for (let n = 0; n < 10; n++) {
          const key = `c${i}/o${n}`;
          const body = Buffer.alloc(1000 + n * 5000, (i * 17 + n) % 251);
          await c.send(new PutObjectCommand({ Bucket: 'after-failure', Key: key, Body: body }));
          const got = await conns[(i + n + 1) % conns.length]!.send(new GetObjectCommand({ Bucket: 'after-failure', Key: key }));
          expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
        }
      }),
    );
    for (const c of conns) c.destroy();

    // the failed thread's unanswered request no longer counts: a graceful stop, well within its 10 s grace
    expect(await server.stop(6000)).toBe(0);
  });
});
