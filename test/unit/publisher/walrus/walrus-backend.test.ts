// WalrusBackend in process against the gRPC double (Node 22+): what the chain says of the network
// (shards, epochs ahead), the relay's BLS certificate (the SDK certifies with it on chain) also with
// f shards' nodes down, blob attributes set on chain, and the failures a publisher must turn into clear errors: a chain that does
// not answer at start-up, and one that stops answering.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { WalrusClient } from '@mysten/walrus';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalrusBlobGone } from '../../../../src/base/walrus-blobs.js';
import { openBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import type { BlobCodec } from '../../../../src/publisher/rs2/codec-types.js';
import { PublisherError } from '../../../../src/publisher/service/errors.js';
import { openWalrusBackend, type WalrusBackend } from '../../../../src/publisher/walrus/walrus-backend.js';
import type { WalrusNetworkConfig } from '../../../../src/config/walrus-network.js';
import { startWalrusDouble, type WalrusDouble } from '../../../double/walrus/index.js';
import { NEEDS_NODE_22 } from '../../../double/walrus/node-version.js';
import { moveCalls, registeredBlobIds, txSender } from '../../../double/walrus/ledger.js';
import { randomBytes } from '../codec/vector-input.js';

let double: WalrusDouble;
let codec: BlobCodec;
let dir: string;
let previousDispatcher: Dispatcher;

beforeAll(async () => {
  if (NEEDS_NODE_22) return;
  double = await startWalrusDouble({ nodes: 11, maxEpochsAhead: 20 });
  codec = await openBlobCodec();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-walrus-backend-'));
  // the backend reaches the nodes with global fetch, as Tusk does with NODE_EXTRA_CA_CERTS
  previousDispatcher = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connect: { ca: double.caCert } }));
}, 60_000);

afterAll(async () => {
  if (previousDispatcher) setGlobalDispatcher(previousDispatcher);
  await codec?.close();
  await double?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function wallet(fund: { sui?: bigint; wal?: bigint }): Promise<{ key: Ed25519Keypair; file: string }> {
  const key = Ed25519Keypair.generate();
  await double.fund(key.toSuiAddress(), fund);
  const file = path.join(dir, `${key.toSuiAddress()}.keystore`);
  fs.writeFileSync(file, JSON.stringify([key.getSecretKey()]));
  return { key, file };
}

function config(walletPath: string, rpcUrl = double.rpcUrl): WalrusNetworkConfig {
  return { kind: 'walrus', name: 'double', ...double.packageConfig, rpcUrl, walletPath, subWallets: 8 };
}

describe.skipIf(NEEDS_NODE_22)(`WalrusBackend${NEEDS_NODE_22 ? ' (skipped: @mysten/sui 2.x needs Node 22)' : ''}`, () => {
  let backend: WalrusBackend;
  let backendKey: Ed25519Keypair;
  const logs: string[] = [];

  it('takes shards, epochs ahead and the committee from the chain, and says so', async () => {
    const { file, key } = await wallet({ sui: 10n ** 10n, wal: 10n ** 12n });
    backendKey = key;
    backend = await openWalrusBackend({ config: config(file), log: (l) => logs.push(l) });
    expect(backend.nShards).toBe(double.nShards);
    expect(backend.maxEpochsAhead).toBe(20);
    expect(logs.join('\n')).toContain(`wallet ${key.toSuiAddress()}: 1000000000000 FROST, 10000000000 MIST`);
  });

  it('relays a blob the client registered, with f shards down: the BLS certificate certifies it on chain', async () => {
    const user = Ed25519Keypair.generate();
    await double.fund(user.toSuiAddress(), { sui: 10n ** 10n, wal: 10n ** 12n });
    const client = walrusClient();
    const { encoded, registered } = await encodeAndRegister(client, user, randomBytes(301, 40_000), { epochs: 2, deletable: true });
    const down = double.nodes.slice(0, 3); // 6 of 22 shards, f = 7
    await Promise.all(down.map((n) => n.stop()));
    try {
      const certificate = await backend.relay(encoded, registered.blob.id);
      expect(certificate.signers).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
      await client.executeCertifyBlobTransaction({
        signer: user,
        blobId: encoded.blobIdText,
        blobObjectId: registered.blob.id,
        certificate,
        deletable: true,
      });
    } finally {
      await Promise.all(down.map((n) => n.start()));
    }
    // the nodes count it as a certified deletable blob
    expect(await client.getVerifiedBlobStatus({ blobId: encoded.blobIdText })).toMatchObject({ type: 'deletable', deletableCounts: { count_deletable_certified: 1 } });
  });

  it("with reuse_resources=true, certifies the wallet's own uncertified registration at no cost, and extends it (reuseAndExtend)", async () => {
    // what a store that paid but reached no quorum leaves in the wallet
    const { encoded, registered } = await encodeAndRegister(walrusClient(), backendKey, randomBytes(303, 30_000), { epochs: 3, deletable: false });
    const query = { epochs: 2, deletable: false, force: false, share: false, reuseResources: true };
    const stored = await backend.publish(encoded, query);
    expect(stored).toMatchObject({
      newlyCreated: {
        blobObject: { id: registered.blob.id, certifiedEpoch: double.epoch, storage: { endEpoch: double.epoch + 3 } },
        resourceOperation: { reuseRegistration: { encodedLength: encoded.encodedLength } },
        cost: 0,
      },
    });
    // certified now: the event variant answers a permanent store
    expect(await backend.publish(encoded, query)).toHaveProperty('alreadyCertified.event');
    // longer than it is stored: extended on chain (extend_blob), paying the two added epochs' storage
    const { storageCost } = await walrusClient().storageCost(encoded.unencodedLength, 2);
    const extended = await backend.publish(encoded, { ...query, epochs: 5 });
    expect(extended).toMatchObject({
      newlyCreated: {
        blobObject: { id: registered.blob.id, storage: { endEpoch: double.epoch + 5 } },
        resourceOperation: { reuseAndExtend: { encodedLength: encoded.encodedLength, epochsExtended: 2 } },
        cost: Number(storageCost),
      },
    });
  });

  it("sets blob attributes on the sub-wallet's certified Blob object (insert or update), and answers WalrusBlobGone for a blob the wallet lacks", async () => {
    const encoded = await codec.encode(randomBytes(310, 12_000), double.nShards);
    const stored = await backend.publish(encoded, { epochs: 2, deletable: false, force: false, share: false, reuseResources: false });
    const objectId = (stored as { newlyCreated: { blobObject: { id: string } } }).newlyCreated.blobObject.id;
    await backend.setBlobAttributes(encoded.blobIdText, { 'tusk-key': 'a', 'tusk-size': '12000' });
    await backend.setBlobAttributes(encoded.blobIdText, { 'tusk-key': 'b' });
    expect(await walrusClient().readBlobAttributes({ blobObjectId: objectId })).toEqual({ 'tusk-key': 'b', 'tusk-size': '12000' });
    const absent = await codec.encode(randomBytes(311, 1_000), double.nShards);
    await expect(backend.setBlobAttributes(absent.blobIdText, { 'tusk-key': 'c' })).rejects.toBeInstanceOf(WalrusBlobGone);
  });

  it("renewal and import read the wallet's Blob objects from the chain: terms priced as storageCost(size, 1), extend_blob signed by the object's owner, attributes listed", async () => {
    const data = randomBytes(312, 20_000);
    const encoded = await codec.encode(data, double.nShards);
    const stored = await backend.publish(encoded, { epochs: 2, deletable: false, force: false, share: false, reuseResources: false });
    const objectId = (stored as { newlyCreated: { blobObject: { id: string } } }).newlyCreated.blobObject.id;
    // the wallet that registered it (a sub-wallet) owns it
    const registration = double.transactions().find((tx) => registeredBlobIds(tx).includes(encoded.blobIdText))!;
    const owner = txSender(registration.txBytes);
    expect(owner).not.toBe(backendKey.toSuiAddress());
    await backend.setBlobAttributes(encoded.blobIdText, { 'tusk-key': 'renewed' });
    const plain = await codec.encode(randomBytes(313, 5_000), double.nShards);
    await backend.publish(plain, { epochs: 2, deletable: false, force: false, share: false, reuseResources: false });

    const view = await backend.renewalView();
    expect([view.current, view.maxAhead]).toEqual([double.epoch, 20]);
    const { storageCost } = await walrusClient().storageCost(data.length, 1);
    expect(view.term(encoded.blobIdText)).toEqual({ endEpoch: double.epoch + 2, costPerEpoch: storageCost });
    const absent = await codec.encode(randomBytes(314, 1_000), double.nShards);
    expect(view.term(absent.blobIdText)).toBeUndefined();
    await expect(view.extend(absent.blobIdText, 1)).rejects.toBeInstanceOf(WalrusBlobGone);

    const before = double.transactions().length;
    expect(await view.extend(encoded.blobIdText, 3)).toEqual({ endEpoch: double.epoch + 5, costPerEpoch: storageCost, cost: 3n * storageCost });
    const [tx] = double.transactions().slice(before);
    expect(moveCalls(tx!.txBytes).map((c) => c.function)).toContain('extend_blob');
    expect(txSender(tx!.txBytes)).toBe(owner);
    expect(Number((await walrusClient().getBlobObject(objectId)).storage.end_epoch)).toBe(double.epoch + 5);

    const owned = await backend.ownedBlobs();
    expect(owned.find((b) => b.blobId === encoded.blobIdText)).toEqual({ blobId: encoded.blobIdText, size: data.length, attributes: { 'tusk-key': 'renewed' } });
    expect(owned.find((b) => b.blobId === plain.blobIdText)).toEqual({ blobId: plain.blobIdText, size: 5_000, attributes: {} });
    expect(owned.find((b) => b.blobId === absent.blobIdText)).toBeUndefined();
  });

  it('16 stores sent at once from one wallet all answer newlyCreated, each paid once, on sub-wallets funded from it; no transaction fails', async () => {
    const { file, key } = await wallet({ sui: 20n * 10n ** 9n, wal: 10n ** 12n });
    const parallel = await openWalrusBackend({ config: config(file), log: () => {} });
    const before = await parallel.balances();
    const since = double.transactions().length;
    const blobs = await Promise.all(Array.from({ length: 16 }, (_, i) => codec.encode(randomBytes(400 + i, 20_000 + i), double.nShards)));
    const stored = await Promise.all(blobs.map((encoded) => parallel.publish(encoded, { epochs: 1, deletable: false, force: false, share: false, reuseResources: false })));
    const created = stored.map((r) => (r as { newlyCreated?: { blobObject: { blobId: string }; cost: number } }).newlyCreated);
    expect(created.map((c) => c?.blobObject.blobId)).toEqual(blobs.map((b) => b.blobIdText));

    // the ledger: one register_blob per blob, every transaction of this run succeeded, and the WAL
    // the wallet and its sub-wallets lost is the sum of the costs answered
    const run = double.transactions().slice(since);
    expect(run.filter((tx) => !tx.success)).toEqual([]);
    const registered = run.flatMap((tx) => moveCalls(tx.txBytes).filter((c) => c.function === 'register_blob').map(() => tx.digest));
    expect(registered).toHaveLength(16);
    const paid = created.reduce((n, c) => n + BigInt(c!.cost), 0n);
    expect(before.wal - (await parallel.balances()).wal).toBe(paid);
    // the main wallet only funded: its coins were in no store's transaction
    const main = key.toSuiAddress();
    const mainTxs = run.filter((tx) => txSender(tx.txBytes) === main);
    expect(mainTxs.length).toBeGreaterThan(0);
    for (const tx of mainTxs) expect(moveCalls(tx.txBytes).map((c) => c.function)).not.toContain('register_blob');
    expect(new Set(parallel.pool.addresses).size).toBe(parallel.pool.wallets.length);
  }, 240_000);

  it('a store cut off after paying is completed by a restarted publisher on retry with reuse_resources, without paying again', async () => {
    const { file } = await wallet({ sui: 10n ** 10n, wal: 10n ** 12n });
    const first = await openWalrusBackend({ config: config(file), log: () => {} });
    const encoded = await codec.encode(randomBytes(420, 60_000), double.nShards);
    const query = { epochs: 2, deletable: false, force: false, share: false, reuseResources: true };
    // more than f shards' nodes down: the register transaction pays, then no quorum confirms
    const down = double.nodes.slice(0, 5);
    await Promise.all(down.map((n) => n.stop()));
    try {
      const failure = await first.publish(encoded, query).catch((e: unknown) => e);
      expect((failure as PublisherError).code).toBe('INSUFFICIENT_CONFIRMATIONS');
    } finally {
      await Promise.all(down.map((n) => n.start()));
    }
    const registrations = () => double.transactions().filter((tx) => moveCalls(tx.txBytes).some((c) => c.function === 'register_blob' && registeredBlobIds(tx).includes(encoded.blobIdText)));
    expect(registrations()).toHaveLength(1);
    // a new process with the same wallet finds the sub-wallet's paid registration and certifies it at no cost
    const second = await openWalrusBackend({ config: config(file), log: () => {} });
    const before = await second.balances();
    const retried = await second.publish(encoded, query);
    expect(retried).toMatchObject({ newlyCreated: { cost: 0, resourceOperation: { reuseRegistration: { encodedLength: encoded.encodedLength } } } });
    expect(registrations()).toHaveLength(1);
    expect((await second.balances()).wal).toBe(before.wal);
    expect(await walrusClient().getVerifiedBlobStatus({ blobId: encoded.blobIdText })).toMatchObject({ type: 'permanent', isCertified: true });
  }, 240_000);

  it('stores with f shards on nodes that answer 429, 503 or are down, and reads back', async () => {
    const [busy, failing, down] = double.nodes;
    busy!.failWith(429);
    failing!.failWith(503);
    await down!.stop();
    try {
      const data = randomBytes(430, 30_000);
      const encoded = await codec.encode(data, double.nShards);
      const stored = await backend.publish(encoded, { epochs: 1, deletable: false, force: false, share: false, reuseResources: false });
      expect(stored).toHaveProperty('newlyCreated.blobObject.certifiedEpoch', double.epoch);
      expect(Buffer.from(await walrusClient().readBlob({ blobId: encoded.blobIdText })).equals(data)).toBe(true);
    } finally {
      busy!.failWith(null);
      failing!.failWith(null);
      await down!.start();
    }
  }, 120_000);

  it('an execution the full node does not answer: 503 CHAIN_UNAVAILABLE, and the sub-wallet sends that same signed transaction again before any other', async () => {
    const execute = 'sui.rpc.v2.TransactionExecutionService/ExecuteTransaction';
    // the first register transaction (not a funding one) is answered UNAVAILABLE, unexecuted
    let dropped = 0;
    double.rpcFaults.before = (method, request) =>
      method === execute && moveCalls(request.transaction.bcs.value).some((c) => c.function === 'register_blob') && dropped++ === 0 ? { code: 14, message: 'injected: the full node is overloaded' } : null;
    try {
      const encoded = await codec.encode(randomBytes(432, 10_000), double.nShards);
      const failure = await backend.publish(encoded, { epochs: 1, deletable: false, force: false, share: false, reuseResources: false }).catch((e: unknown) => e);
      expect((failure as PublisherError).code).toBe('CHAIN_UNAVAILABLE');
      // the register transaction it had signed reaches the chain, once, without another store
      const registered = () => double.transactions().filter((tx) => registeredBlobIds(tx).includes(encoded.blobIdText));
      for (let i = 0; i < 100 && registered().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(registered()).toHaveLength(1);
      expect(dropped).toBeGreaterThan(1);
      // the ledger holds it once: the resent bytes are the same transaction
      expect(new Set(registered().map((tx) => tx.digest)).size).toBe(1);
    } finally {
      double.rpcFaults.before = undefined;
    }
  }, 60_000);

  it('an epoch change between the confirmations and the certify transaction: written and certified again in the new epoch, registered and paid once', async () => {
    const execute = 'sui.rpc.v2.TransactionExecutionService/ExecuteTransaction';
    const certifies = (tx: { txBytes: Uint8Array }) => moveCalls(tx.txBytes).some((c) => c.function === 'certify_blob');
    // the epoch ends just before the first certify transaction executes: its certificate is of the ended epoch
    let changes = 0;
    double.rpcFaults.before = (method, request) => {
      if (method === execute && certifies({ txBytes: request.transaction.bcs.value }) && changes++ === 0) double.advanceEpoch();
      return null;
    };
    const since = double.transactions().length;
    const epoch = double.epoch;
    try {
      const encoded = await codec.encode(randomBytes(433, 15_000), double.nShards);
      const stored = await backend.publish(encoded, { epochs: 3, deletable: false, force: false, share: false, reuseResources: false });
      expect(stored).toMatchObject({ newlyCreated: { blobObject: { blobId: encoded.blobIdText, registeredEpoch: epoch, certifiedEpoch: epoch + 1 } } });
      const run = double.transactions().slice(since);
      expect(run.filter((tx) => registeredBlobIds(tx).includes(encoded.blobIdText))).toHaveLength(1);
      // the first certify aborted on chain (an old epoch's certificate), the second certified
      expect(run.filter(certifies).map((tx) => tx.success)).toEqual([false, true]);
      expect(await walrusClient().getVerifiedBlobStatus({ blobId: encoded.blobIdText })).toMatchObject({ type: 'permanent', isCertified: true });
    } finally {
      double.rpcFaults.before = undefined;
    }
  }, 120_000);

  it('a store answers 503 CHAIN_UNAVAILABLE once the Sui RPC stops answering, and a start-up without one fails clearly', async () => {
    const { file } = await wallet({ sui: 10n ** 10n, wal: 10n ** 12n });
    const dead = `http://127.0.0.1:${await closedPort()}`;
    await expect(openWalrusBackend({ config: config(file, dead), log: () => {} })).rejects.toThrow(`network double: cannot read the Walrus system at ${dead}`);

    const encoded = await codec.encode(randomBytes(302, 5_000), double.nShards);
    // the SDK keeps its cached system state, so the wallet check is the first call that fails
    await double.stopRpc();
    const failure = await backend.publish(encoded, { epochs: 1, deletable: true, force: false, share: false, reuseResources: false }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PublisherError);
    expect((failure as PublisherError).code).toBe('CHAIN_UNAVAILABLE');
    expect((failure as PublisherError).httpStatus).toBe(503);
  });
});

describe.skipIf(NEEDS_NODE_22)(`WalrusBackend with nodes that see registrations late${NEEDS_NODE_22 ? ' (skipped: @mysten/sui 2.x needs Node 22)' : ''}`, () => {
  it('stores: the slivers the nodes refuse before they see the registration are sent again', async () => {
    const late = await startWalrusDouble({ nodes: 11, registrationLagMs: 1_500 });
    try {
      const key = Ed25519Keypair.generate();
      await late.fund(key.toSuiAddress(), { sui: 10n ** 10n, wal: 10n ** 12n });
      const file = path.join(dir, `late-${key.toSuiAddress()}.keystore`);
      fs.writeFileSync(file, JSON.stringify([key.getSecretKey()]));
      const onLate = await openWalrusBackend({ config: { kind: 'walrus', name: 'late', ...late.packageConfig, rpcUrl: late.rpcUrl, walletPath: file, subWallets: 8 }, log: () => {} });
      setGlobalDispatcher(new Agent({ connect: { ca: late.caCert } }));
      const encoded = await codec.encode(randomBytes(431, 20_000), late.nShards);
      const stored = await onLate.publish(encoded, { epochs: 1, deletable: false, force: false, share: false, reuseResources: false });
      expect(stored).toHaveProperty('newlyCreated.blobObject.blobId', encoded.blobIdText);
      // the nodes did refuse first: 400 NOT_REGISTERED before the registration reached them
      expect(late.nodes.reduce((n, node) => n + (node.statuses.get(400) ?? 0), 0)).toBeGreaterThan(0);
    } finally {
      setGlobalDispatcher(new Agent({ connect: { ca: double.caCert } }));
      await late.close();
    }
  }, 120_000);
});

function walrusClient(): WalrusClient {
  return new WalrusClient({ packageConfig: double.packageConfig, suiClient: new SuiGrpcClient({ network: 'double', baseUrl: double.rpcUrl }) });
}

/** Encodes `data` and registers it on chain for `owner`, who signs and pays (the SDK's register step). */
async function encodeAndRegister(client: WalrusClient, owner: Ed25519Keypair, data: Buffer, options: { epochs: number; deletable: boolean }) {
  const encoded = await codec.encode(data, double.nShards);
  const registered = await client.executeRegisterBlobTransaction({
    signer: owner,
    size: data.length,
    blobId: encoded.blobIdText,
    rootHash: encoded.rootHash,
    owner: owner.toSuiAddress(),
    ...options,
  });
  return { encoded, registered };
}

async function closedPort(): Promise<number> {
  const net = await import('node:net');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
