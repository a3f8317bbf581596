// Which storage network the publisher uses (`--network`): the embedded one (in-process or
// `tusk storage-node` nodes and Tusk's own ledger), or Walrus itself on Sui — testnet, mainnet, or
// the deployment a Walrus client configuration file names (the `client_config.yaml` of the Walrus
// CLI: `system_object`, `staking_object`, `rpc_urls`, `wallet_config`, optionally under `contexts`
// with a `default_context`).

import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface WalrusNetworkConfig {
  kind: 'walrus';
  /** testnet, mainnet, or the configuration file's context name (or path) */
  name: string;
  systemObjectId: string;
  stakingPoolId: string;
  /** the Sui full node's gRPC URL (gRPC-web, as @mysten/sui's SuiGrpcClient speaks it; the rpc_urls of a Walrus client config) */
  rpcUrl: string;
  /** a Sui `client.yaml` or a `sui.keystore` file */
  walletPath: string;
  /** the wallet address to pay from; default: the client.yaml's active address, else the keystore's first key */
  walletAddress?: string;
  /** sub-wallets stores run on in parallel (wallet-pool.ts; upstream's daemon `--n-clients`) */
  subWallets: number;
}

/** `local`: a Walrus network inside the server (publisher/local-network) that the official SDK runs against. */
export type NetworkConfig = { kind: 'embedded' } | { kind: 'local'; subWallets: number } | WalrusNetworkConfig;

/** walrus-sdk/src/config.rs defaults and @mysten/walrus's constants. */
const KNOWN_NETWORKS: Record<'testnet' | 'mainnet', { systemObjectId: string; stakingPoolId: string; rpcUrl: string }> = {
  testnet: {
    systemObjectId: '0x6c2547cbbc38025cf3adac45f63cb0a8d12ecf777cdc75a4971612bf97fdf6af',
    stakingPoolId: '0xbe46180321c30aab2f8b3501e24048377287fa708018a5b7c2792b35fe339ee3',
    rpcUrl: 'https://fullnode.testnet.sui.io:443',
  },
  mainnet: {
    systemObjectId: '0x2134d52768ea07e8c43570ef975eb3e4c27a39fa6396bef985b5abc58d03ddd2',
    stakingPoolId: '0x10b9d30c28448939ce6c4d6c6e0ffce4a7f8a4ada8248bdad09ef8b70e4a3904',
    rpcUrl: 'https://fullnode.mainnet.sui.io:443',
  },
};

/** The Sui CLI's default client configuration, which names the keystore and the active address. */
export const DEFAULT_WALLET = path.join(os.homedir(), '.sui', 'sui_config', 'client.yaml');

const OBJECT_ID = /^0x[0-9a-fA-F]{64}$/;

/** Every scalar as a string: YAML 1.2's core schema would read an unquoted 0x… object id as a number. */
export const YAML_STRINGS = { schema: 'failsafe' } as const;

export interface NetworkSettings {
  network: string;
  wallet?: string;
  walletAddress?: string;
  suiRpc?: string;
  subWallets?: number;
}

/** Sub-wallets when --sub-wallets is not given: the Walrus publisher daemon's default `--n-clients` (MystenLabs/walrus
 * crates/walrus-service/src/client/cli/args.rs: n_publisher_clients() = publisher_max_concurrent_requests() = 8). */
export const DEFAULT_SUB_WALLETS = 8;

export function parseNetwork(settings: NetworkSettings): NetworkConfig {
  const { network } = settings;
  if (network === 'embedded') {
    if (settings.wallet || settings.walletAddress || settings.suiRpc || settings.subWallets !== undefined) {
      throw new Error('network: --wallet, --wallet-address, --sui-rpc and --sub-wallets need --network testnet, mainnet, local or a Walrus client config file');
    }
    return { kind: 'embedded' };
  }
  if (network === 'local') {
    if (settings.wallet || settings.walletAddress || settings.suiRpc) {
      throw new Error('network: --wallet, --wallet-address and --sui-rpc do not apply to --network local (it makes and funds its own wallet)');
    }
    return { kind: 'local', subWallets: settings.subWallets ?? DEFAULT_SUB_WALLETS };
  }
  const walletAddress = settings.walletAddress === undefined ? undefined : checkAddress(settings.walletAddress, 'wallet-address');
  const subWallets = settings.subWallets ?? DEFAULT_SUB_WALLETS;
  if (network === 'testnet' || network === 'mainnet') {
    const known = KNOWN_NETWORKS[network];
    return { kind: 'walrus', name: network, ...known, rpcUrl: settings.suiRpc ?? known.rpcUrl, walletPath: expandHome(settings.wallet ?? DEFAULT_WALLET), walletAddress, subWallets };
  }
  const fromFile = readClientConfig(network);
  return {
    ...fromFile,
    rpcUrl: settings.suiRpc ?? fromFile.rpcUrl,
    walletPath: settings.wallet ? expandHome(settings.wallet) : fromFile.walletPath,
    walletAddress: walletAddress ?? fromFile.walletAddress,
    subWallets,
  };
}

/** A Walrus client configuration file (walrus-sdk config.rs ClientConfig / MultiClientConfig). */
export function readClientConfig(file: string): Omit<WalrusNetworkConfig, 'subWallets'> {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'), YAML_STRINGS);
  } catch (e) {
    throw new Error(`network: '${file}' is not embedded, testnet, mainnet or a readable Walrus client config file: ${(e as Error).message}`);
  }
  let context = asRecord(doc, file);
  let name = file;
  if (context.contexts !== undefined) {
    const contexts = asRecord(context.contexts, `${file}: contexts`);
    const chosen = typeof context.default_context === 'string' ? context.default_context : Object.keys(contexts)[0];
    if (!chosen || contexts[chosen] === undefined) throw new Error(`network: ${file}: no context '${chosen ?? ''}' in contexts`);
    context = asRecord(contexts[chosen], `${file}: contexts.${chosen}`);
    name = chosen;
  }
  const systemObjectId = checkAddress(context.system_object, `${file}: system_object`);
  const stakingPoolId = checkAddress(context.staking_object, `${file}: staking_object`);
  const wallet = context.wallet_config === undefined ? {} : asRecord(context.wallet_config, `${file}: wallet_config`);
  const rpcUrls = Array.isArray(context.rpc_urls) ? context.rpc_urls.filter((u): u is string => typeof u === 'string') : [];
  const walletPath = typeof wallet.path === 'string' ? resolveBeside(file, wallet.path) : DEFAULT_WALLET;
  const rpcUrl = rpcUrls[0] ?? rpcFromSuiClientConfig(walletPath, typeof wallet.active_env === 'string' ? wallet.active_env : undefined);
  if (!rpcUrl) throw new Error(`network: ${file}: no rpc_urls, and the wallet's client.yaml names no RPC for its environment`);
  const walletAddress = wallet.active_address === undefined ? undefined : checkAddress(wallet.active_address, `${file}: wallet_config.active_address`);
  return { kind: 'walrus', name, systemObjectId, stakingPoolId, rpcUrl, walletPath, walletAddress };
}

/** The RPC URL of the active (or named) environment of a Sui client.yaml, when the file is one. */
function rpcFromSuiClientConfig(file: string, env: string | undefined): string | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = asRecord(parseYaml(readFileSync(file, 'utf8'), YAML_STRINGS), file);
  } catch {
    return undefined;
  }
  const alias = env ?? doc.active_env;
  const envs = Array.isArray(doc.envs) ? doc.envs : [];
  const match = envs.find((e): e is { rpc: string } => typeof e === 'object' && e !== null && (e as Record<string, unknown>).alias === alias && typeof (e as Record<string, unknown>).rpc === 'string');
  return match?.rpc;
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`network: ${what}: expected a mapping`);
  return value as Record<string, unknown>;
}

function checkAddress(value: unknown, what: string): string {
  if (typeof value !== 'string' || !OBJECT_ID.test(value)) throw new Error(`${what}: expected 0x followed by 64 hexadecimal digits, got '${String(value).slice(0, 80)}'`);
  return value.toLowerCase();
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : path.resolve(p);
}

/** Relative paths in a config file are relative to the file, as the Walrus CLI reads them. */
function resolveBeside(file: string, p: string): string {
  return p.startsWith('~') ? expandHome(p) : path.resolve(path.dirname(file), p);
}
