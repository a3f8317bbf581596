// The Walrus network test double (test/double/walrus) against the unmodified SDKs: @mysten/walrus's
// WalrusClient over @mysten/sui's SuiClient writes, certifies, reads, inspects and deletes blobs;
// costs, gas, digests, quorum and signature checks come out as Walrus and Sui define them.

import { randomBytes } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bcs } from '@mysten/sui/bcs';
import { SuiClient } from '@mysten/sui/client';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { coinWithBalance, Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { fromBase64, parseStructTag } from '@mysten/sui/utils';
import { BlobNotCertifiedError, BlobNotRegisteredError, blobIdToInt, NotEnoughBlobConfirmationsError, WalrusClient } from '@mysten/walrus';
import { bls12381_min_pk_verify } from '@mysten/walrus-wasm';
import { startWalrusDouble, type WalrusDouble } from '../../double/walrus/index.js';
import { SharedBlob, toShardIndex } from '../../double/walrus/sdk.js';

let double: WalrusDouble;
let agent: Agent;

beforeAll(async () => {
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
  const suiClient = new SuiClient({ url: double.rpcUrl });
  const client = new WalrusClient({ packageConfig: double.packageConfig, suiClient, storageNodeClientOptions: { fetch, timeout: 10_000 } });
  return { suiClient, client };
}

async function signerWith(amounts: { sui?: bigint; wal?: bigint }): Promise<Ed25519Keypair> {
  const signer = new Ed25519Keypair();
  await double.fund(signer.toSuiAddress(), amounts);
  return signer;
}

const funded = () => signerWith({ sui: 50_000_000_000n, wal: 10_000_000_000_000n });

async function balance(suiClient: SuiClient, owner: string, coinType?: string): Promise<bigint> {
  return BigInt((await suiClient.getBalance({ owner, coinType })).totalBalance);
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
    objectId: object.id.id,
  });
  return { blobId: encoded.blobId, objectId: object.id.id, confirmations };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function certificate(confirmations: ({ serializedMessage: string; signature: string } | null)[], signers: number[], signWith = signers) {
  return {
    signers,
    serializedMessage: fromBase64(confirmations[signers[0]!]!.serializedMessage),
    signature: bls12_381.aggregateSignatures(signWith.map((i) => fromBase64(confirmations[i]!.signature))) as Uint8Array,
  };
}

describe('the Walrus double with the unmodified SDK', () => {
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
    if (attributes) expect(await client.readBlobAttributes({ blobObjectId: blobObject.id.id })).toEqual(attributes);
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
    await flow.upload({ digest: register.digest });
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
      const g = tx.effects!.gasUsed;
      return n + BigInt(g.computationCost) + BigInt(g.storageCost) - BigInt(g.storageRebate);
    }, 0n);
    expect(gas).toBeGreaterThan(0n);
    expect(suiBefore - (await balance(suiClient, owner))).toBe(gas);

    const status = await client.getVerifiedBlobStatus({ blobId });
    const events = (await suiClient.getTransactionBlock({ digest: certify.digest, options: { showEvents: true } })).events!;
    const certified = events.find((e) => e.type.endsWith('::events::BlobCertified'))!;
    expect(certified.parsedJson).toMatchObject({ blob_id: String(blobIdToInt(blobId)), epoch: 3, end_epoch: 8, deletable: false, is_extension: false });
    expect(status).toEqual({
      type: 'permanent',
      endEpoch: 8,
      isCertified: true,
      statusEvent: { txDigest: certify.digest, eventSeq: certified.id.eventSeq },
      deletableCounts: { count_deletable_total: 0, count_deletable_certified: 0 },
      initialCertifiedEpoch: 3,
    });
  });

  it('transaction digests are Blake2b-256 over the TransactionData, effects and objects are consistent', async () => {
    const signer = await funded();
    const { client, suiClient } = walrus();
    const { blobObject } = await client.writeBlob({ blob: new Uint8Array(randomBytes(1234)), deletable: true, epochs: 1, signer });
    const object = await suiClient.getObject({ id: blobObject.id.id, options: { showPreviousTransaction: true, showOwner: true, showType: true } });
    const digest = object.data!.previousTransaction!;
    const tx = await suiClient.getTransactionBlock({ digest, options: { showRawInput: true, showEffects: true, showObjectChanges: true } });
    const [signed] = bcs.SenderSignedData.parse(fromBase64(tx.rawTransaction!));
    expect(TransactionDataBuilder.getDigestFromBytes(bcs.TransactionData.serialize(signed!.intentMessage.value).toBytes())).toBe(digest);
    expect(object.data!.owner).toEqual({ AddressOwner: signer.toSuiAddress() });
    expect(tx.objectChanges!.find((c) => c.type === 'mutated' && c.objectId === blobObject.id.id)).toMatchObject({ version: object.data!.version, digest: object.data!.digest });
    const { transaction } = await suiClient.core.getTransaction({ digest });
    const change = transaction.effects.changedObjects.find((c) => c.id === blobObject.id.id)!;
    expect(change).toMatchObject({ idOperation: 'None', outputVersion: object.data!.version, outputDigest: object.data!.digest });
    expect(transaction.effects.status.success).toBe(true);
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
    await expect(certifyA(certificate(a.confirmations, range(7)))).rejects.toThrow(/MoveAbort.*Identifier\("bls_aggregate"\).*verify_certificate_and_weight.*, 2\) in command 0/);
    // executed anyway (a budget given, so no dry run): the transaction fails on chain, pays gas,
    // and leaves the Blob as it was (at a new version)
    const failing = client.certifyBlobTransaction({ blobId: a.blobId, blobObjectId: a.objectId, certificate: certificate(a.confirmations, range(7)), deletable: false });
    failing.setSender(signer.toSuiAddress());
    failing.setGasBudget(50_000_000n);
    const { suiClient } = walrus();
    const blobBefore = await suiClient.getObject({ id: a.objectId, options: { showBcs: true } });
    const suiBefore = await balance(suiClient, signer.toSuiAddress());
    const failed = await signer.signAndExecuteTransaction({ transaction: failing, client: suiClient });
    expect(failed.effects.status).toEqual({ success: false, error: 'MoveAbort' });
    const failedJson = await suiClient.getTransactionBlock({ digest: failed.digest, options: { showEffects: true } });
    expect(failedJson.effects!.status.error).toMatch(/^MoveAbort\(.*"bls_aggregate".*, 2\) in command 0$/);
    const g = failedJson.effects!.gasUsed;
    expect(suiBefore - (await balance(suiClient, signer.toSuiAddress()))).toBe(BigInt(g.computationCost) + BigInt(g.storageCost) - BigInt(g.storageRebate));
    const blobAfter = await suiClient.getObject({ id: a.objectId, options: { showBcs: true } });
    expect(BigInt(blobAfter.data!.version)).toBeGreaterThan(BigInt(blobBefore.data!.version));
    expect(blobAfter.data!.bcs).toEqual({ ...blobBefore.data!.bcs, version: Number(blobAfter.data!.version) });
    // 8 signers claimed, 7 signed (ESigVerification = 1)
    await expect(certifyA(certificate(a.confirmations, range(8), range(7)))).rejects.toThrow(/Identifier\("bls_aggregate"\).*, 1\) in command 0/);
    // a valid certificate for another epoch (messages EIncorrectEpoch = 1)
    const otherEpoch = new Uint8Array([1, 0, 3, ...bcs.u32().serialize(double.epoch + 1).toBytes(), ...bcs.u256().serialize(blobIdToInt(a.blobId)).toBytes(), 0]);
    const signed = double.nodes.map((node) => node.signMessage(otherEpoch));
    await expect(certifyA({ signers: range(11), serializedMessage: otherEpoch, signature: bls12_381.aggregateSignatures(signed) as Uint8Array })).rejects.toThrow(
      /Identifier\("messages"\).*new_certified_message.*, 1\) in command 0/,
    );
    // A's certificate on another registered blob (blob EInvalidBlobId = 6)
    const b = await registeredAndUploaded(client, signer, new Uint8Array(randomBytes(5000)));
    await expect(
      client.executeCertifyBlobTransaction({ signer, blobId: b.blobId, blobObjectId: b.objectId, certificate: certificate(a.confirmations, range(11)), deletable: false }),
    ).rejects.toThrow(/Identifier\("blob"\).*certify_with_certified_msg.*, 6\) in command 0/);

    // eight of eleven nodes (16 of 22 shards) are a quorum
    await certifyA(certificate(a.confirmations, [0, 2, 3, 5, 6, 7, 9, 10]));
    expect(await client.getVerifiedBlobStatus({ blobId: a.blobId })).toMatchObject({ type: 'permanent', isCertified: true, initialCertifiedEpoch: 3 });
    // certified once only (blob EAlreadyCertified = 5)
    await expect(certifyA(certificate(a.confirmations, range(11)))).rejects.toThrow(/certify_with_certified_msg.*, 5\) in command 0/);
  });

  it('a signer without WAL, or without enough, or without SUI gets a clear failure', async () => {
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(1000));
    const noWal = await signerWith({ sui: 10_000_000_000n });
    await expect(client.writeBlob({ blob, deletable: false, epochs: 1, signer: noWal })).rejects.toThrow(/Not enough coins of type 0x[0-9a-f]{64}::wal::WAL to satisfy requested balance/);
    expect(await balance(suiClient, noWal.toSuiAddress())).toBe(10_000_000_000n);

    // a WAL coin too small: the chain's SplitCoins refuses it
    const poor = await signerWith({ sui: 10_000_000_000n, wal: 5n });
    const [walCoin] = (await suiClient.getCoins({ owner: poor.toSuiAddress(), coinType: double.walType })).data;
    const tx = new Transaction();
    tx.setSender(poor.toSuiAddress());
    tx.transferObjects([client.createStorage({ size: blob.length, epochs: 1, walCoin: tx.object(walCoin!.coinObjectId) })], poor.toSuiAddress());
    await expect(poor.signAndExecuteTransaction({ transaction: tx, client: suiClient })).rejects.toThrow(/Dry run failed.*InsufficientCoinBalance in command 0/);

    const noSui = await signerWith({ wal: 1_000_000_000n });
    await expect(client.writeBlob({ blob, deletable: false, epochs: 1, signer: noSui })).rejects.toThrow('No valid gas coins found for the transaction.');
  });

  it('deleteBlob gives the Storage back and the blob stops existing', async () => {
    const signer = await funded();
    const owner = signer.toSuiAddress();
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(4000));
    const { blobId, blobObject } = await client.writeBlob({ blob, deletable: true, epochs: 3, signer, attributes: { a: 'b' } });
    expect(await client.getVerifiedBlobStatus({ blobId })).toMatchObject({ type: 'deletable', deletableCounts: { count_deletable_total: 1, count_deletable_certified: 1 } });

    // attributes of an existing Blob object: insert_or_update / remove_metadata_pair on the chain
    await client.executeWriteBlobAttributesTransaction({ signer, blobObjectId: blobObject.id.id, attributes: { a: 'c', n: '1' } });
    await client.executeWriteBlobAttributesTransaction({ signer, blobObjectId: blobObject.id.id, attributes: { n: null } });
    expect(await client.readBlobAttributes({ blobObjectId: blobObject.id.id })).toEqual({ a: 'c' });

    await client.executeDeleteBlobTransaction({ signer, blobObjectId: blobObject.id.id });
    const system = await suiClient.getObject({ id: double.packageConfig.systemObjectId, options: { showType: true } });
    const pkg = parseStructTag(system.data!.type!).address;
    const storage = await suiClient.getOwnedObjects({ owner, filter: { StructType: `${pkg}::storage_resource::Storage` }, options: { showBcs: true } });
    expect(storage.data.map((o) => o.data!.objectId)).toEqual([blobObject.storage.id.id]);
    expect((await suiClient.getObject({ id: blobObject.id.id })).error).toMatchObject({ code: 'deleted' });
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
    const { digest } = await client.executeExtendBlobTransaction({ signer, blobObjectId: blobObject.id.id, epochs: 3 });
    const units = (encodedLength(blob.length, 22) + (1n << 20n) - 1n) >> 20n;
    expect(before - (await balance(suiClient, owner, double.walType))).toBe(units * 10_000n * 3n);
    const object = await suiClient.getObject({ id: blobObject.id.id, options: { showPreviousTransaction: true } });
    expect(object.data!.previousTransaction).toBe(digest);
    const events = (await suiClient.getTransactionBlock({ digest, options: { showEvents: true } })).events!;
    expect(events.map((e) => e.parsedJson)).toEqual([{ epoch: 3, blob_id: String(blobIdToInt(blobId)), end_epoch: 8, deletable: false, object_id: blobObject.id.id, is_extension: true }]);
    expect(await walrus().client.getVerifiedBlobStatus({ blobId })).toMatchObject({ type: 'permanent', endEpoch: 8, statusEvent: { txDigest: digest, eventSeq: '0' } });
  });

  it('shared_blob: share a Blob, fund it and extend it from its funds', async () => {
    const signer = await funded();
    const owner = signer.toSuiAddress();
    const { client, suiClient } = walrus();
    const blob = new Uint8Array(randomBytes(9000));
    const { blobId, blobObject } = await client.writeBlob({ blob, deletable: false, epochs: 2, signer });
    const system = await suiClient.getObject({ id: double.packageConfig.systemObjectId, options: { showType: true } });
    const pkg = parseStructTag(system.data!.type!).address;

    const share = new Transaction();
    share.setSender(owner);
    share.moveCall({ target: `${pkg}::shared_blob::new`, arguments: [share.object(blobObject.id.id)] });
    const shared = await signer.signAndExecuteTransaction({ transaction: share, client: suiClient });
    const created = shared.effects!.changedObjects.find((c) => c.idOperation === 'Created')!;
    expect(created.outputOwner).toEqual({ $kind: 'Shared', Shared: { initialSharedVersion: created.outputVersion } });
    expect((await suiClient.getObject({ id: blobObject.id.id })).error).toMatchObject({ code: 'deleted' });
    const sharedObject = await suiClient.core.getObject({ objectId: created.id });
    expect(sharedObject.object.type).toBe(`${pkg}::shared_blob::SharedBlob`);
    expect(SharedBlob.parse(await sharedObject.object.content)).toMatchObject({ blob: { id: { id: blobObject.id.id } }, funds: { value: '0' } });

    const { storageCost } = await client.storageCost(blob.length, 3);
    const extend = new Transaction();
    extend.setSender(owner);
    extend.moveCall({ target: `${pkg}::shared_blob::fund`, arguments: [extend.object(created.id), coinWithBalance({ type: double.walType, balance: storageCost + 7n })] });
    extend.moveCall({ target: `${pkg}::shared_blob::extend`, arguments: [extend.object(created.id), extend.object(double.packageConfig.systemObjectId), extend.pure.u32(3)] });
    const extended = await signer.signAndExecuteTransaction({ transaction: extend, client: suiClient });
    expect(extended.effects!.status.success).toBe(true);
    const after = SharedBlob.parse(await (await suiClient.core.getObject({ objectId: created.id })).object.content);
    expect(after).toMatchObject({ funds: { value: '7' }, blob: { storage: { end_epoch: 8 } } });
    expect(await walrus().client.getVerifiedBlobStatus({ blobId })).toMatchObject({ type: 'permanent', endEpoch: 8, statusEvent: { txDigest: extended.digest } });
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

  it('an undoubled JSON-RPC method is an error naming it', async () => {
    const response = await fetch(double.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_queryEvents', params: [] }),
    });
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32601);
    expect(body.error.message).toContain('suix_queryEvents');
  });
});
