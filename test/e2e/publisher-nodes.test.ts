// The publisher with its storage nodes as separate `tusk storage-node` processes (walrus.md §12),
// some of them with --threads 3: stores with up to f shards down, refuses to certify with more, and
// reads back byte-identical after stopping or wiping nodes holding 2f shards.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardRanges, startPublisherProcess, startStorageNodeProcess, type PublisherProcess, type StorageNodeProcess } from './helpers/publisher.js';
import { makeTempDir } from './helpers/server.js';
import { getBytes, getJson, putBlob, walrusEncodedLength } from './helpers/publisher-client.js';
import { splitMix64 } from '../unit/publisher/codec/vector-input.js';

const N = 10; // f = 3, quorum 7, n_primary 4
const NODES = 5; // two shards each

describe('publisher over storage-node processes, n = 10', () => {
  let root: string;
  const nodes: StorageNodeProcess[] = [];
  let pub: PublisherProcess;

  beforeAll(async () => {
    root = makeTempDir('tusk-publisher-nodes-e2e-');
    const ranges = shardRanges(N, NODES);
    for (const [i, shards] of ranges.entries()) {
      // every other node serves on three threads: its reads on each, its stores on the first
      nodes.push(await startStorageNodeProcess({ dataDir: join(root, `node-${i}`), shards, nShards: N, threads: i % 2 === 0 ? 3 : undefined }));
    }
    pub = await startPublisherProcess({ dataDir: join(root, 'publisher'), nShards: N, nodeUrls: nodes.map((n) => n.url) });
  });
  afterAll(async () => {
    await pub?.stop();
    for (const node of nodes) await node.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('stores, stores again, stores deletable, survives f shards down, refuses past f, reads back after losing 2f', async () => {
    const key = pub.endpointKey;
    expect(pub.output()).toContain(`${NODES} remote storage nodes`);
    const data = splitMix64(0xfeedn, 700_000);
    const first = await putBlob(pub.url, `/${key}/v1/blobs?epochs=2`, data);
    expect(first.status).toBe(200);
    const obj = first.json.newlyCreated.blobObject;
    expect(obj.storage.storageSize).toBe(walrusEncodedLength(data.length, N));
    expect(obj.storage.endEpoch).toBe(obj.storage.startEpoch + 2);

    const again = await putBlob(pub.url, `/${key}/v1/blobs`, data);
    expect(again.json.alreadyCertified).toMatchObject({ blobId: obj.blobId, endEpoch: obj.storage.endEpoch, event: { eventSeq: '0' } });
    const event = await getJson(pub.url, `/v1/ledger/events/${again.json.alreadyCertified.event.txDigest}/0`);
    expect(event.json).toMatchObject({ type: 'BlobCertified', data: { objectId: obj.id } });
    const deletable = await putBlob(pub.url, `/${key}/v1/blobs?deletable=true`, data);
    expect(deletable.json.newlyCreated.blobObject).toMatchObject({ blobId: obj.blobId, deletable: true });

    const read = await getBytes(pub.url, `/v1/blobs/${obj.blobId}`);
    expect(read.status).toBe(200);
    expect(read.body.equals(data)).toBe(true);

    // Node 0 down: 2 ≤ f shards missing, a quorum of 8 still confirms.
    await nodes[0]!.stop();
    const second = splitMix64(0xbeefn, 50_000);
    const degraded = await putBlob(pub.url, `/${key}/v1/blobs`, second);
    expect(degraded.status).toBe(200);
    expect(degraded.json.newlyCreated.blobObject.certifiedEpoch).toBe(degraded.json.newlyCreated.blobObject.registeredEpoch);

    // Node 1 down as well: 4 > f shards missing, 6 < 7 confirm: 504, the paid registration stays.
    await nodes[1]!.stop();
    const third = Buffer.from('cannot be certified with four shards down');
    const refused = await putBlob(pub.url, `/${key}/v1/blobs`, third);
    expect(refused.status).toBe(504);
    expect(refused.json.error).toMatchObject({ code: 504, details: [{ reason: 'INSUFFICIENT_CONFIRMATIONS', domain: 'daemon.walrus.space' }] });

    // Node 2 keeps running but loses everything it held of both blobs (the reclaim route of
    // walrus.md §12.2's node API): 6 = 2f shards lost in all.
    for (const blob of [obj.blobId, degraded.json.newlyCreated.blobObject.blobId]) {
      const wiped = await fetch(`${nodes[2]!.url}/v1/blobs/${blob}`, { method: 'DELETE' });
      expect(wiped.status).toBe(200);
      expect((await getBytes(nodes[2]!.url, `/v1/blobs/${blob}/metadata`)).status).toBe(404);
    }

    for (const [blob, bytes] of [[obj.blobId, data], [degraded.json.newlyCreated.blobObject.blobId, second]] as const) {
      const back = await getBytes(pub.url, `/v1/blobs/${blob}`);
      expect(back.status).toBe(200);
      expect(back.body.equals(bytes)).toBe(true);
    }

    // One more node down: 2 shards left, fewer than n_primary.
    await nodes[3]!.stop();
    const gone = await getJson(pub.url, `/v1/blobs/${obj.blobId}`);
    expect(gone.status).toBe(503);
    expect(gone.json.error.details[0].reason).toBe('BLOB_UNAVAILABLE');
  });
});
