// Crash safety of the publisher (architecture: an acknowledged store is durable): writers store
// blobs concurrently, the process is killed with SIGKILL at a random moment, and a restart on the
// same data directory must read every acknowledged blob back byte-identical, find its Blob object
// certified on the ledger, answer `alreadyCertified` for it, and keep an unbroken ledger chain.

import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { getBytes, getJson, putBlob } from './helpers/publisher-client.js';
import { startPublisherProcess, type PublisherProcess } from './helpers/publisher.js';
import { makeTempDir } from './helpers/server.js';

const ROUNDS = 3;
const WRITERS = 3;
const N_SHARDS = 10;
const MAX_SIZE = 300_000;

interface Stored {
  blobId: string;
  objectId: string | undefined;
  sha256: string;
  size: number;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const dataDir = makeTempDir('tusk-publisher-crash-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('kill -9 during concurrent blob stores', () => {
  it(`keeps every acknowledged blob readable and certified (${ROUNDS} rounds)`, async () => {
    const seed = Number(process.env.TUSK_CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const stored: Stored[] = [];
    let key = '';
    let pub: PublisherProcess | undefined;

    const verify = async (p: PublisherProcess) => {
      for (const blob of stored) {
        const back = await getBytes(p.url, `/v1/blobs/${blob.blobId}`);
        expect(back.status, `blob ${blob.blobId} (seed ${seed})`).toBe(200);
        expect(back.body.length).toBe(blob.size);
        expect(sha256(back.body), `blob ${blob.blobId} content (seed ${seed})`).toBe(blob.sha256);
        if (blob.objectId) {
          const object = await getJson(p.url, `/v1/ledger/objects/${blob.objectId}`);
          expect(object.json, `object ${blob.objectId} (seed ${seed})`).toMatchObject({ type: 'Blob', state: 'certified' });
        }
      }
      const chain = await getJson(p.url, '/v1/ledger/verify');
      expect(chain.json, `ledger chain (seed ${seed})`).toMatchObject({ ok: true });
    };

    try {
      for (let round = 0; round < ROUNDS; round++) {
        pub = await startPublisherProcess({ dataDir, nShards: N_SHARDS, durability: 'strict', endpointKeys: key ? [key] : undefined });
        key = pub.endpointKey;
        await verify(pub);
        const current = pub;
        let killed = false;
        const writer = async () => {
          while (!killed) {
            const data = randomBytes(1 + Math.floor(rand() * MAX_SIZE));
            const answer = await putBlob(current.url, `/${key}/v1/blobs?epochs=3`, data).catch(() => undefined);
            if (answer?.status !== 200) continue; // cut off by the kill: no promise was made
            const created = answer.json.newlyCreated?.blobObject;
            const blobId: string = created?.blobId ?? answer.json.alreadyCertified.blobId;
            stored.push({ blobId, objectId: created?.id, sha256: sha256(data), size: data.length });
          }
        };
        const writers = Array.from({ length: WRITERS }, writer);
        await new Promise((resolve) => setTimeout(resolve, 300 + rand() * 1200));
        killed = true;
        await current.kill9();
        await Promise.all(writers);
      }
      pub = await startPublisherProcess({ dataDir, nShards: N_SHARDS, durability: 'strict', endpointKeys: [key] });
      await verify(pub);
      expect(stored.length, `acknowledged stores across ${ROUNDS} rounds (seed ${seed})`).toBeGreaterThan(0);
      // A permanent blob stored before the crash is still known as certified.
      const first = stored[0]!;
      const again = await getBytes(pub.url, `/v1/blobs/${first.blobId}`);
      const repeat = await putBlob(pub.url, `/${key}/v1/blobs?epochs=1`, again.body);
      expect(repeat.json.alreadyCertified?.blobId, `re-store after restart (seed ${seed})`).toBe(first.blobId);
      console.info(`publisher crash test: seed ${seed}, ${stored.length} acknowledged stores across ${ROUNDS} kill -9 rounds`);
    } finally {
      await pub?.stop();
    }
  }, 120_000);
});
