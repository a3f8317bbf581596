// The Walrus network test double (test/double/walrus) against the unmodified SDKs: @mysten/walrus
// 1.x's WalrusClient over @mysten/sui 2.x's SuiGrpcClient (gRPC-web) writes, certifies, reads,
// inspects and deletes blobs; costs, gas, digests, quorum and signature checks come out as Walrus
// and Sui define them. @mysten/sui 2.x needs Node 22: on Node 20 this file is skipped.

import { randomBytes } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEEDS_NODE_22 } from '../../double/walrus/node-version.js';
import { bcs } from '@mysten/sui/bcs';
import type { SuiClientTypes } from '@mysten/sui/client';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { coinWithBalance, Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { fromBase64, parseStructTag } from '@mysten/sui/utils';
import { BlobNotCertifiedError, BlobNotRegisteredError, blobIdToInt, NotEnoughBlobConfirmationsError, WalrusClient } from '@mysten/walrus';
import { bls12381_min_pk_verify } from '@mysten/walrus-wasm';
import { startWalrusDouble, type WalrusDouble } from '../../double/walrus/index.js';
import { SharedBlob, toShardIndex } from '../../../src/publisher/local-network/sdk.js';

let double: WalrusDouble;
let agent: Agent;

beforeAll(async () => {
  if (NEEDS_NODE_22) return;
  double = await startWalrusDouble({ nodes: 11, nShards: 22, epoch: 3 });
  agent = new Agent({ connect: { ca: double.caCert } });
});

afterAll(async () => {
  await agent?.close();
  await double?.close();
});

/** A fresh WalrusClient (no caches) whose storage-node fetch trusts the double's CA. */
function walrus() {
  const fetch = ((url: string, init?: object) => undiciFetch(url, { ...init, dispatcher: agent })) as unknown as typeof globalThis.fetch;
  const suiClient = new SuiGrpcClient({ network: 'double', baseUrl: double.rpcUrl });
  const client = new WalrusClient({ packageConfig: double.packageConfig, suiClient, storageNodeClientOptions: { fetch, timeout: 10_000 } });
  return { suiClient, client };
}

async function signerWith(amounts: { sui?: bigint; wal?: bigint }): Promise<Ed25519Keypair> {
  const signer = new Ed25519Keypair();
  await double.fund(signer.toSuiAddress(), amounts);
  return signer;
}

const funded = () => signerWith({ sui: 50_000_000_000n, wal: 10_000_000_000_000n });

async function balance(suiClient: SuiGrpcClient, owner: string, coinType?: string): Promise<bigint> {
  return BigInt((await suiClient.core.getBalance({ owner, coinType })).balance.balance);
}

/** The transaction of a result, executed whether it succeeded or failed. */
function executed<T extends SuiClientTypes.TransactionResult<{ effects: true; events: true }>>(result: T) {
  return (result.$kind === 'Transaction' ? result.Transaction : result.FailedTransaction)!;
}

async function transaction(suiClient: SuiGrpcClient, digest: string) {
  return executed(await suiClient.core.getTransaction({ digest, include: { effects: true, events: true, bcs: true } }));
}

async function chainObject(suiClient: SuiGrpcClient, objectId: string) {
  const [object] = (await suiClient.core.getObjects({ objectIds: [objectId], include: { content: true, previousTransaction: true } })).objects;
  return object!;
}

/** redstuff.move encoded_blob_length for RS2. */
function encodedLength(size: number, n: number): bigint {
  const f = Math.floor((n - 1) / 3);
  const [p, s] = [n - 2 * f, n - f];
  let symbol = Math.floor((Math.max(size, 1) - 1) / (p * s)) + 1;
  if (symbol % 2) symbol += 1;
  return BigInt(n * ((p + s) * symbol + n * 64 + 32));
}

/** Register (via the SDK), upload, and return the confirmations, without certifying. */
async function registeredAndUploaded(client: WalrusClient, signer: Ed25519Keypair, blob: Uint8Array, deletable = false) {
  const encoded = await client.encodeBlob(blob);
  const { blob: object } = await client.executeRegisterBlobTransaction({
    signer,
    size: blob.length,
    epochs: 2,
    blobId: encoded.blobId,
    rootHash: encoded.rootHash,
    deletable,
    owner: signer.toSuiAddress(),
  });
  const confirmations = await client.writeEncodedBlobToNodes({
    blobId: encoded.blobId,
    metadata: encoded.metadata,
    sliversByNode: encoded.sliversByNode,
    deletable,
    objectId: object.id,
  });
  return { blobId: encoded.blobId, objectId: object.id, confirmations };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function certificate(confirmations: ({ serializedMessage: string; signature: string } | null)[], signers: number[], signWith = signers) {
  return {
    signers,
    serializedMessage: fromBase64(confirmations[signers[0]!]!.serializedMessage),
    signature: bls12_381.aggregateSignatures(signWith.map((i) => fromBase64(confirmations[i]!.signature))) as Uint8Array,
  };
}

describe.skipIf(NEEDS_NODE_22)(`the Walrus double with the unmodified SDK${NEEDS_NODE_22 ? ' (skipped: @mysten/sui 2.x needs Node 22)' : ''}`, () => {
  const cases: { deletable: boolean; attributes?: Record<string, string> }[] = [
    { deletable: false },
    { deletable: false, attributes: { contentType: 'text/plain', owner: 'tusk' } },
    { deletable: true },
    { deletable: true, attributes: { 'x-tusk': 'yes' } },
  ];
  it.each(cases)('writeBlob (deletable: $deletable, attributes: $attributes) and readBlob give the bytes back', async ({ deletable, attributes }) => {
    const signer = await funded();
    const { client } = walrus();
    const blob = new Uint8Array(randomBytes(3000 + Math.floor(Math.random() * 5000)));
    const { blobId, blobObject } = await client.writeBlob({ blob, deletable, epochs: 4, signer, attributes });

    expect(blobObject.blob_id).toBe(String(blobIdToInt(blobId)));
    expect(blobObject).toMatchObject({ registered_epoch: 3, certified_epoch: 3, deletable, size: String(blob.length), encoding_type: 1 });
    expect(blobObject.storage).toMatchObject({ start_epoch: 3, end_epoch: 7, storage_size: String(encodedLength(blob.length, 22)) });
    const back = await walrus().client.readBlob({ blobId });
    expect(Buffer.from(back).equals(Buffer.from(blob))).toBe(true);
    if (attributes) expect(await client.readBlobAttributes({ blobObjectId: blobObject.id })).toEqual(attributes);
  });

  it('storageCost is the WAL debited, the gas used is the SUI debited, the status event is the certification', async () => {
    const signer = await funded();
    const owner = signer.toSuiAddress();
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(200_000));
    const [walBefore, suiBefore] = [await balance(suiClient, owner, double.walType), await balance(suiClient, owner)];

    const flow = client.writeBlobFlow({ blob });
    await flow.encode();
    const register = await signer.signAndExecuteTransaction({ transaction: flow.register({ epochs: 5, deletable: false, owner }), client: suiClient });
    await flow.upload({ digest: register.Transaction!.digest });
    const certifyTx = flow.certify();
    certifyTx.setSender(owner);
    const certify = await signer.signAndExecuteTransaction({ transaction: certifyTx, client: suiClient });
    const { blobId } = await flow.getBlob();

    const { storageCost, writeCost, totalCost } = await client.storageCost(blob.length, 5);
    const units = (encodedLength(blob.length, 22) + (1n << 20n) - 1n) >> 20n;
    expect(storageCost).toBe(units * 10_000n * 5n);
    expect(writeCost).toBe(units * 20_000n);
    expect(walBefore - (await balance(suiClient, owner, double.walType))).toBe(totalCost);
    const gas = [register, certify].reduce((n, tx) => {
      const g = tx.Transaction!.effects.gasUsed;
      return n + BigInt(g.computationCost) + BigInt(g.storageCost) - BigInt(g.storageRebate);
    }, 0n);
    expect(gas).toBeGreaterThan(0n);
    expect(suiBefore - (await balance(suiClient, owner))).toBe(gas);

    const status = await client.getVerifiedBlobStatus({ blobId });
    const { events } = await transaction(suiClient, certify.Transaction!.digest);
    const certified = events.find((e) => e.eventType.endsWith('::events::BlobCertified'))!;
    expect(certified.json).toMatchObject({ blob_id: String(blobIdToInt(blobId)), epoch: 3, end_epoch: 8, deletable: false, is_extension: false });
    expect(status).toEqual({
      type: 'permanent',
      endEpoch: 8,
      isCertified: true,
      statusEvent: { txDigest: certify.Transaction!.digest, eventSeq: String(events.indexOf(certified)) },
      deletableCounts: { count_deletable_total: 0, count_deletable_certified: 0 },
      initialCertifiedEpoch: 3,
    });
  });

  it('transaction digests are Blake2b-256 over the TransactionData, effects and objects are consistent', async () => {
    const signer = await funded();
    const { client, suiClient } = walrus();
    const { blobObject } = await client.writeBlob({ blob: new Uint8Array(randomBytes(1234)), deletable: true, epochs: 1, signer });
    const object = await chainObject(suiClient, blobObject.id);
    if (object instanceof Error) throw object;
    const digest = object.previousTransaction!;
    const tx = await transaction(suiClient, digest);
    expect(TransactionDataBuilder.getDigestFromBytes(tx.bcs!)).toBe(digest);
    expect(bcs.TransactionData.parse(tx.bcs!).V1!.sender).toBe(signer.toSuiAddress());
    expect(object.owner).toEqual({ $kind: 'AddressOwner', AddressOwner: signer.toSuiAddress() });
    const change = tx.effects.changedObjects.find((c) => c.objectId === blobObject.id)!;
    expect(change).toMatchObject({ idOperation: 'None', inputState: 'Exists', outputState: 'ObjectWrite', outputVersion: object.version, outputDigest: object.digest });
    expect(tx.effects.transactionDigest).toBe(digest);
    expect(tx.effects.status.success).toBe(true);
    // the effects' BCS says what the structured effects say
    expect(bcs.TransactionEffects.parse(tx.effects.bcs!).V2!.lamportVersion).toBe(object.version);
  });

  it('reads and writes with f shards down (3 of 11 nodes, 6 of 22 shards; f = 7)', async () => {
    const signer = await funded();
    const blob = new Uint8Array(randomBytes(20_000));
    const { blobId } = await walrus().client.writeBlob({ blob, deletable: false, epochs: 2, signer });
    const down = [double.nodes[1]!, double.nodes[4]!, double.nodes[8]!];
    expect(down.reduce((n, node) => n + node.shards.length, 0)).toBeLessThanOrEqual(Math.floor((double.nShards - 1) / 3));
    await Promise.all(down.map((node) => node.stop()));
    try {
      expect(Buffer.from(await walrus().client.readBlob({ blobId })).equals(Buffer.from(blob))).toBe(true);
      const second = new Uint8Array(randomBytes(30_000));
      const written = await walrus().client.writeBlob({ blob: second, deletable: true, epochs: 2, signer });
      expect(Buffer.from(await walrus().client.readBlob({ blobId: written.blobId })).equals(Buffer.from(second))).toBe(true);
    } finally {
      await Promise.all(down.map((node) => node.start()));
    }
    expect(Buffer.from(await walrus().client.readBlob({ blobId })).equals(Buffer.from(blob))).toBe(true);
  });

  it('certification needs a quorum of valid signatures over the right message, as Move checks it', async () => {
    const signer = await funded();
    const { client } = walrus();
    const a = await registeredAndUploaded(client, signer, new Uint8Array(randomBytes(5000)));
    // every node's confirmation verifies with the SDK's wasm BLS against the node's key
    expect(a.confirmations.map((c, i) => bls12381_min_pk_verify(fromBase64(c!.signature), double.nodes[i]!.publicKey, fromBase64(c!.serializedMessage)))).toEqual(
      double.nodes.map(() => true),
    );
    const certifyA = (cert: ReturnType<typeof certificate>) =>
      client.executeCertifyBlobTransaction({ signer, blobId: a.blobId, blobObjectId: a.objectId, certificate: cert, deletable: false });

    // the SDK itself refuses to combine confirmations of too few nodes (it counts nodes: 6 of 11)
    const few = a.confirmations.map((c, i) => (i < 6 ? c : null));
    await expect(client.executeCertifyBlobTransaction({ signer, blobId: a.blobId, blobObjectId: a.objectId, confirmations: few, deletable: false })).rejects.toThrow(
      NotEnoughBlobConfirmationsError,
    );
    // the chain counts shards: 7 signers hold 14 of 22, and 3 × 14 < 2 × 22 + 1 (bls_aggregate ENotEnoughStake = 2)
    await expect(certifyA(certificate(a.confirmations, range(7)))).rejects.toThrow(/MoveAbort in 1st command, abort code: 2, in '0x[0-9a-f]{64}::bls_aggregate::verify_certificate_and_weight'/);
    // executed anyway (resolved as a transaction kind, gas given, so no simulation refuses it): the
    // transaction fails on chain, pays gas, and leaves the Blob as it was (at a new version)
    const { suiClient } = walrus();
    const kind = await client
      .certifyBlobTransaction({ blobId: a.blobId, blobObjectId: a.objectId, certificate: certificate(a.confirmations, range(7)), deletable: false })
      .build({ client: suiClient, onlyTransactionKind: true });
    const failing = Transaction.fromKind(kind);
    failing.setSender(signer.toSuiAddress());
    const [gasCoin] = (await suiClient.core.listCoins({ owner: signer.toSuiAddress() })).objects;
    failing.setGasPayment([{ objectId: gasCoin!.objectId, version: gasCoin!.version, digest: gasCoin!.digest }]);
    failing.setGasPrice(1000n);
    failing.setGasBudget(50_000_000n);
    const blobBefore = await chainObject(suiClient, a.objectId);
    const suiBefore = await balance(suiClient, signer.toSuiAddress());
    const failed = await signer.signAndExecuteTransaction({ transaction: failing, client: suiClient });
    expect(failed.$kind).toBe('FailedTransaction');
    const failedTx = await transaction(suiClient, failed.FailedTransaction!.digest);
    expect(failedTx.status.error).toMatchObject({ $kind: 'MoveAbort', MoveAbort: { abortCode: '2', location: { module: 'bls_aggregate' } } });
    expect(failedTx.status.error!.message).toMatch(/^MoveAbort in 1st command, abort code: 2, in '0x[0-9a-f]{64}::bls_aggregate::verify_certificate_and_weight'/);
    const g = failedTx.effects.gasUsed;
    expect(suiBefore - (await balance(suiClient, signer.toSuiAddress()))).toBe(BigInt(g.computationCost) + BigInt(g.storageCost) - BigInt(g.storageRebate));
    const blobAfter = await chainObject(suiClient, a.objectId);
    if (blobBefore instanceof Error || blobAfter instanceof Error) throw new Error('the Blob object is gone');
    expect(BigInt(blobAfter.version)).toBeGreaterThan(BigInt(blobBefore.version));
    expect(blobAfter.content).toEqual(blobBefore.content);
    // 8 signers claimed, 7 signed (ESigVerification = 1)
    await expect(certifyA(certificate(a.confirmations, range(8), range(7)))).rejects.toThrow(/abort code: 1, in '0x[0-9a-f]{64}::bls_aggregate::/);
    // a valid certificate for another epoch (messages EIncorrectEpoch = 1)
    const otherEpoch = new Uint8Array([1, 0, 3, ...bcs.u32().serialize(double.epoch + 1).toBytes(), ...bcs.u256().serialize(blobIdToInt(a.blobId)).toBytes(), 0]);
    const signed = double.nodes.map((node) => node.signMessage(otherEpoch));
    await expect(certifyA({ signers: range(11), serializedMessage: otherEpoch, signature: bls12_381.aggregateSignatures(signed) as Uint8Array })).rejects.toThrow(
      /abort code: 1, in '0x[0-9a-f]{64}::messages::new_certified_message'/,
    );
    // A's certificate on another registered blob (blob EInvalidBlobId = 6)
    const b = await registeredAndUploaded(client, signer, new Uint8Array(randomBytes(5000)));
    await expect(
      client.executeCertifyBlobTransaction({ signer, blobId: b.blobId, blobObjectId: b.objectId, certificate: certificate(a.confirmations, range(11)), deletable: false }),
    ).rejects.toThrow(/abort code: 6, in '0x[0-9a-f]{64}::blob::certify_with_certified_msg'/);

    // eight of eleven nodes (16 of 22 shards) are a quorum
    await certifyA(certificate(a.confirmations, [0, 2, 3, 5, 6, 7, 9, 10]));
    expect(await client.getVerifiedBlobStatus({ blobId: a.blobId })).toMatchObject({ type: 'permanent', isCertified: true, initialCertifiedEpoch: 3 });
    // certified once only (blob EAlreadyCertified = 5)
    await expect(certifyA(certificate(a.confirmations, range(11)))).rejects.toThrow(/abort code: 5, in '0x[0-9a-f]{64}::blob::certify_with_certified_msg'/);
  });

  it('a signer without WAL, or without enough, or without SUI gets a clear failure', async () => {
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(1000));
    const noWal = await signerWith({ sui: 10_000_000_000n });
    await expect(client.writeBlob({ blob, deletable: false, epochs: 1, signer: noWal })).rejects.toThrow(/Insufficient balance of 0x[0-9a-f]{64}::wal::WAL for owner/);
    expect(await balance(suiClient, noWal.toSuiAddress())).toBe(10_000_000_000n);

    // a WAL coin too small: the chain's SplitCoins refuses it
    const poor = await signerWith({ sui: 10_000_000_000n, wal: 5n });
    const [walCoin] = (await suiClient.core.listCoins({ owner: poor.toSuiAddress(), coinType: double.walType })).objects;
    const tx = new Transaction();
    tx.setSender(poor.toSuiAddress());
    tx.transferObjects([client.createStorage({ size: blob.length, epochs: 1, walCoin: tx.object(walCoin!.objectId) })], poor.toSuiAddress());
    await expect(poor.signAndExecuteTransaction({ transaction: tx, client: suiClient })).rejects.toThrow(/Transaction resolution failed: InsufficientCoinBalance in command 0/);

    const noSui = await signerWith({ wal: 1_000_000_000n });
    await expect(client.writeBlob({ blob, deletable: false, epochs: 1, signer: noSui })).rejects.toThrow(/Unable to select gas coins: 0x[0-9a-f]{64} holds 0 MIST/);
  });

  it('deleteBlob gives the Storage back and the blob stops existing', async () => {
    const signer = await funded();
    const owner = signer.toSuiAddress();
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(4000));
    const { blobId, blobObject } = await client.writeBlob({ blob, deletable: true, epochs: 3, signer, attributes: { a: 'b' } });
    expect(await client.getVerifiedBlobStatus({ blobId })).toMatchObject({ type: 'deletable', deletableCounts: { count_deletable_total: 1, count_deletable_certified: 1 } });

    // attributes of an existing Blob object: insert_or_update / remove_metadata_pair on the chain
    await client.executeWriteBlobAttributesTransaction({ signer, blobObjectId: blobObject.id, attributes: { a: 'c', n: '1' } });
    await client.executeWriteBlobAttributesTransaction({ signer, blobObjectId: blobObject.id, attributes: { n: null } });
    expect(await client.readBlobAttributes({ blobObjectId: blobObject.id })).toEqual({ a: 'c' });

    await client.executeDeleteBlobTransaction({ signer, blobObjectId: blobObject.id });
    const { object: system } = await suiClient.core.getObject({ objectId: double.packageConfig.systemObjectId });
    const pkg = parseStructTag(system.type).address;
    const storage = await suiClient.core.listOwnedObjects({ owner, type: `${pkg}::storage_resource::Storage` });
    expect(storage.objects.map((o) => o.objectId)).toEqual([blobObject.storage.id]);
    expect(await chainObject(suiClient, blobObject.id)).toMatchObject({ code: 'notExists' });
    expect(await walrus().client.getVerifiedBlobStatus({ blobId })).toEqual({ type: 'nonexistent' });
    await expect(walrus().client.readBlob({ blobId })).rejects.toThrow(BlobNotCertifiedError);
  });

  it('extendBlob pays storage for the added epochs and moves the end epoch', async () => {
    const signer = await funded();
    const owner = signer.toSuiAddress();
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(70_000));
    const { blobId, blobObject } = await client.writeBlob({ blob, deletable: false, epochs: 2, signer });
    const before = await balance(suiClient, owner, double.walType);
    const { digest } = await client.executeExtendBlobTransaction({ signer, blobObjectId: blobObject.id, epochs: 3 });
    const units = (encodedLength(blob.length, 22) + (1n << 20n) - 1n) >> 20n;
    expect(before - (await balance(suiClient, owner, double.walType))).toBe(units * 10_000n * 3n);
    expect(await chainObject(suiClient, blobObject.id)).toMatchObject({ previousTransaction: digest });
    const { events } = await transaction(suiClient, digest);
    expect(events.map((e) => e.json)).toEqual([{ epoch: 3, blob_id: String(blobIdToInt(blobId)), end_epoch: 8, deletable: false, object_id: blobObject.id, is_extension: true }]);
    expect(await walrus().client.getVerifiedBlobStatus({ blobId })).toMatchObject({ type: 'permanent', endEpoch: 8, statusEvent: { txDigest: digest, eventSeq: '0' } });
  });

  it('shared_blob: share a Blob, fund it and extend it from its funds', async () => {
    const signer = await funded();
    const owner = signer.toSuiAddress();
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(9000));
    const { blobId, blobObject } = await client.writeBlob({ blob, deletable: false, epochs: 2, signer });
    const { object: system } = await suiClient.core.getObject({ objectId: double.packageConfig.systemObjectId });
    const pkg = parseStructTag(system.type).address;

    const share = new Transaction();
    share.setSender(owner);
    share.moveCall({ target: `${pkg}::shared_blob::new`, arguments: [share.object(blobObject.id)] });
    const shared = await signer.signAndExecuteTransaction({ transaction: share, client: suiClient });
    const created = shared.Transaction!.effects.changedObjects.find((c) => c.idOperation === 'Created')!;
    expect(created.outputOwner).toEqual({ $kind: 'Shared', Shared: { initialSharedVersion: created.outputVersion } });
    expect(await chainObject(suiClient, blobObject.id)).toMatchObject({ code: 'notExists' });
    const sharedObject = await suiClient.core.getObject({ objectId: created.objectId, include: { content: true } });
    expect(sharedObject.object.type).toBe(`${pkg}::shared_blob::SharedBlob`);
    expect(SharedBlob.parse(sharedObject.object.content)).toMatchObject({ blob: { id: blobObject.id }, funds: { value: '0' } });

    const { storageCost } = await client.storageCost(blob.length, 3);
    const extend = new Transaction();
    extend.setSender(owner);
    extend.moveCall({ target: `${pkg}::shared_blob::fund`, arguments: [extend.object(created.objectId), coinWithBalance({ type: double.walType, balance: storageCost + 7n })] });
    extend.moveCall({ target: `${pkg}::shared_blob::extend`, arguments: [extend.object(created.objectId), extend.object(double.packageConfig.systemObjectId), extend.pure.u32(3)] });
    const extended = await signer.signAndExecuteTransaction({ transaction: extend, client: suiClient });
    expect(extended.$kind).toBe('Transaction');
    const after = SharedBlob.parse((await suiClient.core.getObject({ objectId: created.objectId, include: { content: true } })).object.content);
    expect(after).toMatchObject({ funds: { value: '7' }, blob: { storage: { end_epoch: 8 } } });
    expect(await walrus().client.getVerifiedBlobStatus({ blobId })).toMatchObject({ type: 'permanent', endEpoch: 8, statusEvent: { txDigest: extended.Transaction!.digest } });
  });

  it('storage nodes answer with the Walrus error bodies', async () => {
    const { client } = walrus();
    const node = double.nodes[0]!;
    const get = async (path: string, init?: object) => {
      const response = await undiciFetch(`${node.url}${path}`, { ...init, dispatcher: agent });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as { error?: { code: number; status: string; details: { reason: string }[] } }) : null };
    };
    const encoded = await client.encodeBlob(new Uint8Array(randomBytes(2000)));
    // not registered on chain: the SDK's BlobNotRegisteredError (retried, then thrown)
    await expect(client.writeMetadataToNode({ nodeIndex: 0, blobId: encoded.blobId, metadata: encoded.metadata })).rejects.toThrow(BlobNotRegisteredError);
    const unknown = await get(`/v1/blobs/${encoded.blobId}/metadata`);
    expect(unknown.status).toBe(404);
    expect(unknown.body!.error).toMatchObject({ code: 404, status: 'NOT_FOUND', details: [{ reason: 'METADATA_NOT_FOUND' }] });
    expect((await get(`/v1/blobs/${encoded.blobId}/status`)).body).toEqual({ success: { code: 200, data: 'nonexistent' } });
    // a sliver of a shard this node does not hold
    const signer = await funded();
    const { blobId } = await client.writeBlob({ blob: new Uint8Array(randomBytes(2000)), deletable: false, epochs: 1, signer });
    const foreign = Array.from({ length: double.nShards }, (_, pair) => pair).find((pair) => !node.shards.includes(toShardIndex(pair, blobId, double.nShards)))!;
    const refused = await get(`/v1/blobs/${blobId}/slivers/${foreign}/primary`);
    expect(refused.status).toBe(400);
    expect(refused.body!.error).toMatchObject({ status: 'FAILED_PRECONDITION', details: [{ reason: 'SHARD_NOT_ASSIGNED' }] });
    expect((await get(`/v1/blobs/${blobId}/slivers/${double.nShards}/primary`)).body!.error).toMatchObject({ details: [{ reason: 'INDEX_OUT_OF_RANGE' }] });
    expect((await get('/v1/nothing')).status).toBe(404);
  });

  it('the full node speaks gRPC-web only: a JSON-RPC request is refused, an undoubled gRPC method is UNIMPLEMENTED naming it', async () => {
    const jsonRpc = await fetch(double.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sui_getObject', params: [double.packageConfig.systemObjectId] }),
    });
    expect(jsonRpc.status).toBe(415);
    expect(await jsonRpc.text()).toMatch(/gRPC-web/);
    // the Sui SDK's own JSON-RPC client gets nothing either
    const legacy = new SuiJsonRpcClient({ url: double.rpcUrl, network: 'localnet' });
    await expect(legacy.getObject({ id: double.packageConfig.systemObjectId })).rejects.toThrow(/415/);
    expect(double.rpcRefused).toEqual(['POST application/json', 'POST application/json']);
    const { suiClient } = walrus();
    // ListEvents is a real sui.rpc.v2 method that the double does not serve
    await expect(suiClient.core.listEvents({ filter: { sender: double.packageConfig.systemObjectId } } as never)).rejects.toThrow(/LedgerService\/ListEvents is not supported by the local network/);
  });
});
