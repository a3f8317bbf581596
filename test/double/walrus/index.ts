// The Walrus network test double: the local Walrus network of src/publisher/local-network (a Sui
// full node speaking Sui's gRPC API as gRPC-web over an in-process ledger, and N HTTPS storage
// nodes) with the hooks a test needs: fault injection on the full node and the nodes, epoch
// change, the ledger's transactions, node signatures.

import { bls12_381 } from '@noble/curves/bls12-381';
import type { TxRecord } from '../../../src/publisher/local-network/chain.js';
import { advanceEpoch } from '../../../src/publisher/local-network/genesis.js';
import { startLocalNetwork, type LocalNetworkOptions } from '../../../src/publisher/local-network/index.js';
import type { GrpcFaults } from '../../../src/publisher/local-network/sui-grpc.js';

export type WalrusDoubleOptions = Omit<LocalNetworkOptions, 'tlsDir'>;

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

export async function startWalrusDouble(options: WalrusDoubleOptions = {}): Promise<WalrusDouble> {
  const { chain, world, view, rpc, tls, nodes: servers, nShards, packageConfig, fund, close } = await startLocalNetwork(options);
  return {
    rpcUrl: rpc.url,
    rpcFaults: rpc.faults,
    rpcCalls: rpc.calls,
    rpcRefused: rpc.refused,
    transactions: () => [...chain.transactions.values()],
    packageConfig,
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
    close,
  };
}
