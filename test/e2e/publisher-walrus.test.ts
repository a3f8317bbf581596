// The Walrus network backend end to end, without the internet: `tusk serve --network <client config>`
// against the double (test/double/walrus: a Sui full node speaking the gRPC API as gRPC-web, and
// HTTPS storage nodes with BLS keys). Tusk reads the Walrus client config file and the Sui wallet as the Walrus CLI
// keeps them, trusts the nodes' CA through NODE_EXTRA_CA_CERTS, and publishes with the SDK's step
// methods over its native encoding. Checked against the chain: the Blob object, the WAL paid, the
// certify event; reads back through the aggregator with f shards' nodes down; the upload relay
// driven by @mysten/walrus's own writeBlob; quilts; a wallet that cannot pay.
//
// The Walrus backend needs Node 22 (@mysten/sui 2.x): on Node 20 the server refuses it at start-up,
// which the first describe checks; the rest runs on Node 22+ (CI's Node 24 run) and is skipped
// on Node 20, naming the reason.
//
// The same test against testnet, by hand: see README "Walrus networks".

import fs from 'node:fs';
import path from 'node:path';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { WalrusClient } from '@mysten/walrus';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWalrusDouble, type WalrusDouble } from '../double/walrus/index.js';
import { NEEDS_NODE_22 } from '../double/walrus/node-version.js';
import { moveCalls, registeredBlobIds, txSender } from '../double/walrus/ledger.js';
import { Blob, blobIdFromInt, SharedBlob } from '../../src/publisher/local-network/sdk.js';
import { deriveSubWallet } from '../../src/publisher/walrus/wallet-pool.js';
import { randomBytes } from '../unit/publisher/codec/vector-input.js';
import { wasmBlobId } from '../unit/publisher/service/native-publisher.js';
import { getBytes, putBlob } from './helpers/publisher-client.js';
import { makeTempDir, publisherOf, startTusk, type TuskServer } from './helpers/server.js';

const SUI = 1_000_000_000n;
const WAL = 1_000_000_000n;

interface Publisher {
  tusk: TuskServer;
  url: string;
  key: string;
  address: string;
  /** the main wallet's and its sub-wallets' (wallet-pool.ts): Blob objects belong to the sub-wallet that registered them */
  addresses: string[];
  wallet: Ed25519Keypair;
}

let double: WalrusDouble;
let sui: SuiGrpcClient;
let dir: string;
let publisher: Publisher;
const started: TuskServer[] = [];

/** A Sui wallet as the Sui CLI keeps it (client.yaml + sui.keystore) and a Walrus client config naming it. */
function writeWalrusConfig(name: string, key: Ed25519Keypair): string {
  const home = path.join(dir, name);
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, 'sui.keystore'), JSON.stringify([key.getSecretKey()]));
  fs.writeFileSync(path.join(home, 'client.yaml'), `keystore:\n  File: sui.keystore\nenvs:\n  - alias: double\n    rpc: ${double.rpcUrl}\nactive_env: double\nactive_address: "${key.toSuiAddress()}"\n`);
  const config = path.join(home, 'client_config.yaml');
  // unquoted hex ids, as the Walrus CLI writes them
  fs.writeFileSync(
    config,
    `contexts:\n  double:\n    system_object: ${double.packageConfig.systemObjectId}\n    staking_object: ${double.packageConfig.stakingPoolId}\n    wallet_config:\n      path: client.yaml\n      active_env: double\n    rpc_urls:\n      - ${double.rpcUrl}\ndefault_context: double\n`,
  );
  return config;
}

async function startPublisher(name: string, fund: { sui?: bigint; wal?: bigint }, options: { subWallets?: number; key?: Ed25519Keypair } = {}): Promise<Publisher> {
  const key = options.key ?? Ed25519Keypair.generate();
  if (fund.sui || fund.wal) await double.fund(key.toSuiAddress(), fund);
  const config = options.key ? path.join(dir, name, 'client_config.yaml') : writeWalrusConfig(name, key);
  const subWallets = options.subWallets ?? 8;
  const dataDir = path.join(dir, name, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  const tusk = await startTusk({
    publisherListen: '127.0.0.1:0',
    // a restart (options.key given) keeps the data dir, and so the endpoint key
    dataDir,
    extraArgs: ['--network', config, ...(options.subWallets ? ['--sub-wallets', String(subWallets)] : [])],
    env: { NODE_EXTRA_CA_CERTS: double.caCertFile },
    // it reads the Walrus system, the committee and every sub-wallet's balance from the chain first
    startTimeoutMs: 90_000,
  });
  started.push(tusk);
  const { url, key: endpointKey } = await publisherOf(tusk);
  const addresses = [key.toSuiAddress(), ...Array.from({ length: subWallets }, (_, i) => deriveSubWallet(key, i).toSuiAddress())];
  return { tusk, url, key: endpointKey, address: key.toSuiAddress(), addresses, wallet: key };
}

async function walBalance(address: string): Promise<bigint> {
  return BigInt((await sui.core.getBalance({ owner: address, coinType: double.walType })).balance.balance);
}

/** WAL held by the publisher's main wallet and its sub-wallets together: funding moves WAL between them, stores spend it. */
async function publisherWal(p: Publisher): Promise<bigint> {
  return (await Promise.all(p.addresses.map(walBalance))).reduce((a, b) => a + b, 0n);
}

async function chainObject(objectId: string): Promise<{ type: string; owner: unknown; content: Uint8Array }> {
  const { object } = await sui.core.getObject({ objectId, include: { content: true } });
  return { type: object.type, owner: object.owner, content: object.content };
}

/** Whether `tusk serve` can run on this Node: the uWS engine needs a binary built for its ABI. */

const SKIP_REASON = NEEDS_NODE_22 ? '@mysten/sui 2.x needs Node 22' : '';

/** A fetch trusting the double's CA, for the SDK's storage-node client in this process. */
function trustingFetch(): typeof fetch {
  const dispatcher = new Agent({ connect: { ca: double.caCert } });
  // the Agent is the npm undici (6), the global fetch Node's own (7 on Node 24): their types differ,
  // their dispatch protocol does not (undici 8, in Node 26, drops the old one)
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, { ...init, dispatcher } as unknown as RequestInit)) as typeof fetch;
}

beforeAll(async () => {
  dir = makeTempDir('tusk-walrus-network-');
  if (SKIP_REASON) return;
  double = await startWalrusDouble({ nodes: 11 });
  sui = new SuiGrpcClient({ network: 'double', baseUrl: double.rpcUrl });
  publisher = await startPublisher('publisher', { sui: 10n * SUI, wal: 1_000n * WAL });
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((t) => t.dispose()));
  await double?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!NEEDS_NODE_22)('publisher on a Walrus network, on Node 20', () => {
  it('refuses at start-up, naming Node 22, and keeps nothing running', async () => {
    const keystore = path.join(dir, 'node20.keystore');
    fs.writeFileSync(keystore, JSON.stringify([Ed25519Keypair.generate().getSecretKey()]));
    const failure = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs: ['--network', 'testnet', '--wallet', keystore] }).catch((e: unknown) => e as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/needs Node 22 or later/);
  });
});

describe.skipIf(SKIP_REASON !== '')(`publisher on a Walrus network (gRPC double)${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  it('says at start-up which network, epoch, committee and wallet it uses', () => {
    expect(publisher.tusk.output()).toMatch(new RegExp(`publisher on Walrus double \\(epoch ${double.epoch}, 11 storage nodes, ${double.nShards} shards\\); wallet ${publisher.address}`));
  });

  it('stores a blob: newlyCreated with the Blob object, epochs and cost from the chain; again: alreadyCertified with the certify event', async () => {
    const data = randomBytes(101, 150_000);
    const before = await publisherWal(publisher);
    const put = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?epochs=3`, data);
    expect(put.status, put.text).toBe(200);
    const created = put.json.newlyCreated;
    expect(created.blobObject.blobId).toBe(wasmBlobId(data, double.nShards));

    const onChain = await chainObject(created.blobObject.id);
    expect(onChain.type).toMatch(/::blob::Blob$/);
    expect(publisher.addresses).toContain((onChain.owner as { AddressOwner?: string }).AddressOwner);
    const blob = Blob.parse(onChain.content);
    expect(created.blobObject).toEqual({
      id: blob.id,
      registeredEpoch: blob.registered_epoch,
      blobId: blobIdFromInt(blob.blob_id),
      size: Number(blob.size),
      encodingType: 'RS2',
      certifiedEpoch: double.epoch,
      storage: { id: blob.storage.id, startEpoch: double.epoch, endEpoch: double.epoch + 3, storageSize: Number(blob.storage.storage_size) },
      deletable: false,
    });
    expect(blob.certified_epoch).toBe(double.epoch);
    expect(created.resourceOperation).toEqual({ registerFromScratch: { encodedLength: Number(blob.storage.storage_size), epochsAhead: 3 } });
    // the WAL the wallets paid is the cost the publisher answered
    expect(before - (await publisherWal(publisher))).toBe(BigInt(created.cost));

    const again = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?epochs=2`, data);
    expect(again.status, again.text).toBe(200);
    const walrus = new WalrusClient({ packageConfig: double.packageConfig, suiClient: sui, storageNodeClientOptions: { fetch: trustingFetch() } });
    const status = await walrus.getVerifiedBlobStatus({ blobId: created.blobObject.blobId });
    expect(status.type).toBe('permanent');
    if (status.type !== 'permanent') return;
    expect(again.json).toEqual({
      alreadyCertified: { blobId: created.blobObject.blobId, event: { txDigest: status.statusEvent.txDigest, eventSeq: String(status.statusEvent.eventSeq) }, endEpoch: double.epoch + 3 },
    });
    // longer than the certified storage: a new registration
    const longer = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?epochs=5`, data);
    expect(longer.json.newlyCreated?.blobObject.storage.endEpoch).toBe(double.epoch + 5);
  });

  it('reads back through the aggregator, whole, by range and by object id, also with f shards down', async () => {
    const data = randomBytes(102, 400_000);
    const put = await putBlob(publisher.url, `/${publisher.key}/v1/blobs`, data);
    expect(put.status, put.text).toBe(200);
    const { blobId, id } = put.json.newlyCreated.blobObject;
    expect((await getBytes(publisher.url, `/v1/blobs/${blobId}`)).body.equals(data)).toBe(true);
    const ranged = await getBytes(publisher.url, `/v1/blobs/${blobId}`, { range: 'bytes=1000-250999' });
    expect(ranged.status).toBe(206);
    expect(ranged.body.equals(data.subarray(1000, 251_000))).toBe(true);
    expect((await getBytes(publisher.url, `/v1/blobs/by-object-id/${id}`)).body.equals(data)).toBe(true);
    // objects that are no Blob: the System object, and an id nothing has
    expect((await getBytes(publisher.url, `/v1/blobs/by-object-id/${double.packageConfig.systemObjectId}`)).status).toBe(404);
    expect((await getBytes(publisher.url, `/v1/blobs/by-object-id/0x${'12'.repeat(32)}`)).status).toBe(404);

    // f = ⌊(n−1)/3⌋ shards; the double spreads 2 shards per node, so f/2 nodes hold f shards
    const f = Math.floor((double.nShards - 1) / 3);
    const down = double.nodes.filter((_, i) => i < Math.floor(f / 2));
    await Promise.all(down.map((n) => n.stop()));
    try {
      expect((await getBytes(publisher.url, `/v1/blobs/${blobId}`)).body.equals(data)).toBe(true);
      // writes still reach a quorum
      const more = randomBytes(103, 50_000);
      const stored = await putBlob(publisher.url, `/${publisher.key}/v1/blobs`, more);
      expect(stored.status, stored.text).toBe(200);
      expect((await getBytes(publisher.url, `/v1/blobs/${stored.json.newlyCreated.blobObject.blobId}`)).body.equals(more)).toBe(true);
    } finally {
      await Promise.all(down.map((n) => n.start()));
    }
    expect((await getBytes(publisher.url, `/v1/blobs/${'A'.repeat(43)}`)).status).toBe(404);
  });

  it('stores deletable blobs, shares a blob and sends one to another address, as the chain shows', async () => {
    const deletable = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?deletable=true`, randomBytes(104, 20_000));
    expect(deletable.status, deletable.text).toBe(200);
    expect(deletable.json.newlyCreated.blobObject.deletable).toBe(true);
    expect(Blob.parse((await chainObject(deletable.json.newlyCreated.blobObject.id)).content).deletable).toBe(true);
    // reuse_resources=true: the wallet's own certified Blob object answers (the object variant); without it, a new one
    const again = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?deletable=true&reuse_resources=true`, randomBytes(104, 20_000));
    const { id, blobId, storage } = deletable.json.newlyCreated.blobObject;
    expect(again.text).toBe(`{"alreadyCertified":{"blobId":"${blobId}","object":"${id}","endEpoch":${storage.endEpoch}}}`);
    const anew = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?deletable=true`, randomBytes(104, 20_000));
    expect(anew.json.newlyCreated.blobObject.id).not.toBe(id);

    const sharedData = randomBytes(105, 30_000);
    const shared = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?share=true`, sharedData);
    expect(shared.status, shared.text).toBe(200);
    const sharedId = shared.json.newlyCreated.sharedBlobObject as string;
    const sharedObject = await chainObject(sharedId);
    expect(sharedObject.type).toMatch(/::shared_blob::SharedBlob$/);
    expect(sharedObject.owner).toHaveProperty('Shared');
    expect(SharedBlob.parse(sharedObject.content).blob.id).toBe(shared.json.newlyCreated.blobObject.id);
    expect((await getBytes(publisher.url, `/v1/blobs/by-object-id/${sharedId}`)).body.equals(sharedData)).toBe(true);

    const to = Ed25519Keypair.generate().toSuiAddress();
    const sent = await putBlob(publisher.url, `/${publisher.key}/v1/blobs?send_object_to=${to}`, randomBytes(106, 10_000));
    expect(sent.status, sent.text).toBe(200);
    expect((await chainObject(sent.json.newlyCreated.blobObject.id)).owner).toMatchObject({ AddressOwner: to });
  });

  it('stores a quilt and reads each patch back by id and by identifier', async () => {
    const form = new FormData();
    const files = { 'a.txt': randomBytes(107, 3_000), 'b.bin': randomBytes(108, 9_000) };
    for (const [name, bytes] of Object.entries(files)) form.append(name, new globalThis.Blob([bytes]), name);
    const res = await fetch(`${publisher.url}/${publisher.key}/v1/quilts?epochs=1`, { method: 'PUT', body: form });
    const json = (await res.json()) as any;
    expect(res.status, JSON.stringify(json)).toBe(200);
    const quiltId = json.blobStoreResult.newlyCreated.blobObject.blobId as string;
    for (const patch of json.storedQuiltBlobs as Array<{ identifier: keyof typeof files; quiltPatchId: string }>) {
      expect((await getBytes(publisher.url, `/v1/blobs/by-quilt-patch-id/${patch.quiltPatchId}`)).body.equals(files[patch.identifier])).toBe(true);
      expect((await getBytes(publisher.url, `/v1/blobs/by-quilt-id/${quiltId}/${patch.identifier}`)).body.equals(files[patch.identifier])).toBe(true);
    }
  });

  it('is an upload relay for @mysten/walrus writeBlob: the client registers and certifies, Tusk encodes and distributes', async () => {
    const user = Ed25519Keypair.generate();
    await double.fund(user.toSuiAddress(), { sui: 5n * SUI, wal: 100n * WAL });
    const client = new WalrusClient({
      packageConfig: double.packageConfig,
      suiClient: sui,
      storageNodeClientOptions: { fetch: trustingFetch() },
      uploadRelay: { host: publisher.url },
    });
    const data = randomBytes(109, 70_000);
    const { blobId, blobObject } = await client.writeBlob({ blob: data, deletable: false, epochs: 2, signer: user });
    expect(blobId).toBe(wasmBlobId(data, double.nShards));
    expect(blobObject.certified_epoch).toBe(double.epoch);
    expect((await getBytes(publisher.url, `/v1/blobs/${blobId}`)).body.equals(data)).toBe(true);
    // and any Walrus reader gets it from the nodes
    const direct = new WalrusClient({ packageConfig: double.packageConfig, suiClient: sui, storageNodeClientOptions: { fetch: trustingFetch() } });
    expect(Buffer.from(await direct.readBlob({ blobId })).equals(data)).toBe(true);
  });

  it('16 stores sent at once from one wallet (--sub-wallets 4) all answer newlyCreated, each paid once, as the ledger shows', async () => {
    const parallel = await startPublisher('parallel', { sui: 20n * SUI, wal: 1_000n * WAL }, { subWallets: 4 });
    expect(parallel.tusk.output()).toMatch(/\(with its 4 sub-wallets\)/);
    const before = await publisherWal(parallel);
    const since = double.transactions().length;
    const blobs = Array.from({ length: 16 }, (_, i) => randomBytes(120 + i, 10_000 + i));
    const puts = await Promise.all(blobs.map((data) => putBlob(parallel.url, `/${parallel.key}/v1/blobs?epochs=1`, data)));
    for (const put of puts) expect(put.status, put.text).toBe(200);
    const created = puts.map((put) => put.json.newlyCreated as { blobObject: { blobId: string }; cost: number });
    expect(created.map((c) => c?.blobObject.blobId)).toEqual(blobs.map((data) => wasmBlobId(data, double.nShards)));

    // the ledger: no transaction of the run failed, each blob was registered once, by one of the 4
    // sub-wallets, and the WAL the wallets lost together is the sum of the costs answered
    const run = double.transactions().slice(since);
    expect(run.filter((tx) => !tx.success).map((tx) => tx.failure?.description)).toEqual([]);
    const registrations = run.flatMap((tx) => registeredBlobIds(tx).map((blobId) => ({ blobId, sender: txSender(tx.txBytes) })));
    expect(registrations.map((r) => r.blobId).sort()).toEqual(created.map((c) => c.blobObject.blobId).sort());
    const subWallets = parallel.addresses.slice(1);
    for (const { sender } of registrations) expect(subWallets).toContain(sender);
    expect(before - (await publisherWal(parallel))).toBe(created.reduce((n, c) => n + BigInt(c.cost), 0n));
    // the main wallet only funded its sub-wallets
    for (const tx of run.filter((t) => txSender(t.txBytes) === parallel.address)) expect(moveCalls(tx.txBytes)).toEqual([]);
  }, 180_000);

  it('a store killed (kill -9) after paying, at its certify transaction, is completed on retry with reuse_resources=true without paying again', async () => {
    const first = await startPublisher('killed', { sui: 10n * SUI, wal: 100n * WAL });
    const data = randomBytes(140, 40_000);
    const blobId = wasmBlobId(data, double.nShards);
    const execute = 'sui.rpc.v2.TransactionExecutionService/ExecuteTransaction';
    // the publisher dies the moment it sends the certify transaction: registered and paid, slivers on the nodes, not certified
    let killed: Promise<void> | undefined;
    double.rpcFaults.before = (method, request) => {
      if (method !== execute || !moveCalls(request.transaction.bcs.value).some((c) => c.function === 'certify_blob')) return null;
      killed ??= first.tusk.kill9();
      return { code: 14, message: 'injected: the publisher was killed' };
    };
    try {
      const cut = await putBlob(first.url, `/${first.key}/v1/blobs?epochs=2&reuse_resources=true`, data).catch((e: unknown) => e);
      expect(cut).toBeInstanceOf(Error);
      await killed;
    } finally {
      double.rpcFaults.before = undefined;
    }
    const registrations = () => double.transactions().filter((tx) => registeredBlobIds(tx).includes(blobId));
    expect(registrations()).toHaveLength(1);
    const paid = await publisherWal(first);

    // the same wallet and data dir, a new process
    const second = await startPublisher('killed', {}, { key: first.wallet });
    expect(second.key).toBe(first.key);
    const retried = await putBlob(second.url, `/${second.key}/v1/blobs?epochs=2&reuse_resources=true`, data);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.json.newlyCreated).toMatchObject({ blobObject: { blobId, certifiedEpoch: double.epoch }, resourceOperation: { reuseRegistration: {} }, cost: 0 });
    expect(registrations()).toHaveLength(1);
    expect(await publisherWal(second)).toBe(paid);
    expect((await getBytes(second.url, `/v1/blobs/${blobId}`)).body.equals(data)).toBe(true);
  }, 120_000);

  it('refuses with a clear JSON error, before any work, when the wallet cannot pay; the ledger routes say the ledger is Sui', async () => {
    const poor = await startPublisher('poor', { sui: 1n * SUI });
    const put = await putBlob(poor.url, `/${poor.key}/v1/blobs`, randomBytes(110, 1_000));
    expect(put.status).toBe(503);
    expect(put.json.error.details[0]).toMatchObject({ reason: 'INSUFFICIENT_BALANCE' });
    expect(put.json.error.message).toMatch(new RegExp(`wallet ${poor.address} holds 0 FROST`));
    const noGas = await startPublisher('no-gas', { wal: 10n * WAL });
    const put2 = await putBlob(noGas.url, `/${noGas.key}/v1/blobs`, randomBytes(111, 1_000));
    expect(put2.status).toBe(503);
    expect(put2.json.error.details[0]).toMatchObject({ reason: 'INSUFFICIENT_GAS' });
    const ledger = await fetch(`${publisher.url}/v1/ledger/status`);
    expect(ledger.status).toBe(404);
  }, 180_000);

  it('sent the Sui full node gRPC-web only: no request the double refused as JSON-RPC, every call a sui.rpc.v2 method', () => {
    expect(double.rpcRefused).toEqual([]);
    expect([...double.rpcCalls.keys()].filter((m) => !/^sui\.rpc\.v2\.\w+Service\/\w+$/.test(m))).toEqual([]);
    expect(double.rpcCalls.get('sui.rpc.v2.TransactionExecutionService/ExecuteTransaction')).toBeGreaterThan(0);
  });
});
