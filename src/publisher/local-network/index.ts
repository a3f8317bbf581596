// A local Walrus network in one process (`tusk serve --network local`, and the test double's core):
// a Sui full node speaking Sui's gRPC API as gRPC-web (sui-grpc.ts) over an in-memory ledger holding
// the Walrus system objects (genesis.ts, walrus-calls.ts), and N storage nodes over HTTPS
// (storage-nodes.ts, tls.ts), so that the unmodified @mysten/walrus 1.x WalrusClient (over
// @mysten/sui 2.x's SuiGrpcClient) can write, certify, read and delete blobs against it. See the
// other files of this folder for the upstream facts each part follows (MystenLabs/walrus contracts
// and storage-node server, MystenLabs/sui types, MystenLabs/sui-apis protos).

import { bcs } from '@mysten/sui/bcs';
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { Chain, GAS } from './chain.js';
import { createGenesis, type World } from './genesis.js';
import { startSuiGrpc, type SuiGrpcServer } from './sui-grpc.js';
import { StorageNodeDouble, WalrusView } from './storage-nodes.js';
import { SUI_TYPE } from './sui-formats.js';
import { makeTls, type DoubleTls } from './tls.js';
import { executeTransaction } from './walrus-calls.js';

export interface LocalNetworkOptions {
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
  /** where the nodes' CA and certificate are written (default: a new temp dir, removed by close()) */
  tlsDir?: string;
}

export interface LocalNetwork {
  chain: Chain;
  world: World;
  view: WalrusView;
  rpc: SuiGrpcServer;
  tls: DoubleTls;
  nodes: StorageNodeDouble[];
  nShards: number;
  packageConfig: { systemObjectId: string; stakingPoolId: string };
  /** sends SUI (MIST) and/or WAL (FROST) from the faucet to `address`, in a real transaction; returns its digest */
  fund(address: string, amounts: { sui?: bigint; wal?: bigint }): Promise<string>;
  close(): Promise<void>;
}

function genesisDigest(): string {
  const zero = normalizeSuiAddress('0x0');
  const bytes = bcs.TransactionData.serialize({
    V1: { kind: { Genesis: { objects: [] } }, sender: zero, gasData: { payment: [], owner: zero, price: 1, budget: 0 }, expiration: { None: true } },
  }).toBytes();
  return TransactionDataBuilder.getDigestFromBytes(bytes);
}

export async function startLocalNetwork(options: LocalNetworkOptions = {}): Promise<LocalNetwork> {
  const nNodes = options.nodes ?? 11;
  const nShards = options.nShards ?? 2 * nNodes;
  if (nShards < nNodes) throw new Error('every node needs at least one shard');
  const tls = makeTls(options.tlsDir);
  const nodes = Array.from({ length: nNodes }, () => new StorageNodeDouble(tls));
  await Promise.all(nodes.map((s) => s.start()));

  const chain = new Chain(genesisDigest());
  const world = createGenesis(chain, {
    networkAddresses: nodes.map((s) => `127.0.0.1:${s.port}`),
    nShards,
    epoch: options.epoch ?? 1,
    storagePricePerUnit: options.prices?.storagePerUnit ?? 10_000n,
    writePricePerUnit: options.prices?.writePerUnit ?? 20_000n,
    maxEpochsAhead: options.maxEpochsAhead ?? 53,
    totalCapacity: 1n << 50n,
  });
  const view = new WalrusView(chain, world, options.registrationLagMs ?? 0);
  nodes.forEach((s, i) => s.attach(world.nodes[i]!, view));
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
    // one at a time: each spends the faucet's current coin versions
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    chain,
    world,
    view,
    rpc,
    tls,
    nodes,
    nShards,
    packageConfig: { systemObjectId: world.systemObjectId, stakingPoolId: world.stakingObjectId },
    fund,
    async close() {
      await Promise.all([rpc.close(), ...nodes.map((s) => s.stop())]);
      if (!options.tlsDir) tls.remove();
    },
  };
}
