import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerError, isObjectId, isTxDigest, registrationCost, type BlobObjectView, type StorageObjectView } from '../../../../src/publisher/ledger/index.js';
import { BLOB_A, BLOB_B, makeFixture, PUBLISHER, QUORUM_1000, SMALL, type Fixture } from './ledger-fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<LedgerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LedgerError);
  expect((error as LedgerError).code).toBe(code);
  return error as LedgerError;
}

describe('opening', () => {
  it('starts at epoch 1 with the default prices, balance and epoch cap', () => {
    const { ledger } = fx;
    expect(ledger.currentEpoch()).toBe(1);
    expect(ledger.epochLengthMs).toBe(60_000);
    expect(ledger.maxEpochsAhead).toBe(53);
    expect(ledger.prices()).toEqual({ storagePricePerUnit: 100n, writePricePerUnit: 2000n });
    expect(ledger.balance()).toBe(10n ** 15n);
    expect(ledger.publisherAddress).toBe(PUBLISHER);
    expect(ledger.costOf(66_034_000, 1)).toBe(132_300n);
    expect(ledger.status()).toMatchObject({ epoch: 1, transactions: 1, balance: '1000000000000000' });
  });

  it('follows the injected clock', () => {
    fx.clock.ms += 59_999;
    expect(fx.ledger.currentEpoch()).toBe(1);
    fx.clock.ms += 1;
    expect(fx.ledger.currentEpoch()).toBe(2);
    fx.toEpoch(40);
    expect(fx.ledger.currentEpoch()).toBe(40);
  });
});

describe('registerBlob', () => {
  it('reserves storage, creates the Blob object, pays and emits BlobRegistered in one transaction', async () => {
    fx.toEpoch(34);
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    expect(r.cost).toBe(132_300n);
    expect(isTxDigest(r.txDigest)).toBe(true);
    expect(r.blobObject).toEqual({
      id: r.blobObject.id,
      registeredEpoch: 34,
      blobId: BLOB_A,
      size: 17,
      encodingType: 'RS2',
      certifiedEpoch: null,
      storage: { id: r.storage.id, startEpoch: 34, endEpoch: 35, storageSize: 66_034_000 },
      deletable: false,
      owner: PUBLISHER,
    });
    expect(isObjectId(r.blobObject.id) && isObjectId(r.storage.id)).toBe(true);
    expect(r.blobObject.id).not.toBe(r.storage.id);
    expect(r.blobObject.id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(fx.ledger.balance()).toBe(10n ** 15n - 132_300n);

    const tx = fx.ledger.getTransaction(r.txDigest)!;
    expect(tx).toMatchObject({ kind: 'RegisterBlob', seq: 1, epoch: 34, sender: PUBLISHER, digest: r.txDigest });
    expect(tx.effects.created).toEqual([r.storage.id, r.blobObject.id]);
    expect(tx.effects.balanceChange).toBe('-132300');
    expect(tx.effects.events).toHaveLength(1);
    const event = fx.ledger.getEvent(r.txDigest, '0')!;
    expect(event).toMatchObject({ type: 'BlobRegistered', id: { txDigest: r.txDigest, eventSeq: '0' } });
    expect(event.data).toMatchObject({ blobId: BLOB_A, endEpoch: 35, objectId: r.blobObject.id, cost: '132300' });
    expect(fx.ledger.getEvent(r.txDigest, '1')).toBeUndefined();
    expect(fx.ledger.getEvent(r.txDigest, '00')).toBeUndefined();

    const storageView = fx.ledger.getObject(r.storage.id) as StorageObjectView;
    expect(storageView).toMatchObject({ type: 'Storage', wrappedIn: r.blobObject.id, owner: PUBLISHER });
    const blobView = fx.ledger.getObject(r.blobObject.id.toUpperCase().replace('0X', '0x')) as BlobObjectView;
    expect(blobView).toMatchObject({ type: 'Blob', state: 'registered', certifiedBy: null, createdBy: r.txDigest });
  });

  it('gives the object to send_object_to (normalized to lower case)', async () => {
    const to = `0x${'C0'.repeat(32)}`;
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false, owner: to });
    expect(r.blobObject.owner).toBe(to.toLowerCase());
    await rejectsWith(fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false, owner: '0x1234' }), 'InvalidAddress');
  });

  it('accepts epochs 1..maxEpochsAhead only', async () => {
    for (const epochs of [0, 54, -1, 1.5]) {
      await rejectsWith(fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs, deletable: false }), 'InvalidEpochsAhead');
    }
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 53, deletable: false });
    expect(r.blobObject.storage.endEpoch).toBe(54);
    expect(r.cost).toBe(63n * 100n * 53n + 63n * 2000n);
  });

  it('rejects malformed blob ids', async () => {
    for (const blobId of ['short', `${BLOB_A}=`, BLOB_A.replace('M', '+'), `${BLOB_A.slice(0, 42)}l`]) {
      await rejectsWith(fx.ledger.registerBlob({ blobId, ...SMALL, epochs: 1, deletable: false }), 'InvalidBlobId');
    }
  });

  it('fails beyond the balance and leaves no trace', async () => {
    await fx.cleanup();
    fx = await makeFixture({ initialBalance: 200_000n });
    const first = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    const before = fx.ledger.status();
    const error = await rejectsWith(fx.ledger.registerBlob({ blobId: BLOB_B, ...SMALL, epochs: 1, deletable: false }), 'InsufficientBalance');
    expect(error.details).toEqual({ balance: '67700', required: '132300' });
    expect(error.info.reason).toBe('INSUFFICIENT_BALANCE');
    expect(fx.ledger.status()).toEqual(before);
    expect(fx.ledger.balance()).toBe(67_700n);
    expect(() => fx.ledger.blobsById(BLOB_B)).not.toThrow();
    expect(fx.ledger.blobsById(BLOB_B)).toEqual([]);
    expect((await fx.ledger.verifyChain()).ok).toBe(true);
    // the next successful transaction links straight to the last one
    await fx.ledger.fund(1_000_000n);
    const again = await fx.ledger.registerBlob({ blobId: BLOB_B, ...SMALL, epochs: 1, deletable: false });
    expect(fx.ledger.getTransaction(again.txDigest)!.seq).toBe(3);
    expect(fx.ledger.getTransaction(first.txDigest)!.seq).toBe(1);
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true, transactions: 4 });
  });
});

describe('certifyBlob and findCertifiedPermanent', () => {
  it('certifies with a shard quorum and is then found by the §10.3 event lookup', async () => {
    fx.toEpoch(34);
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 3, deletable: false });
    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 35)).toBeUndefined(); // not yet certified
    const c = await fx.ledger.certifyBlob(r.blobObject.id, { ...QUORUM_1000, epoch: 34, signatures: ['c2ln', 'c2ln', 'c2ln'] });
    expect(c).toMatchObject({ eventSeq: '0', certifiedEpoch: 34 });
    expect(c.blobObject.certifiedEpoch).toBe(34);
    expect(fx.ledger.getEvent(c.txDigest, 0)).toMatchObject({ type: 'BlobCertified', data: { objectId: r.blobObject.id, endEpoch: 37 } });
    expect(fx.ledger.getTransaction(c.txDigest)!.inputs).toMatchObject({ certificate: { shardsCovered: 667, nShards: 1000 } });

    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 37)).toEqual({
      blobObjectId: r.blobObject.id,
      event: { txDigest: c.txDigest, eventSeq: '0' },
      endEpoch: 37,
    });
    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 38)).toBeUndefined(); // not enough validity left
    expect(fx.ledger.findCertifiedPermanent(BLOB_B, 35)).toBeUndefined();
    fx.toEpoch(37);
    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 1)).toBeUndefined(); // expired
  });

  it('picks the longest-lived of several certified objects', async () => {
    const short = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false });
    const long = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 5, deletable: false });
    await fx.ledger.certifyBlob(short.blobObject.id, QUORUM_1000);
    const c = await fx.ledger.certifyBlob(long.blobObject.id, QUORUM_1000);
    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 2)).toEqual({ blobObjectId: long.blobObject.id, event: { txDigest: c.txDigest, eventSeq: '0' }, endEpoch: 6 });
    expect(fx.ledger.blobsById(BLOB_A).map((v) => v.state)).toEqual(['certified', 'certified']);
  });

  it('agrees with a brute-force scan of blobsById across epochs and minimum end epochs', async () => {
    const plan = [
      { epochs: 3, deletable: false, certify: true },
      { epochs: 6, deletable: true, certify: true },
      { epochs: 5, deletable: false, certify: false },
      { epochs: 4, deletable: false, certify: true },
      { epochs: 2, deletable: false, certify: true },
    ];
    for (const p of plan) {
      const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: p.epochs, deletable: p.deletable });
      if (p.certify) await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    }
    for (let epoch = 1; epoch <= 8; epoch++) {
      fx.toEpoch(epoch);
      for (let minEnd = 0; minEnd <= 9; minEnd++) {
        const best = fx.ledger
          .blobsById(BLOB_A)
          .filter((v) => v.state === 'certified' && !v.object.deletable && v.object.storage.endEpoch >= minEnd)
          .sort((a, b) => b.object.storage.endEpoch - a.object.storage.endEpoch)[0];
        expect(fx.ledger.findCertifiedPermanent(BLOB_A, minEnd)?.blobObjectId).toBe(best?.object.id);
      }
    }
  });

  it('never matches a deletable blob', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 5, deletable: true });
    await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 1)).toBeUndefined();
  });

  it('enforces 3·shards ≥ 2n + 1 (walrus.md §9.3)', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    const before = fx.ledger.status();
    const e = await rejectsWith(fx.ledger.certifyBlob(r.blobObject.id, { ...QUORUM_1000, shardsCovered: 666 }), 'QuorumNotReached');
    expect(e.details).toMatchObject({ needed: 667 });
    await rejectsWith(fx.ledger.certifyBlob(r.blobObject.id, { signers: ['a'], shardsCovered: 2, nShards: 4 }), 'QuorumNotReached');
    expect(fx.ledger.status()).toEqual(before);
    await fx.ledger.certifyBlob(r.blobObject.id, { signers: ['a', 'b'], shardsCovered: 3, nShards: 4 });
  });

  it('rejects malformed certificates, double certification, unknown and expired blobs', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    const id = r.blobObject.id;
    await rejectsWith(fx.ledger.certifyBlob(id, { ...QUORUM_1000, signers: [] }), 'InvalidCertificate');
    await rejectsWith(fx.ledger.certifyBlob(id, { ...QUORUM_1000, signers: ['a', 'a'] }), 'InvalidCertificate');
    await rejectsWith(fx.ledger.certifyBlob(id, { ...QUORUM_1000, shardsCovered: 1001 }), 'InvalidCertificate');
    await rejectsWith(fx.ledger.certifyBlob(id, { ...QUORUM_1000, epoch: 2 }), 'InvalidCertificate');
    await rejectsWith(fx.ledger.certifyBlob(id, { ...QUORUM_1000, signatures: ['x'] }), 'InvalidCertificate');
    await rejectsWith(fx.ledger.certifyBlob(`0x${'00'.repeat(32)}`, QUORUM_1000), 'NoSuchObject');
    await rejectsWith(fx.ledger.certifyBlob(r.storage.id, QUORUM_1000), 'NotABlob');
    await rejectsWith(fx.ledger.certifyBlob('nope', QUORUM_1000), 'InvalidAddress');
    const second = await fx.ledger.registerBlob({ blobId: BLOB_B, ...SMALL, epochs: 1, deletable: false });
    await fx.ledger.certifyBlob(id, QUORUM_1000);
    await rejectsWith(fx.ledger.certifyBlob(id, QUORUM_1000), 'BlobAlreadyCertified');
    fx.toEpoch(2);
    await rejectsWith(fx.ledger.certifyBlob(second.blobObject.id, QUORUM_1000), 'BlobExpired');
  });
});

describe('shareBlob', () => {
  it('wraps a certified blob in a new SharedBlob object once; the chain still verifies', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false });
    await rejectsWith(fx.ledger.shareBlob(r.blobObject.id), 'InvalidArgument'); // not certified yet
    await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    const shared = await fx.ledger.shareBlob(r.blobObject.id);
    expect(isObjectId(shared.sharedBlobObjectId)).toBe(true);
    expect(shared.blobObject.owner).toBe(shared.sharedBlobObjectId);
    expect(fx.ledger.getObject(shared.sharedBlobObjectId)).toEqual({
      type: 'SharedBlob',
      object: { id: shared.sharedBlobObjectId, blobObjectId: r.blobObject.id },
      createdBy: shared.txDigest,
      previousTransaction: shared.txDigest,
    });
    const tx = fx.ledger.getTransaction(shared.txDigest)!;
    expect(tx).toMatchObject({ kind: 'ShareBlob', effects: { created: [shared.sharedBlobObjectId], mutated: [r.blobObject.id], balanceChange: '0' } });
    await rejectsWith(fx.ledger.shareBlob(r.blobObject.id), 'InvalidArgument'); // already shared
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true });
  });
});

describe('extendBlob and transferBlob', () => {
  it('extends a certified blob the publisher owns, paying the storage of the added epochs; moves its expiry and event lookups', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false });
    await rejectsWith(fx.ledger.extendBlob(r.blobObject.id, 1), 'InvalidArgument'); // not certified yet
    await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    await rejectsWith(fx.ledger.extendBlob(r.blobObject.id, 0), 'InvalidEpochsAhead');
    await rejectsWith(fx.ledger.extendBlob(r.blobObject.id, fx.ledger.maxEpochsAhead), 'InvalidEpochsAhead'); // past max epochs ahead of now
    const balance = fx.ledger.balance();
    const extended = await fx.ledger.extendBlob(r.blobObject.id, 3);
    const storageFee = registrationCost(SMALL.encodedLength, 3, { ...fx.ledger.prices(), writePricePerUnit: 0n });
    expect(extended.cost).toBe(storageFee);
    expect(fx.ledger.balance()).toBe(balance - storageFee);
    expect(extended.blobObject).toMatchObject({ id: r.blobObject.id, certifiedEpoch: 1, storage: { id: r.storage.id, startEpoch: 1, endEpoch: 6 } });
    expect(fx.ledger.getEvent(extended.txDigest, '0')).toMatchObject({
      type: 'BlobCertified',
      data: { epoch: 1, blobId: BLOB_A, endEpoch: 6, deletable: false, objectId: r.blobObject.id, isExtension: true },
    });
    // the §10.3 event lookup answers with the new end epoch and the extension's event; expiry moved with it
    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 6)).toEqual({ blobObjectId: r.blobObject.id, event: { txDigest: extended.txDigest, eventSeq: '0' }, endEpoch: 6 });
    fx.toEpoch(3);
    expect(fx.ledger.expiredBlobs()).toEqual([]);
    fx.toEpoch(6);
    expect(fx.ledger.expiredBlobs().map((b) => b.id)).toEqual([r.blobObject.id]);
    await rejectsWith(fx.ledger.extendBlob(r.blobObject.id, 1), 'BlobExpired');
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true });
  });

  it('sends a blob the publisher owns to another address, which the publisher can then neither extend nor send', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: true });
    await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    const to = `0x${'CD'.repeat(32)}`;
    const sent = await fx.ledger.transferBlob(r.blobObject.id, to);
    expect(sent.blobObject.owner).toBe(to.toLowerCase());
    expect(fx.ledger.getTransaction(sent.txDigest)).toMatchObject({ kind: 'TransferBlob', effects: { mutated: [r.blobObject.id, r.storage.id], balanceChange: '0' } });
    await rejectsWith(fx.ledger.extendBlob(r.blobObject.id, 1), 'InvalidArgument');
    await rejectsWith(fx.ledger.transferBlob(r.blobObject.id, PUBLISHER), 'InvalidArgument');
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true });
  });
});

describe('setBlobAttributes', () => {
  it('inserts or updates pairs on a Blob object the publisher owns, in one logged transaction kept across a reopen', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false });
    await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    expect(r.blobObject.attributes).toBeUndefined();
    const balance = fx.ledger.balance();
    const first = await fx.ledger.setBlobAttributes(r.blobObject.id, { 'tusk-key': 'a', 'tusk-size': '3' });
    const second = await fx.ledger.setBlobAttributes(r.blobObject.id, { 'tusk-key': 'b' });
    expect(second.blobObject.attributes).toEqual({ 'tusk-key': 'b', 'tusk-size': '3' });
    expect(fx.ledger.balance()).toBe(balance);
    expect(fx.ledger.getTransaction(first.txDigest)).toMatchObject({ kind: 'SetBlobAttributes', inputs: { blobObjectId: r.blobObject.id, attributes: { 'tusk-key': 'a', 'tusk-size': '3' } }, effects: { mutated: [r.blobObject.id], balanceChange: '0', events: [] } });
    // the views show them, and extending the blob keeps them
    await fx.ledger.extendBlob(r.blobObject.id, 1);
    expect((fx.ledger.getObject(r.blobObject.id) as BlobObjectView).object.attributes).toEqual({ 'tusk-key': 'b', 'tusk-size': '3' });
    expect(fx.ledger.ownedLiveBlobs().map((v) => v.object.attributes)).toEqual([{ 'tusk-key': 'b', 'tusk-size': '3' }]);
    await fx.ledger.close();
    fx.ledger = await fx.open();
    expect(fx.ledger.blobsById(BLOB_A)[0]!.object.attributes).toEqual({ 'tusk-key': 'b', 'tusk-size': '3' });
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true });
  });

  it('refuses no pairs, an empty key, too many bytes, a blob sent away and a deleted blob, leaving no trace', async () => {
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: true });
    await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    const transactions = fx.ledger.status().transactions;
    await rejectsWith(fx.ledger.setBlobAttributes(r.blobObject.id, {}), 'InvalidArgument');
    await rejectsWith(fx.ledger.setBlobAttributes(r.blobObject.id, { '': 'x' }), 'InvalidArgument');
    await rejectsWith(fx.ledger.setBlobAttributes(r.blobObject.id, { k: 'x'.repeat(64 * 1024) }), 'InvalidArgument');
    expect(fx.ledger.status().transactions).toBe(transactions);
    const other = await fx.ledger.registerBlob({ blobId: BLOB_B, ...SMALL, epochs: 2, deletable: true });
    await fx.ledger.transferBlob(other.blobObject.id, `0x${'cd'.repeat(32)}`);
    await rejectsWith(fx.ledger.setBlobAttributes(other.blobObject.id, { k: 'v' }), 'InvalidArgument');
    await fx.ledger.deleteBlob(r.blobObject.id);
    await rejectsWith(fx.ledger.setBlobAttributes(r.blobObject.id, { k: 'v' }), 'BlobDeleted');
    expect((fx.ledger.getObject(r.blobObject.id) as BlobObjectView).object.attributes).toBeUndefined();
  });
});

describe('deletion, expiry and reclaiming', () => {
  it('lists blobs past their end epoch and records their reclaiming', async () => {
    const a = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    const b = await fx.ledger.registerBlob({ blobId: BLOB_B, ...SMALL, epochs: 3, deletable: false });
    expect(fx.ledger.expiredBlobs()).toEqual([]);
    await rejectsWith(fx.ledger.markReclaimed([a.blobObject.id]), 'BlobNotReclaimable');

    fx.toEpoch(2);
    expect(fx.ledger.expiredBlobs().map((o) => o.id)).toEqual([a.blobObject.id]);
    expect(fx.ledger.expiredBlobs(4).map((o) => o.id).sort()).toEqual([a.blobObject.id, b.blobObject.id].sort());
    expect((fx.ledger.getObject(a.blobObject.id) as BlobObjectView).state).toBe('expired');
    await rejectsWith(fx.ledger.markReclaimed([a.blobObject.id, b.blobObject.id]), 'BlobNotReclaimable');
    expect(fx.ledger.expiredBlobs()).toHaveLength(1); // the failed batch changed nothing

    const rec = await fx.ledger.markReclaimed([a.blobObject.id]);
    expect(rec.reclaimed).toEqual([a.blobObject.id]);
    expect(fx.ledger.getEvent(rec.txDigest, '0')).toMatchObject({ type: 'BlobReclaimed', data: { objectId: a.blobObject.id, reason: 'expired' } });
    expect(fx.ledger.expiredBlobs()).toEqual([]);
    expect(fx.ledger.getObject(a.blobObject.id)).toMatchObject({ state: 'reclaimed', reclaimedEpoch: 2 });
    await rejectsWith(fx.ledger.markReclaimed([a.blobObject.id]), 'BlobNotReclaimable');
  });

  it('deletes a deletable blob, releases its storage and makes it due for reclaiming at once', async () => {
    const d = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 10, deletable: true });
    const p = await fx.ledger.registerBlob({ blobId: BLOB_B, ...SMALL, epochs: 10, deletable: false });
    await rejectsWith(fx.ledger.deleteBlob(p.blobObject.id), 'BlobNotDeletable');
    const del = await fx.ledger.deleteBlob(d.blobObject.id);
    expect(fx.ledger.getEvent(del.txDigest, '0')).toMatchObject({ type: 'BlobDeleted', data: { objectId: d.blobObject.id, wasCertified: false } });
    expect(fx.ledger.getObject(d.blobObject.id)).toMatchObject({ state: 'deleted', deleted: true });
    expect(fx.ledger.getObject(d.storage.id)).toMatchObject({ wrappedIn: null });
    expect(fx.ledger.expiredBlobs().map((o) => o.id)).toEqual([d.blobObject.id]);
    await rejectsWith(fx.ledger.deleteBlob(d.blobObject.id), 'BlobDeleted');
    await rejectsWith(fx.ledger.certifyBlob(d.blobObject.id, QUORUM_1000), 'BlobDeleted');
    const rec = await fx.ledger.markReclaimed([d.blobObject.id]);
    expect(fx.ledger.getEvent(rec.txDigest, 0)).toMatchObject({ data: { reason: 'deleted' } });
    expect(fx.ledger.expiredBlobs()).toEqual([]);
  });
});

describe('persistence', () => {
  it('keeps objects, balance, epoch clock and the chain across a reopen', async () => {
    fx.toEpoch(5);
    const r = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false });
    const c = await fx.ledger.certifyBlob(r.blobObject.id, QUORUM_1000);
    const status = fx.ledger.status();
    await fx.ledger.close();

    // genesisMs and initialBalance only count on the first open
    fx.ledger = await fx.open({ genesisMs: 0, initialBalance: 5n });
    expect(fx.ledger.status()).toEqual(status);
    expect(fx.ledger.currentEpoch()).toBe(5);
    expect(fx.ledger.findCertifiedPermanent(BLOB_A, 7)).toEqual({ blobObjectId: r.blobObject.id, event: { txDigest: c.txDigest, eventSeq: '0' }, endEpoch: 7 });
    expect(fx.ledger.getTransaction(r.txDigest)!.kind).toBe('RegisterBlob');
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true, transactions: 3 });
  });

  it('records changed parameters as one Configure transaction; a new epoch length keeps the current epoch', async () => {
    fx.toEpoch(10);
    fx.clock.ms += 30_000;
    await fx.ledger.close();
    fx.ledger = await fx.open({ epochLengthMs: 1000, storagePricePerUnit: 7n, maxEpochsAhead: 5 });
    expect(fx.ledger.status()).toMatchObject({ epoch: 10, epochLengthMs: 1000, maxEpochsAhead: 5, storagePricePerUnit: '7', transactions: 2 });
    expect(fx.ledger.costOf(66_034_000, 2)).toBe(63n * 7n * 2n + 63n * 2000n);
    fx.clock.ms += 1000;
    expect(fx.ledger.currentEpoch()).toBe(11);
    await rejectsWith(fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 6, deletable: false }), 'InvalidEpochsAhead');
    await fx.ledger.close();
    fx.ledger = await fx.open({ epochLengthMs: 1000, storagePricePerUnit: 7n, maxEpochsAhead: 5 });
    expect(fx.ledger.status().transactions).toBe(2); // same parameters: no new transaction
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true });
  });
});

describe('concurrency', () => {
  it('chains transactions started in the same event turn one after another; a failing one leaves no gap', async () => {
    await fx.cleanup();
    fx = await makeFixture({ initialBalance: 132_300n * 10n });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(failed.every((r) => (r.reason as LedgerError).code === 'InsufficientBalance')).toBe(true);
    expect(fx.ledger.balance()).toBe(0n);
    const seqs = ok.map((r) => fx.ledger.getTransaction(r.value.txDigest)!.seq).sort((a, b) => a - b);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(ok.map((r) => r.value.blobObject.id)).size).toBe(10);
    expect(fx.ledger.blobsById(BLOB_A)).toHaveLength(10);
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true, transactions: 11 });
  });

  it('funds the wallet only with a positive amount', async () => {
    const digest = await fx.ledger.fund(5n);
    expect(fx.ledger.getEvent(digest, '0')).toMatchObject({ type: 'WalletFunded', data: { amount: '5', balance: String(10n ** 15n + 5n) } });
    await rejectsWith(fx.ledger.fund(0n), 'InvalidArgument');
    await rejectsWith(fx.ledger.fund(-5n), 'InvalidArgument');
  });
});
