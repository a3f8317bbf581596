// `tusk serve --network local`: the local Walrus network (index.ts) started inside the server, the
// publisher's wallet and a test key funded from its faucet, and the client configuration printed
// for an unmodified @mysten/walrus client. The ledger lives in memory: every start is a new
// genesis (new object ids, new keys), only the nodes' TLS files are kept in the data directory.

import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { WalrusNetworkConfig } from '../../config/walrus-network.js';
import { advanceEpoch } from './genesis.js';
import { startLocalNetwork, type LocalNetwork } from './index.js';

export const LOCAL_NETWORK_DIR = 'local-network';
/** What the faucet gives each of the publisher's wallet and the printed test key. */
const FUNDS = { sui: 1_000n * 1_000_000_000n, wal: 100_000n * 1_000_000_000n };

/** What a client needs (printed as one JSON line): the shape of @mysten/walrus's WalrusClient options. */
export interface LocalClientConfig {
  /** SuiGrpcClient's baseUrl */
  suiGrpcUrl: string;
  packageConfig: { systemObjectId: string; stakingPoolId: string };
  /** uploadRelay.host */
  uploadRelay: string;
  /** a funded key (Ed25519Keypair.fromSecretKey) */
  testKey: string;
  /** the CA of the storage nodes' HTTPS certificates: trust it, e.g. NODE_EXTRA_CA_CERTS=<file> */
  nodeCaFile: string;
}

export interface LocalWalrus {
  network: LocalNetwork;
  /** the Walrus backend's configuration for the publisher of this server */
  config: WalrusNetworkConfig;
  clientConfig(publisherUrl: string): LocalClientConfig;
  close(): Promise<void>;
}

export interface LocalWalrusOptions {
  subWallets: number;
  /** an epoch ends every this many milliseconds (--epoch-length) */
  epochLengthMs: number;
  /** the longest storage the network sells, in epochs (--max-epochs-ahead): the accounting ring's length */
  maxEpochsAhead?: number;
}

export async function startLocalWalrus(dataDir: string, { subWallets, epochLengthMs, maxEpochsAhead }: LocalWalrusOptions): Promise<LocalWalrus> {
  const dir = path.join(dataDir, LOCAL_NETWORK_DIR);
  const network = await startLocalNetwork({ tlsDir: path.join(dir, 'tls'), ...(maxEpochsAhead !== undefined ? { maxEpochsAhead } : {}) });
  // epochs end as on Walrus, the same committee one epoch on: storage lapses unless extended
  const epochs = setInterval(() => advanceEpoch(network.chain, network.world), epochLengthMs).unref();
  const close = async () => {
    clearInterval(epochs);
    await network.close();
  };
  try {
    // the publisher (this process) reaches the nodes over HTTPS too: trust their CA (Node 22.19+)
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), network.tls.caCert]);
    const publisherKey = Ed25519Keypair.generate();
    const testKey = Ed25519Keypair.generate();
    await network.fund(publisherKey.toSuiAddress(), FUNDS);
    await network.fund(testKey.toSuiAddress(), FUNDS);
    const walletPath = path.join(dir, 'sui.keystore');
    fs.writeFileSync(walletPath, JSON.stringify([publisherKey.getSecretKey()]), { mode: 0o600 });
    return {
      network,
      config: { kind: 'walrus', name: 'local', ...network.packageConfig, rpcUrl: network.rpc.url, walletPath, subWallets },
      clientConfig: (publisherUrl) => ({
        suiGrpcUrl: network.rpc.url,
        packageConfig: network.packageConfig,
        uploadRelay: publisherUrl,
        testKey: testKey.getSecretKey(),
        nodeCaFile: network.tls.caCertFile,
      }),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
