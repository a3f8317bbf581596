// The publisher face end to end with the real RS2 codec and in-process storage nodes (ten nodes,
// each its own directory): store, store again, store deletable, read back, lose 2f shards, read
// back again; bad input; limits; ledger look-ups.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPublisherProcess, type PublisherProcess } from './helpers/publisher.js';
import { makeTempDir } from './helpers/server.js';
import { getBytes, getJson, ledgerTransactions, putBlob, walrusCost, walrusEncodedLength } from './helpers/publisher-client.js';
import { splitMix64 } from '../unit/publisher/codec/vector-input.js';

/** walrus.md §13: Walrus's own blob-id regression vector at n = 10. */
const VECTOR_TEXT = 'walrus blob id v1 regression test';
const VECTOR_ID_N10 = 'RcU82Mwf-CFkv1LaI_2qcpANwpGUuG3TMwnVzZxD2kY';
/** walrus.md §13: bytes 00..09 at n = 1000. */
const VECTOR_ID_N1000 = Buffer.from('865ca48479104a9bdc136f7d6730b7f3920012eccb4e99ba8540b9363766e093', 'hex').toString('base64url');

/** In-process node directories are <data>/nodes/node-XX, node i holding the i-th contiguous range. */
function wipeNodes(dataDir: string, nodes: number[]): void {
  for (const i of nodes) rmSync(join(dataDir, 'nodes', `node-${String(i).padStart(2, '0')}`), { recursive: true, force: true });
}

describe('publisher, n = 10, in-process nodes', () => {
  let dataDir: string;
  let pub: PublisherProcess;
  const N = 10;
  beforeAll(async () => {
    dataDir = makeTempDir('tusk-publisher-e2e-');
    pub = await startPublisherProcess({ dataDir, nShards: N, maxBodyBytes: 1 << 20 });
  });
  afterAll(async () => {
    await pub?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a generated endpoint key and keeps it across restarts', () => {
    expect(pub.endpointKey).toMatch(/^[0-9a-f]{32}$/);
    expect(pub.output()).toContain(`publisher endpoint key: ${pub.endpointKey} (generated`);
  });

  it('refuses bad input with its JSON error, leaving no ledger entry and no slivers', async () => {
    const key = pub.endpointKey;
    const cases: Array<[string, number, string]> = [
      [`/${key}/v1/blobs?epochs=0`, 400, 'INVALID_EPOCHS'],
      [`/${key}/v1/blobs?epochs=54`, 400, 'INVALID_EPOCHS'],
      [`/${key}/v1/blobs?epochs=-1`, 400, 'MALFORMED_REQUEST'],
      [`/${key}/v1/blobs?epochs=abc`, 400, 'MALFORMED_REQUEST'],
      [`/${key}/v1/blobs?deletable=yes`, 400, 'MALFORMED_REQUEST'],
      [`/${key}/v1/blobs?send_object_to=0xabc`, 400, 'MALFORMED_REQUEST'],
      [`/${key}/v1/blobs?send_object_to=${'ab'.repeat(32)}`, 400, 'MALFORMED_REQUEST'],
      [`/${key}/v1/blobs?deletable=true&permanent=true`, 400, 'INVALID_BLOB_PERSISTENCE'],
      [`/${key}/v1/blobs?nonsense=1`, 400, 'MALFORMED_REQUEST'],
      ['/not-a-known-key/v1/blobs', 403, 'INVALID_ENDPOINT_KEY'],
      ['/v1/blobs', 401, 'MISSING_ENDPOINT_KEY'],
    ];
    const before = await ledgerTransactions(pub.url);
    for (const [path, status, reason] of cases) {
      const r = await putBlob(pub.url, path, VECTOR_TEXT);
      expect(r.status, path).toBe(status);
      expect(r.json, path).toEqual({
        error: {
          code: status,
          status: expect.any(String),
          message: expect.any(String),
          details: [{ '@type': 'ErrorInfo', reason, domain: 'daemon.walrus.space', metadata: expect.any(Object) }],
        },
      });
    }
    const tooBig = await putBlob(pub.url, `/${key}/v1/blobs`, Buffer.alloc((1 << 20) + 1, 1));
    expect(tooBig.status).toBe(403);
    expect(tooBig.json.error).toMatchObject({ code: 403, status: 'SIZE_EXCEEDED', details: [{ reason: 'BLOB_TOO_LARGE' }] });

    expect(await ledgerTransactions(pub.url)).toBe(before);
    expect((await getJson(pub.url, `/v1/ledger/blobs/${VECTOR_ID_N10}`)).status).toBe(404);
    const read = await getJson(pub.url, `/v1/blobs/${VECTOR_ID_N10}`);
    expect(read.status).toBe(404);
    expect(read.json.error.details[0].reason).toBe('BLOB_NOT_FOUND');
  });

  it('stores, stores again, stores deletable, reads back, and reads back after losing 2f shards', async () => {
    const key = pub.endpointKey;
    const status = (await getJson(pub.url, '/v1/ledger/status')).json;
    const epoch: number = status.epoch;

    // newlyCreated: the Walrus blob id, every field present and consistent (walrus.md §9.1–9.3, §10.3).
    const first = await putBlob(pub.url, `/${key}/v1/blobs?epochs=3`, VECTOR_TEXT);
    expect(first.status).toBe(200);
    const obj = first.json.newlyCreated.blobObject;
    const encoded = walrusEncodedLength(VECTOR_TEXT.length, N);
    const cost = walrusCost(encoded, 3, BigInt(status.storagePricePerUnit), BigInt(status.writePricePerUnit));
    expect(first.text).toBe(
      `{"newlyCreated":{"blobObject":{"id":"${obj.id}","registeredEpoch":${epoch},"blobId":"${VECTOR_ID_N10}","size":${VECTOR_TEXT.length},` +
        `"encodingType":"RS2","certifiedEpoch":${epoch},"storage":{"id":"${obj.storage.id}","startEpoch":${epoch},"endEpoch":${epoch + 3},` +
        `"storageSize":${encoded}},"deletable":false},"resourceOperation":{"registerFromScratch":{"encodedLength":${encoded},"epochsAhead":3}},` +
        `"cost":${cost}}}`,
    );
    expect(obj.id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(obj.storage.id).toMatch(/^0x[0-9a-f]{64}$/);

    // alreadyCertified names the event that certified that object.
    const again = await putBlob(pub.url, `/${key}/v1/blobs?epochs=2`, VECTOR_TEXT);
    expect(again.status).toBe(200);
    const { txDigest, eventSeq } = again.json.alreadyCertified.event;
    expect(again.text).toBe(`{"alreadyCertified":{"blobId":"${VECTOR_ID_N10}","event":{"txDigest":"${txDigest}","eventSeq":"0"},"endEpoch":${epoch + 3}}}`);
    const event = await getJson(pub.url, `/v1/ledger/events/${txDigest}/${eventSeq}`);
    expect(event.status).toBe(200);
    expect(event.json).toMatchObject({ type: 'BlobCertified', data: { objectId: obj.id, blobId: VECTOR_ID_N10 } });
    const tx = await getJson(pub.url, `/${key}/v1/ledger/transactions/${txDigest}`);
    expect(tx.status).toBe(200);
    const objectView = await getJson(pub.url, `/v1/ledger/objects/${obj.id}`);
    expect(objectView.json).toMatchObject({ type: 'Blob', state: 'certified', certifiedBy: { txDigest, eventSeq: '0' } });
    expect((await getJson(pub.url, `/v1/ledger/objects/${obj.storage.id}`)).json).toMatchObject({ type: 'Storage', object: { endEpoch: epoch + 3 } });

    // Deletable requests never take the alreadyCertified path (walrus.md §10.3).
    const deletable = await putBlob(pub.url, `/${key}/v1/blobs?deletable=true&send_object_to=0x${'5a'.repeat(32)}`, VECTOR_TEXT);
    expect(deletable.status).toBe(200);
    expect(deletable.json.newlyCreated.blobObject).toMatchObject({ blobId: VECTOR_ID_N10, deletable: true, certifiedEpoch: epoch });
    expect(deletable.json.newlyCreated.blobObject.id).not.toBe(obj.id);
    expect((await getJson(pub.url, `/v1/ledger/objects/${deletable.json.newlyCreated.blobObject.id}`)).json.object.owner).toBe(`0x${'5a'.repeat(32)}`);

    // A larger blob spanning many rows, read through the aggregator.
    const big = splitMix64(0x1234n, 1_000_000);
    const stored = await putBlob(pub.url, `/${key}/v1/blobs`, big);
    expect(stored.status).toBe(200);
    const bigId: string = stored.json.newlyCreated.blobObject.blobId;
    expect(stored.json.newlyCreated.blobObject.storage.storageSize).toBe(walrusEncodedLength(big.length, N));
    const whole = await getBytes(pub.url, `/v1/blobs/${bigId}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('etag')).toBe(bigId);
    expect(whole.body.equals(big)).toBe(true);
    const range = await getBytes(pub.url, `/${key}/v1/blobs/${bigId}`, { range: 'bytes=900000-900099' });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 900000-900099/${big.length}`);
    expect(range.body.equals(big.subarray(900_000, 900_100))).toBe(true);
    const acrossRows = await getBytes(pub.url, `/v1/blobs/${bigId}`, { range: 'bytes=249000-751000' });
    expect(acrossRows.status).toBe(206);
    expect(acrossRows.body.equals(big.subarray(249_000, 751_001))).toBe(true);
    // The byte-range route: 200 (not 206), its own ETag; its mistakes, a range past the end among
    // them, are 400 INVALID_BYTE_RANGE.
    const slice = await getBytes(pub.url, `/v1/blobs/${bigId}/byte-range?start=999990&length=10`);
    expect(slice.status).toBe(200);
    expect(slice.headers.get('etag')).toBe(`${bigId}-999990-10`);
    expect(slice.body.equals(big.subarray(999_990))).toBe(true);
    for (const bad of ['start=5&length=0', 'start=5', `start=${big.length}&length=1`, 'start=999990&length=50']) {
      const refused = await getJson(pub.url, `/v1/blobs/${bigId}/byte-range?${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.json.error.details[0].reason, bad).toBe('INVALID_BYTE_RANGE');
    }
    // Content-Type mirrors Accept when it names a type; fetch's default */* gets bytes.
    expect(whole.headers.get('content-type')).toBe('application/octet-stream');
    expect((await getBytes(pub.url, `/v1/blobs/${VECTOR_ID_N10}`, { accept: 'text/plain' })).headers.get('content-type')).toBe('text/plain');
    const contradiction = await getJson(pub.url, `/v1/blobs/${bigId}?strict_consistency_check=true&skip_consistency_check=true`);
    expect(contradiction.status).toBe(400);
    // By Blob object id, through the ledger.
    const byObject = await getBytes(pub.url, `/v1/blobs/by-object-id/${stored.json.newlyCreated.blobObject.id}`);
    expect(byObject.status).toBe(200);
    expect(byObject.body.equals(big)).toBe(true);
    expect((await getJson(pub.url, `/v1/blobs/by-object-id/0x${'00'.repeat(32)}`)).status).toBe(404);
    expect((await getJson(pub.url, `/v1/blobs/by-object-id/${obj.storage.id}`)).json.error.details[0].reason).toBe('BLOB_NOT_FOUND');
    expect((await getJson(pub.url, '/v1/blobs/by-object-id/0x12')).status).toBe(400);
    expect((await getBytes(pub.url, `/v1/blobs/${VECTOR_ID_N10}`)).body.toString()).toBe(VECTOR_TEXT);

    // Lose 2f = 6 of 10 shards (one node each): wipe their directories while the process is down.
    await pub.stop();
    wipeNodes(dataDir, [0, 2, 4, 5, 7, 9]);
    pub = await startPublisherProcess({ dataDir, nShards: N, maxBodyBytes: 1 << 20 });
    expect(pub.output()).not.toContain('(generated');
    const rebuilt = await getBytes(pub.url, `/v1/blobs/${bigId}`);
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.equals(big)).toBe(true);
    expect((await getBytes(pub.url, `/v1/blobs/${VECTOR_ID_N10}`)).body.toString()).toBe(VECTOR_TEXT);

    // One more shard lost: fewer than n_primary = 4 remain.
    await pub.stop();
    wipeNodes(dataDir, [1]);
    pub = await startPublisherProcess({ dataDir, nShards: N, maxBodyBytes: 1 << 20 });
    const unavailable = await getJson(pub.url, `/v1/blobs/${bigId}`);
    expect(unavailable.status).toBe(503);
    expect(unavailable.json.error.details[0].reason).toBe('BLOB_UNAVAILABLE');
    // A range needs only the systematic slivers of the rows it covers: rows whose sliver survived
    // still read (n = 10: 4 rows of 7 symbols of 35,716 bytes), the others are unavailable.
    const rowLength = 7 * 35_716;
    const rowReads = await Promise.all(
      [0, 1, 2, 3].map((row) => getBytes(pub.url, `/v1/blobs/${bigId}`, { range: `bytes=${row * rowLength + 10}-${row * rowLength + 109}` })),
    );
    for (const [row, read] of rowReads.entries()) {
      if (read.status === 206) expect(read.body.equals(big.subarray(row * rowLength + 10, row * rowLength + 110)), `row ${row}`).toBe(true);
      else expect(read.status, `row ${row}`).toBe(503);
    }
    expect(rowReads.filter((r) => r.status === 206).length).toBeGreaterThan(0);
  });
});

describe('publisher limits', () => {
  it('429 RESOURCE_EXHAUSTED while the only store slot is busy and the queue is 0', async () => {
    const pub = await startPublisherProcess({ nShards: 10, maxConcurrent: 1, queue: 0 });
    try {
      const key = pub.endpointKey;
      // The first store is admitted and then held: its body arrives only when released.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let sentFirst = false;
      const slow = putBlob(
        pub.url,
        `/${key}/v1/blobs`,
        new ReadableStream({
          async pull(controller) {
            if (!sentFirst) {
              sentFirst = true;
              controller.enqueue(new TextEncoder().encode('the first half, '));
              return;
            }
            await released;
            controller.enqueue(new TextEncoder().encode('and the second half'));
            controller.close();
          },
        }) as any,
        { duplex: 'half' } as any,
      );
      await new Promise((r) => setTimeout(r, 300));
      const before = await ledgerTransactions(pub.url);
      const refused = await putBlob(pub.url, `/${key}/v1/blobs`, 'refused while busy');
      expect(refused.status).toBe(429);
      expect(refused.json.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ reason: 'TOO_MANY_REQUESTS', domain: 'daemon.walrus.space' }] });
      expect(await ledgerTransactions(pub.url)).toBe(before);
      release();
      const done = await slow;
      expect(done.status).toBe(200);
      expect(done.json.newlyCreated.blobObject.size).toBe('the first half, and the second half'.length);
      expect((await putBlob(pub.url, `/${key}/v1/blobs`, 'accepted once idle')).status).toBe(200);
    } finally {
      await pub.dispose();
    }
  });
});

describe('publisher, n = 1000 (Walrus mainnet shard count), in-process nodes', () => {
  it('stores blobs with the Walrus blob id and sizes and reads them back after losing 2f shards', async () => {
    const dataDir = makeTempDir('tusk-publisher-e2e-');
    let pub = await startPublisherProcess({ dataDir, nShards: 1000 });
    try {
      const data = Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const stored = await putBlob(pub.url, `/${pub.endpointKey}/v1/blobs?epochs=1`, data);
      expect(stored.status).toBe(200);
      const obj = stored.json.newlyCreated.blobObject;
      expect(obj.blobId).toBe(VECTOR_ID_N1000);
      // walrus.md §9.1 example: small blobs at n = 1000 (S = 2) are 66,034,000 bytes encoded.
      expect(obj.storage.storageSize).toBe(66_034_000);
      expect(stored.json.newlyCreated.resourceOperation.registerFromScratch.encodedLength).toBe(66_034_000);
      // walrus.md §9.1 example: 1 MiB at n = 1000 (S = 6) is 70,038,000 bytes encoded.
      const mib = splitMix64(0x1000n, 1 << 20);
      const large = await putBlob(pub.url, `/${pub.endpointKey}/v1/blobs?epochs=1`, mib);
      expect(large.status).toBe(200);
      expect(large.json.newlyCreated.blobObject.storage.storageSize).toBe(70_038_000);
      const largeId: string = large.json.newlyCreated.blobObject.blobId;
      // 10 nodes × 100 shards: six nodes hold 600 ≤ 2f = 666 shards.
      await pub.stop();
      wipeNodes(dataDir, [1, 3, 4, 6, 8, 9]);
      pub = await startPublisherProcess({ dataDir, nShards: 1000 });
      const back = await getBytes(pub.url, `/v1/blobs/${VECTOR_ID_N1000}`);
      expect(back.status).toBe(200);
      expect(back.body.equals(data)).toBe(true);
      const largeBack = await getBytes(pub.url, `/v1/blobs/${largeId}`);
      expect(largeBack.status).toBe(200);
      expect(largeBack.body.equals(mib)).toBe(true);
    } finally {
      await pub.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
