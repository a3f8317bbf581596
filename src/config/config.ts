// Server settings: embedded defaults, overridden by an optional config file (--config, TOML or
// JSON, same keys as the flags), by TUSK_* environment variables, and by flags. Each setting is
// declared once in flags.ts (flags-*.ts); this file gathers their values into a Config.

import type { HttpEngineMode } from '../http/engine.js';
import type { TlsFiles } from '../http/listener.js';
import type { LogLevel } from '../log/logger.js';
import { helpText, readFlags } from './flag.js';
import { SERVE_FLAGS, SERVE_SECTIONS } from './flags.js';
import { parseNetwork, type NetworkConfig } from './walrus-network.js';
import { parseNotifyTargets, TARGET_KINDS, type NotifyConfig, type TargetKind } from '../notify/config.js';
import { parseJwt, parseSseCOverHttp, parseTls, type HostPort } from './values.js';

export type Durability = 'strict' | 'relaxed';

export interface Config {
  listen: HostPort;
  dataDir: string;
  region: string;
  /** base domains for virtual-host style (s3.md §1.1) */
  domains: string[];
  durability: Durability;
  /** s3.md §0.4 accept_any_region */
  acceptAnyRegion: boolean;
  clockSkewMs: number;
  /** root credentials from the environment; generated and stored in the data directory otherwise */
  rootAccessKeyId?: string;
  rootSecretAccessKey?: string;
  serverHeader: string;
  maxBucketsPerAccount: number;
  storage: StorageConfig;
  publisher: PublisherConfig;
  console: ConsoleConfig;
  website: WebsiteConfig;
  lifecycle: LifecycleConfig;
  /** the renewal worker of storage class WALRUS's blobs (src/s3/walrus-renewal.ts) */
  walrusRenewal: WalrusRenewalConfig;
  /** server access logs into buckets (PutBucketLogging): a journal file is delivered this long after its first record */
  serverAccessLogIntervalMs: number;
  /** bucket notification targets (src/notify) */
  notify: NotifyConfig;
  ops: OpsConfig;
  /** HTTPS for every listener; reloaded on SIGHUP */
  tls?: TlsFiles;
  /** SSE-C on a plain-HTTP loopback listener (testing; as RGW's rgw_crypt_require_ssl = false) */
  sseCustomerKeysOverHttp: boolean;
  /** where the KMS master key comes from (src/kms/master-key.ts): a file, or TUSK_KMS_MASTER_KEY */
  kms: { masterKeyFile?: string; masterKeyBase64?: string };
  /** threads serving the S3 listener: the writer's plus threads - 1 front ends (src/threads/front-threads.ts) */
  threads: number;
  /** the HTTP engine of every listener (src/http/engine.ts) */
  httpEngine: HttpEngineMode;
  /** on SIGTERM/SIGINT, how long in-flight requests may run before their connections are closed */
  shutdownGraceMs: number;
}

export interface StorageConfig {
  /** writes stop (507) before they would leave less than this free on the data directory's disk */
  diskReserve: number;
  /** size of a segment file; larger bodies get one of their own */
  segmentSize: number;
  /** background compaction period; undefined = off */
  compactionIntervalMs?: number;
  /** segments with at least this dead share are compacted */
  compactionMinDead: number;
  /** bytes per second compaction may copy */
  compactionRate: number;
  /** bytes of small bodies kept in memory once read; 0 = off */
  readCache: number;
}

export interface LifecycleConfig {
  /** time between two passes of the lifecycle worker */
  intervalMs: number;
  /** length of a lifecycle "day" (shorter only for testing rules) */
  dayMs: number;
}

export interface WalrusRenewalConfig {
  intervalMs: number;
  /** a blob ending within this many epochs is extended */
  aheadEpochs: number;
  /** the most one pass may spend (FROST); undefined: no limit */
  maxFrostPerPass?: bigint;
}

export interface OpsConfig {
  logLevel: LogLevel;
  /** one info line per request; off keeps the other lines at their levels */
  accessLog: boolean;
  /** /tusk/metrics and the per-request metrics; off saves their cost */
  metrics: boolean;
  /** bearer token /tusk/metrics requires */
  metricsToken?: string;
}

export interface ConsoleConfig {
  /** the web console's listener (src/console); undefined = no console */
  listen?: HostPort;
  /** origins the console is loaded from; S3 answers CORS for these on every bucket (src/console/origins.ts) */
  origins: string[];
}

export interface WebsiteConfig {
  /** the static website endpoint's listener (src/s3/pipeline/website-endpoint.ts); undefined = off */
  listen?: HostPort;
  /** website domains: Host `<bucket>.<domain>` names the bucket; any other Host is the bucket's name */
  domains: string[];
}

export interface PublisherConfig {
  /** publisher + aggregator listener; undefined = no publisher */
  listen?: HostPort;
  /** endpoint keys from configuration; a default one is generated in the data directory when empty */
  endpointKeys: string[];
  network: NetworkConfig;
  nShards: number;
  /** remote storage nodes; empty = 10 nodes inside the process */
  nodeUrls: string[];
  epochLengthMs: number;
  /** the embedded ledger's longest storage, in epochs */
  maxEpochsAhead: number;
  maxBodyBytes: number;
  /** JWT-authorized stores, as the Walrus publisher's --jwt-decode-secret (walrus.md §10.5) */
  jwt?: { secret: string; algorithm?: 'HS256' | 'HS384' | 'HS512'; expiringSec: number; verifyUpload: boolean };
}

export const VERSION = '1.0.0';
export const SERVER_HEADER = `Tusk/${VERSION}`;

const SERVE_HELP_FOOTER = `
  --version                print the version

  Every setting is also a TUSK_* variable: --data-dir is TUSK_DATA_DIR, and so on; and a key of the
  config file (--config). More accounts: <data-dir>/accounts.json (see README).`;

export const SERVE_USAGE = `Usage: tusk serve [options]\n${helpText([...SERVE_SECTIONS])}\n${SERVE_HELP_FOOTER}`;

/** Settings from flags (`argv`, after the subcommand) over environment over the config file over defaults. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const v = readFlags(SERVE_FLAGS, argv, env, 'tusk serve', 'config');
  return {
    listen: v.listen,
    dataDir: v['data-dir'],
    region: v.region,
    domains: v.domain,
    durability: v.durability,
    acceptAnyRegion: v['accept-any-region'],
    clockSkewMs: 15 * 60 * 1000,
    rootAccessKeyId: v['access-key-id'],
    rootSecretAccessKey: v['secret-access-key'],
    serverHeader: SERVER_HEADER,
    maxBucketsPerAccount: v['max-buckets'],
    threads: v.threads,
    httpEngine: v['http-engine'],
    shutdownGraceMs: v['shutdown-grace'],
    storage: {
      diskReserve: v['disk-reserve'],
      segmentSize: v['segment-size'],
      compactionIntervalMs: v['compaction-interval'],
      compactionMinDead: v['compaction-dead'],
      compactionRate: v['compaction-rate'],
      readCache: v['read-cache'],
    },
    lifecycle: { intervalMs: v['lifecycle-interval'], dayMs: v['lifecycle-day'] },
    walrusRenewal: { intervalMs: v['walrus-renew-interval'], aheadEpochs: v['walrus-renew-ahead'], maxFrostPerPass: v['walrus-renew-max-wal'] },
    serverAccessLogIntervalMs: v['server-access-log-interval'],
    publisher: {
      listen: v['publisher-listen'],
      endpointKeys: v['endpoint-keys'],
      network: parseNetwork({ network: v.network, wallet: v.wallet, walletAddress: v['wallet-address'], suiRpc: v['sui-rpc'], subWallets: v['sub-wallets'] }),
      nShards: v['n-shards'],
      nodeUrls: v['storage-nodes'],
      epochLengthMs: v['epoch-length'],
      maxEpochsAhead: v['max-epochs-ahead'],
      maxBodyBytes: v['max-blob-size'],
      jwt: parseJwt(v['jwt-decode-secret'], v['jwt-algorithm'], v['jwt-expiring-sec'], v['jwt-verify-upload']),
    },
    console: { listen: v['console-listen'], origins: v['console-origin'] },
    website: { listen: v['website-listen'], domains: v['website-domain'] },
    notify: {
      targets: parseNotifyTargets(
        Object.fromEntries(TARGET_KINDS.map((kind) => [kind, v[`notify-${kind}`]])) as Record<TargetKind, string[]>,
        v['notify-webhook-auth'],
        v['notify-webhook-ca'],
      ),
      queueLimit: v['notify-queue-limit'],
    },
    ops: { logLevel: v['log-level'], accessLog: v['access-log'], metrics: v.metrics, metricsToken: v['metrics-token'] },
    tls: parseTls(v['tls-cert'], v['tls-key']),
    sseCustomerKeysOverHttp: parseSseCOverHttp(v['allow-sse-c-over-http'], v.listen),
    kms: { masterKeyFile: v['kms-master-key-file'], masterKeyBase64: v['kms-master-key'] },
  };
}
