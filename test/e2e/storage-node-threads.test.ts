// `tusk storage-node --threads 3`: three listeners on the node's port, the read routes answered on
// every thread from a read-only view of the node's directory, stores and deletes on the first.
// Over many connections (the kernel spreads them over the listeners), what one connection stored
// reads back identical at once on every other, with confirmations signed by the node's key, and a
// delete is seen at once everywhere.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobCodec, type NativeBlobCodec } from '../../src/publisher/rs2/codec.js';
import { verifyConfirmation } from '../../src/publisher/nodes/confirmation.js';
import { RemoteNodeClient } from '../../src/publisher/nodes/http-client.js';
import { blobIdToText } from '../../src/publisher/nodes/identifiers.js';
import { splitMix64 } from '../unit/publisher/codec/vector-input.js';
import { startStorageNodeProcess, type StorageNodeProcess } from './helpers/publisher.js';
import { listeningSockets } from './helpers/proc.js';
import { listenerThreadsRun, makeTempDir } from './helpers/server.js';

const N = 10;
const THREADS = 3;
let root: string;
let node: StorageNodeProcess;
let codec: NativeBlobCodec;

beforeAll(async () => {
  root = makeTempDir('tusk-node-threads-e2e-');
  codec = await openBlobCodec({ threads: 1 });
  node = await startStorageNodeProcess({ dataDir: join(root, 'node'), shards: `0-${N - 1}`, nShards: N, threads: THREADS });
});
afterAll(async () => {
  await node?.stop();
  await codec?.close();
  rmSync(root, { recursive: true, force: true });
});

/** GET on one connection of its own: status and body. */
async function get(c: Client, path: string): Promise<{ status: number; body: Buffer }> {
  const r = await fetch(`${node.url}${path}`, { dispatcher: c });
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
}

describe(`storage-node --threads ${THREADS}`, () => {
  it.skipIf(!listenerThreadsRun())('listens once per thread and says so', () => {
    expect(listeningSockets(node.pid, Number(new URL(node.url).port))).toBe(THREADS);
    expect(node.output()).toContain(`with ${THREADS} threads`);
  });

  it('reads back what one connection stored on every other at once, and sees a delete everywhere', async () => {
    const writer = new RemoteNodeClient(node.url, { timeoutMs: 10_000 });
    const { publicKey } = await writer.info();
    const conns = Array.from({ length: 9 }, () => new Client(node.url, { pipelining: 1 }));
    try {
      for (let b = 0; b < 3; b++) {
        const encoded = await codec.encode(splitMix64(BigInt(b + 1), 20_000 + b * 9_000), N);
        const blobId = encoded.blobId;
        const id = blobIdToText(blobId);
        expect(await writer.putMetadata(blobId, encoded.metadataBcs)).toBe('stored');
        for (let pair = 0; pair < N; pair++) {
          const { primary, secondary } = encoded.sliverPair(pair);
          expect(await writer.putSliver(blobId, pair, 'primary', primary)).toBe('stored');
          expect(await writer.putSliver(blobId, pair, 'secondary', secondary)).toBe('stored');
          // right after the store, on every connection
          for (const c of conns) {
            const got = await get(c, `/v1/blobs/${id}/slivers/${pair}/primary`);
            expect(got.status).toBe(200);
            expect(got.body.equals(primary)).toBe(true);
          }
        }
        for (const c of conns) {
          expect((await get(c, `/v1/blobs/${id}/metadata`)).body.equals(encoded.metadataBcs)).toBe(true);
          const confirmation = await get(c, `/v1/blobs/${id}/confirmation/permanent?epoch=${b + 1}`);
          expect(confirmation.status).toBe(200);
          const signed = JSON.parse(confirmation.body.toString()).success.data.signed;
          expect(await verifyConfirmation(publicKey, { epoch: b + 1, blobId, blobType: { kind: 'permanent' } }, signed)).toBe(true);
        }
        expect(await writer.deleteBlob(blobId)).toBe(2 * N + 1);
        for (const c of conns) {
          expect((await get(c, `/v1/blobs/${id}/metadata`)).status).toBe(404);
          expect((await get(c, `/v1/blobs/${id}/slivers/0/secondary`)).status).toBe(404);
        }
        encoded.release();
      }
      // health and refusals are the first thread's, answered alike on every connection
      for (const c of conns) {
        expect(JSON.parse((await get(c, '/v1/health')).body.toString()).success.data.nodeId).toBe('storage-node-0');
        expect((await get(c, '/v1/nowhere')).status).toBe(404);
      }
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
    expect(await node.stop()).toBe(0);
  });
});
