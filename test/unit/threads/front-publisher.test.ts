// A front-end thread's share of the publisher (threads/front-publisher.ts), run in this thread on a
// port of its own beside a publisher with ten in-process nodes and the native codec: reads are
// answered from its read-only views of the nodes, identical and at once after a store; every other
// request reaches the publisher through the bridge, which answers it as its own.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { serveForwarded } from '../../../src/http/thread-bridge.js';
import { freePort, sharedInFlightCounts } from '../../../src/http/listener.js';
import type { PublisherAccessRecord } from '../../../src/ops/access-log.js';
import { storageNetworkView } from '../../../src/publisher/service/network-view.js';
import { startFrontPublisher } from '../../../src/threads/front-publisher.js';
import { getBytes, getJson, putBlob } from '../../e2e/helpers/publisher-client.js';
import { KEY, N_SHARDS } from '../publisher/service/publisher-fixture.js';
import { nativePublisher } from '../publisher/service/native-publisher.js';

const pub = nativePublisher();

describe('a front-end thread of the publisher', () => {
  it('serves reads itself, fresh after every store, and forwards stores, refusals and the ledger', async () => {
    const fx = await pub.start();
    const channel = new MessageChannel();
    const forwarded: string[] = [];
    serveForwarded(channel.port1, (ex) => {
      forwarded.push(`${ex.head.method} ${ex.head.rawPath.replace(KEY, '<key>')}`);
      return fx.publisher.serve(ex);
    });
    const records: PublisherAccessRecord[] = [];
    const port = await freePort('127.0.0.1');
    const front = await startFrontPublisher(
      {
        port,
        endpointKeys: [KEY],
        jwt: false,
        nShards: N_SHARDS,
        network: storageNetworkView(fx.network, path.join(fx.dir, 'nodes')),
        codecThreads: 1,
        inFlightCounts: sharedInFlightCounts(2),
        bridge: channel.port2,
      },
      '127.0.0.1',
      { log: () => undefined, record: (r) => records.push(r), slot: 1 },
    );
    const url = `http://127.0.0.1:${port}`;
    try {
      // a store through the front end goes to the publisher
      const blob = randomBytes(50_000);
      const put = await putBlob(url, `/${KEY}/v1/blobs`, blob);
      expect(put.status, put.text).toBe(200);
      const id = put.json.newlyCreated.blobObject.blobId as string;
      expect(forwarded).toEqual(['PUT /<key>/v1/blobs']);

      // stores on the publisher's own port, each read on the front end at once
      for (let i = 0; i < 5; i++) {
        const other = randomBytes(1 + i * 7_000);
        const stored = await fx.put('', other);
        expect(stored.status).toBe(200);
        const read = await getBytes(url, `/v1/blobs/${stored.json.newlyCreated.blobObject.blobId}`);
        expect(read.status).toBe(200);
        expect(read.body.equals(other)).toBe(true);
      }

      const whole = await getBytes(url, `/v1/blobs/${id}`);
      expect(whole.status).toBe(200);
      expect(whole.body.equals(blob)).toBe(true);
      expect(whole.headers.get('etag')).toBe(id);
      const ranged = await getBytes(url, `/v1/blobs/${id}`, { range: 'bytes=1000-40999' });
      expect(ranged.status).toBe(206);
      expect(ranged.body.equals(blob.subarray(1000, 41_000))).toBe(true);
      const byteRange = await getBytes(url, `/v1/blobs/${id}/byte-range?start=7&length=100`);
      expect(byteRange.status).toBe(200);
      expect(byteRange.body.equals(blob.subarray(7, 107))).toBe(true);
      const keyed = await getBytes(url, `/${KEY}/v1/blobs/${id}`);
      expect(keyed.body.equals(blob)).toBe(true);
      expect((await getBytes(url, '/status')).body.toString()).toBe('OK');
      const missing = await getJson(url, `/v1/blobs/${Buffer.alloc(32, 7).toString('base64url')}`);
      expect(missing.status).toBe(404);
      expect(missing.json.error.status).toBe('NOT_FOUND');
      expect(forwarded).toHaveLength(1);
      // each request served here is recorded here, for the writer's access log
      await expect.poll(() => records.length).toBe(11);
      expect(records.map((r) => `${r.op} ${r.status}`)).toEqual([
        ...Array(7).fill('readBlob 200').map((s, i) => (i === 6 ? 'readBlob 206' : s)),
        'readBlobRange 200',
        'readBlob 200',
        'status 200',
        'readBlob 404',
      ]);

      // a refusal, a read by object id and the ledger are the publisher's to answer
      const refused = await putBlob(url, '/not-the-key/v1/blobs', 'x');
      expect(refused.status).toBe(403);
      const object = put.json.newlyCreated.blobObject.id as string;
      const byObject = await getBytes(url, `/v1/blobs/by-object-id/${object}`);
      expect(byObject.body.equals(blob)).toBe(true);
      const ledger = await getJson(url, `/v1/ledger/objects/${object}`);
      expect(ledger.status, ledger.text).toBe(200);
      expect(forwarded).toEqual(['PUT /<key>/v1/blobs', 'PUT /not-the-key/v1/blobs', `GET /v1/blobs/by-object-id/${object}`, `GET /v1/ledger/objects/${object}`]);

      // a concatenation of blob ids is served here; one naming an object, or posted, is forwarded
      const concat = await getBytes(url, `/v1alpha/blobs/concat?ids=${id},${id}`);
      expect(concat.body.equals(Buffer.concat([blob, blob]))).toBe(true);
      expect(forwarded).toHaveLength(4);
      const viaObject = await getBytes(url, `/v1alpha/blobs/concat?ids=${id},${object}`);
      expect(viaObject.body.equals(Buffer.concat([blob, blob]))).toBe(true);
      const posted = await fetch(`${url}/v1alpha/blobs/concat`, { method: 'POST', body: JSON.stringify({ ids: [id] }) });
      expect(Buffer.from(await posted.arrayBuffer()).equals(blob)).toBe(true);
      expect(forwarded.slice(4)).toEqual([`GET /v1alpha/blobs/concat`, 'POST /v1alpha/blobs/concat']);
    } finally {
      await front.close(1_000);
      channel.port1.close();
    }
  });
});
