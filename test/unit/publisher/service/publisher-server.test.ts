import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { encodedLength, registrationCost } from '../../../../src/publisher/ledger/index.js';
import type { LocalNode } from '../../../../src/publisher/nodes/local-node.js';
import { KEY, N_SHARDS, startFixture, type PublisherFixture } from './publisher-fixture.js';

let fx: PublisherFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const BLOB = Buffer.from('hello walrus, from the tusk publisher unit test', 'utf8');
const ADDRESS = `0x${'42'.repeat(32)}`;

describe('PUT /<key>/v1/blobs (walrus.md §10.3, seed interface B)', () => {
  it('newlyCreated with every field consistent, then alreadyCertified, then newlyCreated again as deletable', async () => {
    fx = await startFixture();
    fx.toEpoch(34);
    const first = await fx.put('epochs=2', BLOB);
    expect(first.status).toBe(200);
    const created = first.json.newlyCreated;
    const expectedEncoded = encodedLength(BLOB.length, N_SHARDS)!;
    const expectedCost = Number(registrationCost(expectedEncoded, 2, fx.ledger.prices()));
    const blobId = (await fx.codec.blobId(BLOB, N_SHARDS)).blobIdText;
    expect(first.text).toBe(
      `{"newlyCreated":{"blobObject":{"id":"${created.blobObject.id}","registeredEpoch":34,"blobId":"${blobId}","size":${BLOB.length},` +
        `"encodingType":"RS2","certifiedEpoch":34,"storage":{"id":"${created.blobObject.storage.id}","startEpoch":34,"endEpoch":36,` +
        `"storageSize":${expectedEncoded}},"deletable":false},"resourceOperation":{"registerFromScratch":{"encodedLength":${expectedEncoded},` +
        `"epochsAhead":2}},"cost":${expectedCost}}}`,
    );
    expect(created.blobObject.id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await fx.nodesHolding(Buffer.from(blobId, 'base64url'))).toBe(10);

    // The certifying event is the one the ledger recorded for this object.
    const view = fx.ledger.getObject(created.blobObject.id)!;
    expect(view.type === 'Blob' && view.state).toBe('certified');
    const certifiedBy = view.type === 'Blob' ? view.certifiedBy! : undefined;
    const again = await fx.put('epochs=1', BLOB);
    expect(again.status).toBe(200);
    expect(again.text).toBe(
      `{"alreadyCertified":{"blobId":"${blobId}","event":{"txDigest":"${certifiedBy!.txDigest}","eventSeq":"0"},"endEpoch":36}}`,
    );
    // Needs longer than the certified blob covers: registered anew.
    const longer = await fx.put('epochs=3', BLOB);
    expect(Object.keys(longer.json)).toEqual(['newlyCreated']);
    expect(longer.json.newlyCreated.blobObject.storage.endEpoch).toBe(37);
    // `force` skips the check (walrus.md §10.2).
    expect(Object.keys((await fx.put('force=true', BLOB)).json)).toEqual(['newlyCreated']);

    const deletable = await fx.put('deletable=true', BLOB);
    expect(deletable.status).toBe(200);
    expect(deletable.json.newlyCreated.blobObject).toMatchObject({ blobId, deletable: true, certifiedEpoch: 34 });
    expect(deletable.json.newlyCreated.blobObject.id).not.toBe(created.blobObject.id);

    // A deletable blob never takes the event variant: stored again, registered again (the daemon's default).
    const deletableId = deletable.json.newlyCreated.blobObject.id;
    const deletableAgain = await fx.put('deletable=true', BLOB);
    expect(deletableAgain.json.newlyCreated.blobObject.id).not.toBe(deletableId);
    const sent = await fx.put(`send_object_to=${ADDRESS}&deletable=true`, BLOB);
    const owned = fx.ledger.getObject(sent.json.newlyCreated.blobObject.id)!;
    expect(owned.type === 'Blob' && owned.object.owner).toBe(ADDRESS);
  });

  it('with reuse_resources=true, reuses a certified Blob object the publisher owns: alreadyCertified (object variant), or extended', async () => {
    fx = await startFixture();
    const storagePerEpoch = registrationCost(encodedLength(BLOB.length, N_SHARDS)!, 1, { ...fx.ledger.prices(), writePricePerUnit: 0n });
    const deletable = (await fx.put('deletable=true', BLOB)).json.newlyCreated.blobObject;
    const blobId = deletable.blobId;
    const again = await fx.put('deletable=true&reuse_resources=true', BLOB);
    expect(again.text).toBe(`{"alreadyCertified":{"blobId":"${blobId}","object":"${deletable.id}","endEpoch":2}}`);

    // Longer than it is stored: extended (walrus-sdk reuseAndExtend), paying only the added epochs' storage.
    const balance = fx.ledger.balance();
    const extended = await fx.put('deletable=true&reuse_resources=true&epochs=3', BLOB);
    expect(extended.json.newlyCreated).toMatchObject({
      blobObject: { id: deletable.id, certifiedEpoch: 1, storage: { endEpoch: 4 } },
      resourceOperation: { reuseAndExtend: { encodedLength: deletable.storage.storageSize, epochsExtended: 2 } },
      cost: Number(2n * storagePerEpoch),
    });
    expect(fx.ledger.balance()).toBe(balance - 2n * storagePerEpoch);
    const event = fx.ledger.getEvent(fx.ledger.getObject(deletable.id)!.previousTransaction, '0')!;
    expect(event).toMatchObject({ type: 'BlobCertified', data: { epoch: 1, endEpoch: 4, objectId: deletable.id, isExtension: true } });

    // Long enough: answered, not moved, even for another owner (walrus-sdk resource.rs: only new objects are sent).
    expect((await fx.put(`send_object_to=${ADDRESS}&deletable=true&reuse_resources=true&epochs=3`, BLOB)).json.alreadyCertified).toMatchObject({ object: deletable.id });
    // Extended, then sent as a new object would be.
    const sent = await fx.put(`send_object_to=${ADDRESS}&deletable=true&epochs=5&reuse_resources=true`, BLOB);
    expect(sent.json.newlyCreated).toMatchObject({ blobObject: { id: deletable.id, storage: { endEpoch: 6 } }, resourceOperation: { reuseAndExtend: { epochsExtended: 2 } } });
    const owned = fx.ledger.getObject(deletable.id)!;
    expect(owned.type === 'Blob' && owned.object.owner).toBe(ADDRESS);
    // No longer the publisher's to reuse; a permanent request never takes a deletable object; `force` wants a new certification.
    const fresh = (await fx.put('deletable=true&reuse_resources=true', BLOB)).json.newlyCreated;
    expect(fresh.resourceOperation).toHaveProperty('registerFromScratch');
    expect((await fx.put('reuse_resources=true', BLOB)).json.newlyCreated.blobObject.deletable).toBe(false);
    const forced = (await fx.put('deletable=true&force=true&reuse_resources=true', BLOB)).json.newlyCreated;
    expect(forced.resourceOperation).toHaveProperty('registerFromScratch');
    expect(forced.blobObject.id).not.toBe(fresh.blobObject.id);
  });

  it("with reuse_resources=true, certifies the publisher's own uncertified registration instead of paying again", async () => {
    fx = await startFixture();
    const info = await fx.codec.blobId(BLOB, N_SHARDS);
    const storagePerEpoch = registrationCost(info.encodedLength, 1, { ...fx.ledger.prices(), writePricePerUnit: 0n });
    // What a store leaves behind when it paid but could not reach a quorum (see the storage-node failures below).
    const input = { blobId: info.blobIdText, size: BLOB.length, encodedLength: info.encodedLength, deletable: false };
    const registered = (await fx.ledger.registerBlob({ ...input, epochs: 3 })).blobObject;
    const short = (await fx.ledger.registerBlob({ ...input, epochs: 1 })).blobObject;

    // `force` throughout: past the certified copy the first store makes (the event variant would answer).
    expect((await fx.put('epochs=2&force=true', BLOB)).json.newlyCreated.resourceOperation, 'not without reuse_resources').toHaveProperty('registerFromScratch');
    const paid = fx.ledger.balance();
    const reused = await fx.put('epochs=2&force=true&reuse_resources=true', BLOB);
    expect(reused.status).toBe(200);
    expect(reused.json.newlyCreated).toMatchObject({
      blobObject: { id: registered.id, certifiedEpoch: 1, storage: { endEpoch: 4 } },
      resourceOperation: { reuseRegistration: { encodedLength: info.encodedLength } },
      cost: 0,
    });
    expect(fx.ledger.balance(), 'nothing paid').toBe(paid);
    expect(await fx.nodesHolding(info.blobId)).toBe(10);

    // The short one next: certified, extended by the missing epoch, and sent.
    const extended = await fx.put(`epochs=2&force=true&reuse_resources=true&send_object_to=${ADDRESS}`, BLOB);
    expect(extended.json.newlyCreated).toMatchObject({
      blobObject: { id: short.id, certifiedEpoch: 1, storage: { endEpoch: 3 } },
      resourceOperation: { reuseAndExtendNonCertified: { encodedLength: info.encodedLength, epochsExtended: 1 } },
      cost: Number(storagePerEpoch),
    });
    expect(fx.ledger.balance()).toBe(paid - storagePerEpoch);
    const sent = fx.ledger.getObject(short.id)!;
    expect(sent.type === 'Blob' && sent.object.owner).toBe(ADDRESS);
    await expect(fx.ledger.verifyChain()).resolves.toMatchObject({ ok: true });
  });

  it('looks up the returned transaction, event and objects under /v1/ledger', async () => {
    fx = await startFixture();
    const created = (await fx.put('', BLOB)).json.newlyCreated;
    const view = fx.ledger.getObject(created.blobObject.id)!;
    const event = view.type === 'Blob' ? view.certifiedBy! : undefined;
    const object = await fx.get(`/v1/ledger/objects/${created.blobObject.id}`);
    expect(object.status).toBe(200);
    expect(((await object.json()) as any).object.blobId).toBe(created.blobObject.blobId);
    const tx = await fx.get(`/${KEY}/v1/ledger/transactions/${event!.txDigest}`);
    expect(tx.status).toBe(200);
    expect(JSON.stringify(await tx.json())).toContain(created.blobObject.id);
    const ev = await fx.get(`/v1/ledger/events/${event!.txDigest}/0`);
    expect(((await ev.json()) as any).type).toBe('BlobCertified');
    const byBlob = await fx.get(`/v1/ledger/blobs/${created.blobObject.blobId}`);
    expect(((await byBlob.json()) as any).objects).toHaveLength(1);
    const missing = await fx.get(`/v1/ledger/transactions/${'1'.repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.status).toBe('NOT_FOUND');
    expect((await fx.get('/v1/ledger/nothing-here')).status).toBe(404);
  });

  it('a known path under another method is 405 with Allow and no body, as the daemon router answers; an unknown one 404 JSON', async () => {
    fx = await startFixture();
    const wrong = await fetch(`${fx.url}/v1/blobs/${'A'.repeat(43)}`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET,HEAD');
    expect(await wrong.text()).toBe('');
    const keyless = await fetch(`${fx.url}/v1/blobs`);
    expect([keyless.status, keyless.headers.get('allow')]).toEqual([405, 'PUT']);
    const unknown = await fetch(`${fx.url}/v1/nothing`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.details[0].reason).toBe('ROUTE_NOT_FOUND');
  });

  it('GET /status and /<key>/status answer OK', async () => {
    fx = await startFixture();
    for (const p of ['/status', `/${KEY}/status`]) {
      const r = await fx.get(p);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe('OK');
    }
    const wrong = await fx.get('/not-the-right-key/status');
    expect(wrong.status).toBe(403);
  });
});

describe('bad input is refused before encoding, with no ledger entry and no slivers (walrus.md §10.4)', () => {
  it.each([
    ['epochs=0', undefined, 400, 'INVALID_EPOCHS'],
    ['epochs=54', undefined, 400, 'INVALID_EPOCHS'],
    ['epochs=abc', undefined, 400, 'MALFORMED_REQUEST'],
    ['deletable=maybe', undefined, 400, 'MALFORMED_REQUEST'],
    ['deletable=true&permanent=true', undefined, 400, 'INVALID_BLOB_PERSISTENCE'],
    ['send_object_to=0x1234', undefined, 400, 'MALFORMED_REQUEST'],
    ['color=blue', undefined, 400, 'MALFORMED_REQUEST'],
    ['', '/wrong-endpoint-key/v1/blobs', 403, 'INVALID_ENDPOINT_KEY'],
    ['', '/v1/blobs', 401, 'MISSING_ENDPOINT_KEY'],
  ])('%s %s → %d %s', async (query, path, status, reason) => {
    fx = await startFixture();
    const before = fx.transactions();
    const r = await fx.put(query, BLOB, path ? { path } : {});
    expect(r.status).toBe(status);
    expect(r.json.error).toMatchObject({ code: status, details: [{ '@type': 'ErrorInfo', reason, domain: 'daemon.walrus.space', metadata: expect.any(Object) }] });
    expect(fx.codec.encodeCalls).toBe(0);
    expect(fx.transactions()).toBe(before);
    expect(await fx.nodesHolding((await fx.codec.blobId(BLOB, N_SHARDS)).blobId)).toBe(0);
    // the connection stays usable: the body was drained
    expect((await fx.get('/status')).status).toBe(200);
  });

  it('403 SIZE_EXCEEDED JSON (upstream pairs SIZE_EXCEEDED with 403) for a declared Content-Length over the limit and for a streamed body that grows past it', async () => {
    fx = await startFixture({ maxBodyBytes: 1000 });
    const before = fx.transactions();
    const declared = await fx.put('', Buffer.alloc(1001, 7));
    expect(declared.status).toBe(403);
    expect(declared.json.error).toMatchObject({ code: 403, status: 'SIZE_EXCEEDED', details: [{ reason: 'BLOB_TOO_LARGE', metadata: { maxBodyBytes: '1000' } }] });
    const chunks = [Buffer.alloc(600, 1), Buffer.alloc(600, 2)];
    const streamed = await fx.put('', new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    }) as any, { duplex: 'half' } as any);
    expect(streamed.status).toBe(403);
    expect(streamed.json.error.details[0].reason).toBe('BLOB_TOO_LARGE');
    expect(fx.codec.encodeCalls).toBe(0);
    expect(fx.transactions()).toBe(before);
    // exactly at the limit is fine
    expect((await fx.put('', Buffer.alloc(1000, 9))).status).toBe(200);
  });

  it('429 JSON when the store slots and the queue are full; the admitted store still completes', async () => {
    fx = await startFixture({ maxConcurrent: 1, queue: 0 });
    let open!: () => void;
    fx.codec.gate = new Promise<void>((resolve) => (open = resolve));
    const first = fx.put('', BLOB);
    while (fx.codec.encodeCalls === 0) await new Promise((r) => setTimeout(r, 5));
    const before = fx.transactions();
    const second = await fx.put('', Buffer.from('another blob'));
    expect(second.status).toBe(429);
    expect(second.json.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ reason: 'TOO_MANY_REQUESTS' }] });
    expect(fx.transactions()).toBe(before);
    expect(fx.codec.encodeCalls).toBe(1);
    open();
    expect((await first).status).toBe(200);
    fx.codec.gate = undefined;
    expect((await fx.put('', Buffer.from('another blob'))).status).toBe(200);
  });
});

describe('storage-node failures (walrus.md §9.3: quorum 2f+1)', () => {
  it('reads a blob back right when a node answers a wrong primary sliver: the decode refuses it, the checked read leaves it out', async () => {
    fx = await startFixture();
    const data = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) & 0xff));
    const { blobId } = (await fx.put('', data)).json.newlyCreated.blobObject;
    // the node of systematic pair 0 answers that sliver with one data byte changed (its BCS shape intact)
    const liar = fx.network.nodeForPair(Buffer.from(blobId, 'base64url'), 0).client as LocalNode;
    const tamper = (sliver: Buffer) => Buffer.from(sliver).fill(sliver[sliver.length - 5]! ^ 0xff, sliver.length - 5, sliver.length - 4);
    const [getSlivers, getSliver] = [liar.getSlivers.bind(liar), liar.getSliver.bind(liar)];
    let lies = 0;
    liar.getSlivers = async (id, pairs, axis) => {
      const found = await getSlivers(id, pairs, axis);
      if (found.has(0)) (lies++, found.set(0, tamper(found.get(0)!)));
      return found;
    };
    liar.getSliver = async (id, pair, axis) => {
      const sliver = await getSliver(id, pair, axis);
      return pair === 0 && sliver ? (lies++, tamper(sliver)) : sliver;
    };
    const got = await fx.get(`/v1/blobs/${blobId}`);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);
    expect(lies, 'the wrong sliver was answered to the unchecked read and to the checked one').toBe(2);
  });


  it('stores with f nodes down; with f+1 down answers 504 and leaves the paid registration', async () => {
    fx = await startFixture();
    const members = fx.network.members;
    for (const m of members.slice(0, 3)) await m.client.close();
    const ok = await fx.put('', BLOB);
    expect(ok.status).toBe(200);
    expect(ok.json.newlyCreated.blobObject.certifiedEpoch).toBe(1);
    await members[3]!.client.close();
    const other = Buffer.from('a blob that cannot reach a quorum');
    const failed = await fx.put('', other);
    expect(failed.status).toBe(504);
    expect(failed.json.error).toMatchObject({ status: 'DEADLINE_EXCEEDED', details: [{ reason: 'INSUFFICIENT_CONFIRMATIONS' }] });
    const blobId = (await fx.codec.blobId(other, N_SHARDS)).blobIdText;
    const [registered] = fx.ledger.blobsById(blobId);
    expect(registered?.state).toBe('registered');
  });
});

describe('GET /v1/blobs/<blobId> (walrus.md §11)', () => {
  it('reads back byte-identical, with ranges, and still after losing 2f shards', async () => {
    fx = await startFixture();
    const data = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 13) & 0xff));
    const { blobId } = (await fx.put('', data)).json.newlyCreated.blobObject;
    const whole = await fx.get(`/v1/blobs/${blobId}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('application/octet-stream');
    expect(whole.headers.get('etag')).toBe(blobId);
    expect(whole.headers.get('cache-control')).toBe('public, max-age=86400, stale-while-revalidate=3600');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await whole.arrayBuffer()).equals(data)).toBe(true);

    const part = await fx.get(`/${KEY}/v1/blobs/${blobId}`, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/3000');
    expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(100, 200))).toBe(true);
    const open = await fx.get(`/v1/blobs/${blobId}`, { range: 'bytes=100-' });
    expect(open.status).toBe(416);
    expect(open.headers.get('content-range')).toBe('bytes */3000');
    expect(((await open.json()) as any).error.details[0].reason).toBe('INVALID_BYTE_RANGE');

    // Systematic slivers 0..3 live on the shards the rotation maps them to: lose 2f = 6 shards,
    // among them some systematic ones, so decoding has to use recovery slivers.
    const blobIdBytes = Buffer.from(blobId, 'base64url');
    const holders = [0, 1, 2, 3, 4, 5].map((pair) => fx!.network.nodeForPair(blobIdBytes, pair));
    for (const m of holders.slice(0, 3)) await m.client.deleteBlob(blobIdBytes);
    for (const m of holders.slice(3)) await m.client.close();
    const rebuilt = await fx.get(`/v1/blobs/${blobId}`);
    expect(rebuilt.status).toBe(200);
    expect(Buffer.from(await rebuilt.arrayBuffer()).equals(data)).toBe(true);

    // One more shard gone: fewer than n_primary slivers remain.
    await fx.network.nodeForPair(blobIdBytes, 6).client.close();
    const gone = await fx.get(`/v1/blobs/${blobId}`);
    expect(gone.status).toBe(503);
    expect(((await gone.json()) as any).error.details[0].reason).toBe('BLOB_UNAVAILABLE');
  });

  it('skips a sliver that does not match the metadata and decodes from the others', async () => {
    fx = await startFixture();
    const data = Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 7) & 0xff));
    const { blobId } = (await fx.put('', data)).json.newlyCreated.blobObject;
    const encoded = await fx.codec.encode(data, N_SHARDS);
    const id = Buffer.from(blobId, 'base64url');
    const node = fx.network.nodeForPair(id, 0).client;
    await node.deleteBlob(id);
    await node.putMetadata(id, encoded.metadataBcs);
    const good = encoded.sliverPair(0).primary;
    const bad = Buffer.from(good);
    bad[bad.length - 5]! ^= 0xff; // same shape, wrong bytes
    await node.putSliver(id, 0, 'primary', bad);
    expect((await node.getSliver(id, 0, 'primary'))!.equals(bad)).toBe(true);
    const r = await fx.get(`/v1/blobs/${blobId}`);
    expect(r.status).toBe(200);
    expect(Buffer.from(await r.arrayBuffer()).equals(data)).toBe(true);
  });

  it('404 BLOB_NOT_FOUND for an unknown blob, 400 INVALID_BLOB_ID for a malformed id', async () => {
    fx = await startFixture();
    const unknown = await fx.get(`/v1/blobs/${Buffer.alloc(32, 5).toString('base64url')}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error).toMatchObject({ status: 'NOT_FOUND', details: [{ reason: 'BLOB_NOT_FOUND' }] });
    for (const bad of ['short', `${'A'.repeat(42)}B`, `${'A'.repeat(44)}`]) {
      const r = await fx.get(`/v1/blobs/${bad}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error.details[0].reason).toBe('INVALID_BLOB_ID');
    }
  });

  it('reads a 0-byte blob', async () => {
    fx = await startFixture();
    const stored = await fx.put('', Buffer.alloc(0));
    expect(stored.json.newlyCreated.blobObject.size).toBe(0);
    const r = await fx.get(`/v1/blobs/${stored.json.newlyCreated.blobObject.blobId}`);
    expect(r.status).toBe(200);
    expect((await r.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('reclaiming expired blobs', () => {
  it('deletes slivers of expired blobs from the nodes and records it; keeps slivers another live object needs', async () => {
    fx = await startFixture();
    const shared = Buffer.from('stored once permanent for 1 epoch, once deletable for 5');
    const alone = Buffer.from('stored once for 1 epoch');
    const short = (await fx.put('epochs=1', shared)).json.newlyCreated.blobObject;
    const long = (await fx.put('epochs=5&deletable=true', shared)).json.newlyCreated.blobObject;
    const single = (await fx.put('epochs=1', alone)).json.newlyCreated.blobObject;
    expect((await fx.publisher.reclaimNow()).reclaimed).toEqual([]);

    fx.toEpoch(2);
    const report = await fx.publisher.reclaimNow();
    expect(report.reclaimed.sort()).toEqual([short.id, single.id].sort());
    expect(report.deletedBlobIds).toEqual([single.blobId]);
    expect(report.keptBlobIds).toEqual([short.blobId]);
    expect(await fx.nodesHolding(Buffer.from(single.blobId, 'base64url'))).toBe(0);
    expect((await fx.get(`/v1/blobs/${single.blobId}`)).status).toBe(404);
    const kept = await fx.get(`/v1/blobs/${long.blobId}`);
    expect(Buffer.from(await kept.arrayBuffer()).equals(shared)).toBe(true);
    const view = fx.ledger.getObject(single.id)!;
    expect(view.type === 'Blob' && view.state).toBe('reclaimed');

    fx.toEpoch(6);
    expect((await fx.publisher.reclaimNow()).deletedBlobIds).toEqual([long.blobId]);
    expect(await fx.nodesHolding(Buffer.from(long.blobId, 'base64url'))).toBe(0);
    expect((await fx.publisher.reclaimNow()).reclaimed).toEqual([]);
  });
});

describe('GET /v1alpha/blobs/<blobId>/stream and /v1alpha/blobs/concat (walrus daemon alpha routes)', () => {
  const data = (seed: number, size: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * seed + 3) & 0xff));
  const reason = async (r: Response) => ((await r.json()) as any).error.details[0].reason;

  it('streams a blob with its length and x-walrus-streaming, HEAD too, and 404 for an unknown one', async () => {
    fx = await startFixture();
    const bytes = data(7, 30_000);
    const { blobId } = (await fx.put('', bytes)).json.newlyCreated.blobObject;
    for (const path of [`/v1alpha/blobs/${blobId}/stream`, `/${KEY}/v1alpha/blobs/${blobId}/stream`]) {
      const r = await fx.get(path);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-walrus-streaming')).toBe('true');
      expect(r.headers.get('etag')).toBe(blobId);
      expect(r.headers.get('content-length')).toBe('30000');
      expect(Buffer.from(await r.arrayBuffer()).equals(bytes)).toBe(true);
    }
    const head = await fetch(`${fx.url}/v1alpha/blobs/${blobId}/stream`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('30000');
    const unknown = await fx.get(`/v1alpha/blobs/${Buffer.alloc(32, 5).toString('base64url')}/stream`);
    expect(unknown.status).toBe(404);
    expect(await reason(unknown)).toBe('BLOB_NOT_FOUND');
  });

  it('concatenates blobs named by blob id or object id, by GET and by POST, with the ids hashed into the ETag', async () => {
    fx = await startFixture();
    const blobs = [data(3, 5_000), data(5, 1), data(11, 20_000)];
    const stored = [];
    for (const b of blobs) stored.push((await fx.put('', b)).json.newlyCreated.blobObject as { blobId: string; id: string });
    const ids = [stored[0]!.blobId, stored[1]!.id, stored[2]!.blobId];
    const expected = Buffer.concat(blobs);
    const etag = createHash('sha256').update(ids.join(',')).digest('base64url');

    const got = await fx.get(`/v1alpha/blobs/concat?ids=${ids.join(',')}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(etag);
    expect(got.headers.get('content-length')).toBe(String(expected.length));
    expect(Buffer.from(await got.arrayBuffer()).equals(expected)).toBe(true);
    // blanks dropped, strict check on request
    const strict = await fx.get(`/v1alpha/blobs/concat?ids=${ids[0]},,${ids[2]}&strict_consistency_check=true`);
    expect(Buffer.from(await strict.arrayBuffer()).equals(Buffer.concat([blobs[0]!, blobs[2]!]))).toBe(true);

    const posted = await fetch(`${fx.url}/v1alpha/blobs/concat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids }) });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('etag')).toBe(etag);
    expect(Buffer.from(await posted.arrayBuffer()).equals(expected)).toBe(true);
  });

  it('refuses what cannot be concatenated before answering, with its JSON error', async () => {
    fx = await startFixture();
    const { blobId } = (await fx.put('', data(3, 100))).json.newlyCreated.blobObject;
    const post = (body: string) => fetch(`${fx!.url}/v1alpha/blobs/concat`, { method: 'POST', body });
    const cases: Array<[Promise<Response>, number, string]> = [
      [fx.get('/v1alpha/blobs/concat?ids='), 400, 'MALFORMED_REQUEST'],
      [fx.get('/v1alpha/blobs/concat'), 400, 'MALFORMED_REQUEST'],
      [fx.get(`/v1alpha/blobs/concat?ids=${blobId}&other=1`), 400, 'MALFORMED_REQUEST'],
      [fx.get(`/v1alpha/blobs/concat?ids=${blobId}&strict_consistency_check=true&skip_consistency_check=true`), 400, 'MALFORMED_REQUEST'],
      [fx.get(`/v1alpha/blobs/concat?ids=${blobId},not-an-id`), 400, 'INVALID_ID_FORMAT'],
      [fx.get(`/v1alpha/blobs/concat?ids=${blobId},0x1234`), 404, 'OBJECT_ID_RESOLUTION_FAILED'],
      [fx.get(`/v1alpha/blobs/concat?ids=${blobId},${Buffer.alloc(32, 9).toString('base64url')}`), 404, 'BLOB_NOT_FOUND'],
      [post('{"ids": []}'), 400, 'MALFORMED_REQUEST'],
      [post('not json'), 400, 'MALFORMED_REQUEST'],
      [post(`{"ids": ["${blobId}"], "extra": 1}`), 400, 'MALFORMED_REQUEST'],
      [post('{"ids": [1]}'), 400, 'MALFORMED_REQUEST'],
      [post(`{"ids": ["${blobId}"], "skip_consistency_check": "yes"}`), 400, 'MALFORMED_REQUEST'],
    ];
    for (const [pending, status, why] of cases) {
      const r = await pending;
      expect(r.status).toBe(status);
      expect(await reason(r)).toBe(why);
    }
  });
});
