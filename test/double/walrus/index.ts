// The Walrus network test double: a Sui full node speaking Sui's gRPC API (gRPC-web, sui-grpc.ts)
// over an in-process ledger holding the Walrus system objects, and N storage nodes over HTTPS, all
// in the calling process, so that the unmodified @mysten/walrus 1.x WalrusClient (over @mysten/sui
// 2.x's SuiGrpcClient) can write, certify, read and delete blobs against it. See the other files of
// this directory for the upstream facts each part follows (MystenLabs/walrus contracts and
// storage-node server, MystenLabs/sui types, MystenLabs/sui-apis protos).

import { bls12_381 } from '@noble/curves/bls12-381';
import { bcs } from '@mysten/sui/bcs';
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { Chain, GAS, type TxRecord } from './chain.js';
import { advanceEpoch, createGenesis } from './genesis.js';
import { startSuiGrpc, type GrpcFaults } from './sui-grpc.js';
import { StorageNodeDouble, WalrusView } from './storage-nodes.js';
import { SUI_TYPE } from './sui-formats.js';
import { makeTls } from './tls.js';
import { executeTransaction } from './walrus-calls.js';

export interface WalrusDoubleOptions {
  /** storage nodes (default 11: the SDK's getBlobMetadata falls back to the other nodes in
   * floor((n − 1) / 10)-sized chunks, which fails below 11 nodes as soon as one node misses) */
  nodes?: number;
  /** shards, spread over the nodes in contiguous ranges (default 2 × nodes) */
  nShards?: number;
  /** the Walrus epoch (default 1) */
  epoch?: number;
  /** WAL (FROST) per MiB of encoded size: per epoch for storage (default 10 000), once for writes (default 20 000) */
  prices?: { storagePerUnit?: bigint; writePerUnit?: bigint };
  /** the future-accounting ring length (default 53, as on mainnet) */
  maxEpochsAhead?: number;
  /** how long after a transaction the storage nodes see its events (default 0: at once) */
  registrationLagMs?: number;
}

export interface DoubleNode {
  /** https://127.0.0.1:PORT (the network_address on chain is 127.0.0.1:PORT) */
  url: string;
  nodeId: string;
  shards: number[];
  /** the node's BLS12-381 public key (compressed G1, as in its StakingPool's node_info) */
  publicKey: Uint8Array;
  readonly running: boolean;
  /** closes the node's HTTPS listener and its connections (its stored slivers are kept) */
  stop(): Promise<void>;
  /** answers every request with this HTTP status (429, 503) until called with null */
  failWith(status: number | null): void;
  /** HTTP status → answers so far */
  statuses: ReadonlyMap<number, number>;
  /** listens again on the same port */
  start(): Promise<void>;
  /** test hook: the node's BLS12-381 min_pk signature over `message` (e.g. to forge certificates) */
  signMessage(message: Uint8Array): Uint8Array;
}

export interface WalrusDouble {
  /** the Sui full node's gRPC(-web) URL */
  rpcUrl: string;
  /** fault injection on the full node: return an error status for a method, or null */
  rpcFaults: GrpcFaults;
  /** gRPC method → calls so far */
  rpcCalls: Map<string, number>;
  /** requests the full node refused as no gRPC-web (a JSON-RPC client's POST application/json), as "METHOD content-type" */
  rpcRefused: readonly string[];
  /** every executed transaction, in order (the ledger a test checks payments against) */
  transactions(): TxRecord[];
  packageConfig: { systemObjectId: string; stakingPoolId: string };
  /** the PEM file of the CA that issued the nodes' certificate (for NODE_EXTRA_CA_CERTS) */
  caCertFile: string;
  /** the same CA as PEM text (for an in-process TLS agent) */
  caCert: string;
  nodes: DoubleNode[];
  nShards: number;
  /** the current Walrus epoch (from the chain) */
  readonly epoch: number;
  /** ends the current epoch: the same committee, one epoch on (genesis.ts advanceEpoch); returns the new epoch */
  advanceEpoch(): number;
  /** the WAL coin type, e.g. 0x…::wal::WAL */
  walType: string;
  /** sends SUI (MIST) and/or WAL (FROST) from the faucet to `address`, in a real transaction; returns its digest */
  fund(address: string, amounts: { sui?: bigint; wal?: bigint }): Promise<string>;
  /** the Sui full node goes away (connections refused from now on); the storage nodes keep serving */
  stopRpc(): Promise<void>;
  close(): Promise<void>;
}

function genesisDigest(): string {
  const zero = normalizeSuiAddress('0x0');
  const bytes = bcs.TransactionData.serialize({
    V1: { kind: { Genesis: { objects: [] } }, sender: zero, gasData: { payment: [], owner: zero, price: 1, budget: 0 }, expiration: { None: true } },
  }).toBytes();
  return TransactionDataBuilder.getDigestFromBytes(bytes);
}

export async function startWalrusDouble(options: WalrusDoubleOptions = {}): Promise<WalrusDouble> {
  const nNodes = options.nodes ?? 11;
  const nShards = options.nShards ?? 2 * nNodes;
  if (nShards < nNodes) throw new Error('every node needs at least one shard');
  const epoch = options.epoch ?? 1;
  const tls = makeTls();
  const servers = Array.from({ length: nNodes }, () => new StorageNodeDouble(tls));
  await Promise.all(servers.map((s) => s.start()));

  const chain = new Chain(genesisDigest());
  const world = createGenesis(chain, {
    networkAddresses: servers.map((s) => `127.0.0.1:${s.port}`),
    nShards,
    epoch,
    storagePricePerUnit: options.prices?.storagePerUnit ?? 10_000n,
    writePricePerUnit: options.prices?.writePerUnit ?? 20_000n,
    maxEpochsAhead: options.maxEpochsAhead ?? 53,
    totalCapacity: 1n << 50n,
  });
  const view = new WalrusView(chain, world, options.registrationLagMs ?? 0);
  servers.forEach((s, i) => s.attach(world.nodes[i]!, view));
  const rpc = await startSuiGrpc(chain, world);

  const faucet = world.faucet.toSuiAddress();
  let queue: Promise<unknown> = Promise.resolve();
  const fund = (address: string, amounts: { sui?: bigint; wal?: bigint }): Promise<string> => {
    const run = async () => {
      const [gas] = chain.coins(faucet, SUI_TYPE);
      const [wal] = chain.coins(faucet, world.walType);
      const tx = new Transaction();
      tx.setSender(faucet);
      tx.setGasPrice(GAS.referenceGasPrice);
      tx.setGasBudget(GAS.referenceGasPrice * 10_000n);
      tx.setGasPayment([{ objectId: gas!.object.id, version: String(gas!.object.version), digest: gas!.object.digest }]);
      const coins = [];
      if (amounts.sui) coins.push(tx.splitCoins(tx.gas, [amounts.sui])[0]!);
      if (amounts.wal) coins.push(tx.splitCoins(tx.objectRef({ objectId: wal!.object.id, version: String(wal!.object.version), digest: wal!.object.digest }), [amounts.wal])[0]!);
      tx.transferObjects(coins, address);
      const bytes = await tx.build();
      const { signature } = await world.faucet.signTransaction(bytes);
      const record = await executeTransaction(chain, world, bytes, { dryRun: false, signatures: [signature] });
      if (!record.success) throw new Error(`funding ${address} failed: ${record.failure?.description}`);
      return record.digest;
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    rpcUrl: rpc.url,
    rpcFaults: rpc.faults,
    rpcCalls: rpc.calls,
    rpcRefused: rpc.refused,
    transactions: () => [...chain.transactions.values()],
    packageConfig: { systemObjectId: world.systemObjectId, stakingPoolId: world.stakingObjectId },
    caCertFile: tls.caCertFile,
    caCert: tls.caCert,
    nodes: servers.map((s, i) => ({
      url: s.url,
      nodeId: world.nodes[i]!.nodeId,
      shards: world.nodes[i]!.shards,
      publicKey: world.nodes[i]!.blsPublicKey,
      get running() {
        return s.running;
      },
      stop: () => s.stop(),
      start: () => s.start(),
      failWith: (status: number | null) => {
        s.failWith = status;
      },
      statuses: s.statuses,
      signMessage: (message: Uint8Array) => bls12_381.sign(message, world.nodes[i]!.blsSecretKey),
    })),
    nShards,
    get epoch() {
      return view.epoch();
    },
    advanceEpoch: () => advanceEpoch(chain, world),
    walType: world.walType,
    fund,
    stopRpc: () => rpc.close(),
    async close() {
      await Promise.all([rpc.close(), ...servers.map((s) => s.stop())]);
      tls.remove();
    },
  };
}
