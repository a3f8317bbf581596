// --threads with the publisher on: every thread listens on the publisher's port too and serves the
// aggregator's reads from read-only views of the in-process storage nodes; stores go to the first
// thread. Over many connections (the kernel spreads them over the listeners), every acknowledged
// blob reads back identical at once on every other connection, whole, by range and as quilt
// patches, and every request is logged once, whichever thread answered it.

import { randomBytes } from 'node:crypto';
import { Client, fetch, FormData } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningSockets } from './helpers/proc.js';
import { listenerThreadsRun, publisherOf, startTusk, type TuskServer } from './helpers/server.js';

const THREADS = 3;
let server: TuskServer;
let url: string;
let key: string;

beforeAll(async () => {
  server = await startTusk({ durability: 'relaxed', publisherListen: '127.0.0.1:0', extraArgs: ['--threads', String(THREADS), '--n-shards', '10'] });
  ({ url, key } = await publisherOf(server));
});
afterAll(async () => {
  await server?.dispose();
});

/** One client per connection, so that requests land on every thread's listener. */
function connections(n: number): Client[] {
  return Array.from({ length: n }, () => new Client(url, { pipelining: 1 }));
}

async function request(c: Client, path: string, init: { method?: string; body?: Buffer | FormData; headers?: Record<string, string> } = {}) {
  const r = await fetch(`${url}${path}`, { dispatcher: c, method: init.method ?? 'GET', body: init.body, headers: init.headers });
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
}

const accessLines = (op: string): number => server.output().split('\n').filter((l) => l.includes('"face":"publisher"') && l.includes(`"op":"${op}"`)).length;

describe(`publisher with --threads ${THREADS}`, () => {
  it.skipIf(!listenerThreadsRun())('listens once per thread on the publisher port and says so', () => {
    expect(listeningSockets(server.pid, Number(new URL(url).port))).toBe(THREADS);
    expect(server.output()).toContain(`publisher on ${THREADS} threads (reads on each`);
  });

  it('reads every acknowledged blob back at once on every other connection, whole, by range and streamed, each read logged once', async () => {
    const conns = connections(9);
    const readsBefore = accessLines('readBlob');
    let reads = 0;
    try {
      await Promise.all(
        conns.map(async (c, i) => {
          for (let n = 0; n < 4; n++) {
            // at least 16 random bytes: no two blobs alike (a repeat would be alreadyCertified)
            const blob = randomBytes(16 + ((i * 4 + n) % 5) * 20_011);
            const put = await request(c, `/${key}/v1/blobs`, { method: 'PUT', body: blob });
            expect(put.status, put.body.toString()).toBe(200);
            const id = JSON.parse(put.body.toString()).newlyCreated.blobObject.blobId as string;
            for (let k = 1; k <= 3; k++) {
              // another connection, possibly another thread, must find the blob already
              const got = await request(conns[(i + n + k) % conns.length]!, `/v1/blobs/${id}`);
              reads++;
              expect(got.status).toBe(200);
              expect(got.body.equals(blob)).toBe(true);
            }
            const ranged = await request(conns[(i + n + 4) % conns.length]!, `/v1/blobs/${id}`, { headers: { range: `bytes=0-${Math.min(blob.length, 999) - 1}` } });
            reads++;
            expect(ranged.status).toBe(206);
            expect(ranged.body.equals(blob.subarray(0, Math.min(blob.length, 999)))).toBe(true);
            const streamed = await request(conns[(i + n + 5) % conns.length]!, `/v1alpha/blobs/${id}/stream`);
            expect(streamed.status).toBe(200);
            expect(streamed.body.equals(blob)).toBe(true);
          }
        }),
      );
      // the relayed lines reach the log in batches: wait for all, then make sure none came twice
      await expect.poll(() => accessLines('readBlob') - readsBefore, { timeout: 5_000 }).toBe(reads);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(accessLines('readBlob') - readsBefore).toBe(reads);
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  });

  it('serves quilt patches stored on one connection from every other', async () => {
    const conns = connections(6);
    try {
      const files = Array.from({ length: 4 }, (_, i) => ({ name: `f${i}.bin`, bytes: randomBytes(100 + i * 3_000) }));
      const form = new FormData();
      for (const f of files) form.append(f.name, new Blob([f.bytes]), f.name);
      const put = await request(conns[0]!, `/${key}/v1/quilts`, { method: 'PUT', body: form });
      expect(put.status, put.body.toString()).toBe(200);
      const stored = JSON.parse(put.body.toString()) as { blobStoreResult: { newlyCreated: { blobObject: { blobId: string } } }; storedQuiltBlobs: Array<{ identifier: string; quiltPatchId: string }> };
      const quiltId = stored.blobStoreResult.newlyCreated.blobObject.blobId;
      for (const [i, c] of conns.entries()) {
        const f = files[i % files.length]!;
        const byId = await request(c, `/v1/blobs/by-quilt-patch-id/${stored.storedQuiltBlobs.find((p) => p.identifier === f.name)!.quiltPatchId}`);
        expect(byId.body.equals(f.bytes)).toBe(true);
        const byName = await request(c, `/v1/blobs/by-quilt-id/${quiltId}/${f.name}`);
        expect(byName.body.equals(f.bytes)).toBe(true);
        const list = await request(c, `/v1/quilts/${quiltId}/patches`);
        expect((JSON.parse(list.body.toString()) as Array<{ identifier: string }>).map((p) => p.identifier).sort()).toEqual(files.map((f) => f.name));
      }
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  });

  it('answers refusals and the ledger on every connection as with one thread, and stops cleanly', async () => {
    const conns = connections(6);
    try {
      for (const c of conns) {
        expect((await request(c, '/not-the-key/v1/blobs', { method: 'PUT', body: Buffer.from('x') })).status).toBe(403);
        expect((await request(c, `/v1/blobs/${Buffer.alloc(32, 9).toString('base64url')}`)).status).toBe(404);
        expect((await request(c, '/v1/blobs/not-a-blob-id')).status).toBe(400);
        const status = await request(c, '/v1/ledger/status');
        expect(status.status).toBe(200);
      }
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
    expect(await server.stop(15_000)).toBe(0);
  });
});
