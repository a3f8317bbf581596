// --threads with the publisher over remote `tusk storage-node` processes: every thread reads the
// nodes itself, by their URLs. What one connection stored reads back identical on every other,
// also once a node holding f shards is gone.

import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardRanges, startStorageNodeProcess, type StorageNodeProcess } from './helpers/publisher.js';
import { makeTempDir, publisherOf, startTusk, type TuskServer } from './helpers/server.js';

const N = 10; // f = 3
const THREADS = 3;
let root: string;
const nodes: StorageNodeProcess[] = [];
let server: TuskServer;
let url: string;
let key: string;

beforeAll(async () => {
  root = makeTempDir('tusk-publisher-threads-remote-');
  // 3, 2, 3, 2 shards; the first node serves on two threads of its own
  for (const [i, shards] of shardRanges(N, 4).entries()) {
    nodes.push(await startStorageNodeProcess({ dataDir: join(root, `node-${i}`), shards, nShards: N, threads: i === 0 ? 2 : undefined }));
  }
  server = await startTusk({
    durability: 'relaxed',
    publisherListen: '127.0.0.1:0',
    extraArgs: ['--threads', String(THREADS), '--n-shards', String(N), '--storage-nodes', nodes.map((n) => n.url).join(',')],
  });
  ({ url, key } = await publisherOf(server));
});
afterAll(async () => {
  await server?.dispose();
  for (const node of nodes) await node.stop();
  rmSync(root, { recursive: true, force: true });
});

async function request(c: Client, path: string, init: { method?: string; body?: Buffer } = {}) {
  const r = await fetch(`${url}${path}`, { dispatcher: c, method: init.method ?? 'GET', body: init.body });
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
}

describe(`publisher with --threads ${THREADS} over remote storage nodes`, () => {
  it('reads what one connection stored on every other, also with a node of f shards gone', async () => {
    expect(server.output()).toContain(`publisher on ${THREADS} threads (reads on each`);
    const conns = Array.from({ length: 6 }, () => new Client(url, { pipelining: 1 }));
    try {
      const blobs: Array<{ id: string; bytes: Buffer }> = [];
      for (const [i, c] of conns.entries()) {
        const bytes = randomBytes(16 + i * 9_001);
        const put = await request(c, `/${key}/v1/blobs`, { method: 'PUT', body: bytes });
        expect(put.status, put.body.toString()).toBe(200);
        const id = JSON.parse(put.body.toString()).newlyCreated.blobObject.blobId as string;
        blobs.push({ id, bytes });
        for (const other of conns) {
          const got = await request(other, `/v1/blobs/${id}`);
          expect(got.status).toBe(200);
          expect(got.body.equals(bytes)).toBe(true);
        }
      }
      await nodes[0]!.stop();
      for (const c of conns) {
        for (const { id, bytes } of blobs) expect((await request(c, `/v1/blobs/${id}`)).body.equals(bytes)).toBe(true);
      }
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  });
});
