// Server settings: embedded defaults, overridden by an optional config file (--config, TOML or
// JSON, same keys as the flags), by TUSK_* environment variables, and by flags.

import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parseHttpEngineMode, type HttpEngineMode } from '../http/engine.js';
import type { TlsFiles } from '../http/listener.js';
import { parseLogLevel, type LogLevel } from '../log/logger.js';
import { parseNetwork, type NetworkConfig } from './walrus-network.js';
import { parseNotifyTargets, TARGET_KINDS, type NotifyConfig, type TargetKind } from '../notify/config.js';
import { HostPort, list, parseBool, parseDurability, parseDuration, parseDurationOrZero, parseHostPort, parseJwt, parseOnOff, parseOptionalDuration, parseOptionalListen, parseOrigins, parsePositive, parseRatio, parseShards, parseSize, parseSizeOrZero, parseSseCOverHttp, parseSubWallets, parseTls } from './values.js';

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
  maxBodyBytes: number;
  /** JWT-authorized stores, as the Walrus publisher's --jwt-decode-secret (walrus.md §10.5) */
  jwt?: { secret: string; algorithm?: 'HS256' | 'HS384' | 'HS512'; expiringSec: number; verifyUpload: boolean };
}

export const VERSION = '1.0.0';
export const SERVER_HEADER = `Tusk/${VERSION}`;

export const SERVE_USAGE = `Usage: tusk serve [options]

  --listen HOST:PORT       S3 listener (TUSK_LISTEN, default 127.0.0.1:9000)
  --data-dir DIR           data directory (TUSK_DATA_DIR, default ./data)
  --region REGION          region of the credential scope (TUSK_REGION, default us-east-1)
  --domain D[,D...]        base domains for virtual-host style (TUSK_DOMAIN, default localhost)
  --durability MODE        strict (fdatasync before acknowledging, default) or relaxed (TUSK_DURABILITY)
  --accept-any-region      do not check the credential scope's region (TUSK_ACCEPT_ANY_REGION)
  --max-buckets N          buckets per account (TUSK_MAX_BUCKETS, default 10000)
  --threads N              threads serving S3 on the listener: each serves reads and uploads, the
                           first commits them; with the publisher on, each also serves its reads
                           (TUSK_THREADS, default: the number of cores)
  --http-engine E          auto (default: uWebSockets.js where a binary of it loads for this Node and
                           C library, else node), uws or node (Node's own node:http) (TUSK_HTTP_ENGINE)
  --shutdown-grace D       on SIGTERM, how long in-flight requests may still run before their
                           connections close, e.g. 30s, or 0 (TUSK_SHUTDOWN_GRACE, default 10s)

  Storage:
  --disk-reserve SIZE      writes stop (S3 507, publisher 429) and readiness fails before less than this is free
                           (TUSK_DISK_RESERVE, default 256MiB)
  --segment-size SIZE      segment file size (TUSK_SEGMENT_SIZE, default 1GiB)
  --compaction-interval D  background compaction period, e.g. 60s, or 'off' (TUSK_COMPACTION_INTERVAL, default 60s)
  --compaction-dead R      compact segments at least this share dead, 0-1 (TUSK_COMPACTION_DEAD, default 0.5)
  --compaction-rate SIZE   bytes per second compaction may copy (TUSK_COMPACTION_RATE, default 64MiB)
  --read-cache SIZE        small bodies (up to 64 KiB) kept in memory once read, or 0 (TUSK_READ_CACHE, default 64MiB)
  --lifecycle-interval D   time between lifecycle passes, e.g. 10m (TUSK_LIFECYCLE_INTERVAL, default 1h)
  --lifecycle-day D        length of a lifecycle day; debug only, e.g. 2s (TUSK_LIFECYCLE_DAY, default 1d)
  --server-access-log-interval D
                           server access log records (PutBucketLogging) are delivered as log objects
                           this long after the first of a batch (TUSK_SERVER_ACCESS_LOG_INTERVAL,
                           default 5m)

  Bucket notifications (targets a NotificationConfiguration names as arn:tusk:sqs:REGION:ID:KIND):
  --notify-webhook ID=URL[,...]     POST each event as JSON to URL (TUSK_NOTIFY_WEBHOOK; KIND webhook)
  --notify-webhook-auth ID=VALUE    Authorization header sent to webhook ID (TUSK_NOTIFY_WEBHOOK_AUTH)
  --notify-webhook-ca ID=FILE       PEM CA certificates webhook ID's https URL is checked against
                                    (TUSK_NOTIFY_WEBHOOK_CA)
  --notify-redis ID=URL[,...]       RPUSH each event to the list redis://HOST:PORT/KEY (TUSK_NOTIFY_REDIS)
  --notify-amqp ID=URL[,...]        publish each event (persistent, confirmed) to RabbitMQ:
                                    amqp://USER:PASS@HOST:PORT/VHOST?exchange=X&routing_key=K
                                    [&exchange_type=fanout|direct|topic|headers] (TUSK_NOTIFY_AMQP)
  --notify-nats ID=URL[,...]        publish each event to nats://HOST:PORT/SUBJECT, acknowledged by
                                    JetStream with ?jetstream=true (TUSK_NOTIFY_NATS)
  --notify-mqtt ID=URL[,...]        publish each event with QoS 1 to mqtt://HOST:PORT/TOPIC (TUSK_NOTIFY_MQTT)
  --notify-postgresql ID=URL[,...]  write each event to a table: postgres://USER:PASS@HOST:PORT/DB?table=T
                                    [&format=namespace|access] (TUSK_NOTIFY_POSTGRESQL)
  --notify-queue-limit N            events a target may have pending; past it new events for that
                                    target are dropped, counted and logged (TUSK_NOTIFY_QUEUE_LIMIT,
                                    default 100000)

  Operations:
  --log-level LEVEL        trace, debug, info (default), warn (warnings and errors only), error, fatal
                           or silent (TUSK_LOG_LEVEL); JSON lines, human-readable on a terminal
  --access-log on|off      one info line per request (TUSK_ACCESS_LOG, default on; needs level info)
  --metrics on|off         Prometheus metrics at /tusk/metrics (TUSK_METRICS, default on)
  --metrics-token TOKEN    bearer token /tusk/metrics requires (TUSK_METRICS_TOKEN, default none)

  Publisher (Walrus-compatible blob store and aggregator):
  --publisher-listen H:P   publisher listener (TUSK_PUBLISHER_LISTEN, default 127.0.0.1:31415; 'off' disables)
  --network NET            where blobs go (TUSK_NETWORK): embedded (default; Tusk's own nodes and ledger),
                           testnet, mainnet, local (an in-memory Walrus network for the official SDK;
                           prints its client config), or a Walrus client config file (client_config.yaml)
  --wallet FILE            Walrus networks: the paying Sui wallet, a client.yaml or a sui.keystore
                           (TUSK_WALLET, default ~/.sui/sui_config/client.yaml)
  --wallet-address A       the wallet's address to pay from (TUSK_WALLET_ADDRESS, default its active one)
  --sui-rpc URL            Walrus networks: the Sui full node's gRPC URL (TUSK_SUI_RPC, default the network's)
  --sub-wallets N          Walrus networks: sub-wallets, funded from the wallet, that stores run on in parallel,
                           1-64 (TUSK_SUB_WALLETS, default 8, as the Walrus daemon's --n-clients)
  --endpoint-keys K[,K]    endpoint keys (TUSK_ENDPOINT_KEYS; default: one generated on first start)
  Embedded network:
  --n-shards N             shard count (TUSK_N_SHARDS, default 1000 as on Walrus mainnet; at least 4)
  --storage-nodes U[,U]    storage node URLs (TUSK_STORAGE_NODES; default: 10 nodes inside the process)
  --epoch-length D         epoch length, e.g. 1d, 2h, 90s (TUSK_EPOCH_LENGTH, default 1d)
  --max-blob-size B        largest accepted blob body, e.g. 10MiB (TUSK_MAX_BLOB_SIZE, default 10MiB)
  --jwt-decode-secret S    also accept stores at /v1/blobs with a JWT signed with S (text, or 0x + hex;
                           TUSK_JWT_DECODE_SECRET); --jwt-algorithm HS256|HS384|HS512 (default HS256),
                           --jwt-expiring-sec N (exp − iat must be N), --jwt-verify-upload (check
                           epochs, size and send_object_to against the claims), as the Walrus publisher

  Console (a web console, an S3 client in the browser):
  --console-listen H:P     console listener (TUSK_CONSOLE_LISTEN, default 127.0.0.1:9001; 'off' disables)
  --console-origin URL[,URL]
                           origins the console is opened from, allowed by S3's CORS (TUSK_CONSOLE_ORIGIN;
                           default: the listener's own, e.g. http://127.0.0.1:9001 and http://localhost:9001)

  Static websites (buckets with PutBucketWebsite, served to anonymous GET and HEAD):
  --website-listen H:P     website endpoint listener (TUSK_WEBSITE_LISTEN, default off), e.g. 127.0.0.1:9002
  --website-domain D[,D]   Host <bucket>.D names the bucket (TUSK_WEBSITE_DOMAIN); any other Host is
                           taken whole as the bucket's name, as for a CNAME (www.example.com)

  TLS (every listener; SIGHUP reloads the files):
  --tls-cert FILE          PEM certificate chain (TUSK_TLS_CERT)
  --tls-key FILE           PEM private key (TUSK_TLS_KEY)

  --allow-sse-c-over-http  accept SSE-C customer keys over plain HTTP on a loopback listener
                           (testing; TUSK_ALLOW_SSE_C_OVER_HTTP; S3 refuses them without TLS)
  --kms-master-key-file F  the key that seals SSE-KMS keys, kept out of the data directory
                           (TUSK_KMS_MASTER_KEY_FILE; created at first start; or the key itself in
                           TUSK_KMS_MASTER_KEY, base64; default <data-dir>/kms-master.key: see docs/KMS.md)

  --config FILE            settings file, TOML (or JSON when FILE ends in .json) with the flags' names
                           as keys, e.g. listen = "0.0.0.0:9000" (TUSK_CONFIG); flags > TUSK_* > file
  --version                print the version

  Every setting is also a TUSK_* variable: --data-dir is TUSK_DATA_DIR, and so on.
  TUSK_ACCESS_KEY_ID / TUSK_SECRET_ACCESS_KEY set the root credentials instead of generated ones.
  More accounts: <data-dir>/accounts.json (see README).`;

/** Every `tusk serve` flag with a value; each is also TUSK_<NAME> and a config-file key. */
const SERVE_OPTIONS = {
  listen: { type: 'string' },
  'data-dir': { type: 'string' },
  region: { type: 'string' },
  domain: { type: 'string', multiple: true },
  durability: { type: 'string' },
  'accept-any-region': { type: 'boolean' },
  'max-buckets': { type: 'string' },
  threads: { type: 'string' },
  'http-engine': { type: 'string' },
  'shutdown-grace': { type: 'string' },
  'segment-size': { type: 'string' },
  'compaction-interval': { type: 'string' },
  'compaction-dead': { type: 'string' },
  'compaction-rate': { type: 'string' },
  'lifecycle-interval': { type: 'string' },
  'lifecycle-day': { type: 'string' },
  'server-access-log-interval': { type: 'string' },
  'jwt-decode-secret': { type: 'string' },
  'jwt-algorithm': { type: 'string' },
  'jwt-expiring-sec': { type: 'string' },
  'jwt-verify-upload': { type: 'boolean' },
  'publisher-listen': { type: 'string' },
  'console-listen': { type: 'string' },
  'console-origin': { type: 'string', multiple: true },
  'website-listen': { type: 'string' },
  'website-domain': { type: 'string', multiple: true },
  network: { type: 'string' },
  wallet: { type: 'string' },
  'wallet-address': { type: 'string' },
  'sui-rpc': { type: 'string' },
  'sub-wallets': { type: 'string' },
  'endpoint-keys': { type: 'string', multiple: true },
  'n-shards': { type: 'string' },
  'storage-nodes': { type: 'string', multiple: true },
  'epoch-length': { type: 'string' },
  'max-blob-size': { type: 'string' },
  'log-level': { type: 'string' },
  'access-log': { type: 'string' },
  'disk-reserve': { type: 'string' },
  'read-cache': { type: 'string' },
  metrics: { type: 'string' },
  'metrics-token': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'allow-sse-c-over-http': { type: 'boolean' },
  'kms-master-key-file': { type: 'string' },
  'notify-webhook': { type: 'string', multiple: true },
  'notify-webhook-auth': { type: 'string', multiple: true },
  'notify-webhook-ca': { type: 'string', multiple: true },
  'notify-redis': { type: 'string', multiple: true },
  'notify-amqp': { type: 'string', multiple: true },
  'notify-nats': { type: 'string', multiple: true },
  'notify-mqtt': { type: 'string', multiple: true },
  'notify-postgresql': { type: 'string', multiple: true },
  'notify-queue-limit': { type: 'string' },
} as const;

type SettingName = keyof typeof SERVE_OPTIONS;

export function envName(setting: string): string {
  return `TUSK_${setting.toUpperCase().replace(/-/g, '_')}`;
}

/** A config file's settings as flag values; TOML by default, JSON for *.json. Keys as the flags (or with '_'). */
export function readConfigFile(path: string): Partial<Record<SettingName, string>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`config: cannot read ${path}: ${(e as Error).message}`);
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = path.endsWith('.json') ? (JSON.parse(text) as Record<string, unknown>) : parseToml(text);
  } catch (e) {
    throw new Error(`config: ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'TOML'}: ${(e as Error).message}`);
  }
  const out: Partial<Record<SettingName, string>> = {};
  for (const [rawKey, value] of Object.entries(parsed)) {
    const key = rawKey.replace(/_/g, '-');
    if (!(key in SERVE_OPTIONS)) throw new Error(`config: ${path}: unknown setting '${rawKey}' (see tusk serve --help)`);
    const items = Array.isArray(value) ? value : [value];
    if (!items.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
      throw new Error(`config: ${path}: '${rawKey}' must be a string, number, boolean or a list of them`);
    }
    out[key as SettingName] = items.map(String).join(',');
  }
  return out;
}

/** --threads, by default one per core. */
function parseThreads(value: string | undefined): number {
  return value === undefined ? availableParallelism() : parsePositive(value, 'threads');
}

/** Settings from flags (`argv`, after the subcommand) over environment over the config file over defaults. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  let values: { [K in SettingName]?: string | string[] | boolean } & { config?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { ...SERVE_OPTIONS, config: { type: 'string' } }, strict: true }));
  } catch (e) {
    throw new Error(`${(e as Error).message.split('. ')[0]} (see tusk serve --help)`);
  }
  const configFile = values.config ?? env.TUSK_CONFIG;
  const file = configFile ? readConfigFile(configFile) : {};
  const str = (name: SettingName, fallback: string): string => {
    const flag = values[name];
    if (typeof flag === 'string') return flag;
    if (Array.isArray(flag) && flag.length) return flag.join(',');
    return env[envName(name)] ?? file[name] ?? fallback;
  };
  const optional = (name: SettingName): string | undefined => {
    const v = str(name, '');
    return v === '' ? undefined : v;
  };
  const domains = list(str('domain', ''));
  const acceptAnyRegion = values['accept-any-region'] === true ? 'true' : str('accept-any-region', 'false');
  return {
    listen: parseHostPort(str('listen', '127.0.0.1:9000'), 'listen'),
    dataDir: resolve(str('data-dir', './data')),
    region: str('region', 'us-east-1'),
    domains: domains.length ? domains : ['localhost'],
    durability: parseDurability(str('durability', 'strict')),
    acceptAnyRegion: parseBool(acceptAnyRegion, 'accept-any-region'),
    clockSkewMs: 15 * 60 * 1000,
    rootAccessKeyId: env.TUSK_ACCESS_KEY_ID || undefined,
    rootSecretAccessKey: env.TUSK_SECRET_ACCESS_KEY || undefined,
    serverHeader: SERVER_HEADER,
    maxBucketsPerAccount: parsePositive(str('max-buckets', '10000'), 'max-buckets'),
    threads: parseThreads(optional('threads')),
    httpEngine: parseHttpEngineMode(str('http-engine', 'auto')),
    shutdownGraceMs: parseDurationOrZero(str('shutdown-grace', '10s'), 'shutdown-grace'),
    storage: {
      diskReserve: parseSizeOrZero(str('disk-reserve', '256MiB'), 'disk-reserve'),
      segmentSize: parseSize(str('segment-size', '1GiB'), 'segment size'),
      compactionIntervalMs: parseOptionalDuration(str('compaction-interval', '60s'), 'compaction interval'),
      compactionMinDead: parseRatio(str('compaction-dead', '0.5'), 'compaction-dead'),
      compactionRate: parseSize(str('compaction-rate', '64MiB'), 'compaction rate'),
      readCache: parseSizeOrZero(str('read-cache', '64MiB'), 'read-cache'),
    },
    lifecycle: {
      intervalMs: parseDuration(str('lifecycle-interval', '1h'), 'lifecycle interval'),
      dayMs: parseDuration(str('lifecycle-day', '1d'), 'lifecycle day'),
    },
    serverAccessLogIntervalMs: parseDuration(str('server-access-log-interval', '5m'), 'server-access-log-interval'),
    publisher: {
      listen: parseOptionalListen(str('publisher-listen', '127.0.0.1:31415'), 'publisher-listen'),
      endpointKeys: list(str('endpoint-keys', '')),
      network: parseNetwork({ network: str('network', 'embedded'), wallet: optional('wallet'), walletAddress: optional('wallet-address'), suiRpc: optional('sui-rpc'), subWallets: parseSubWallets(optional('sub-wallets')) }),
      nShards: parseShards(str('n-shards', '1000')),
      nodeUrls: list(str('storage-nodes', '')),
      epochLengthMs: parseDuration(str('epoch-length', '1d'), 'epoch length'),
      maxBodyBytes: parseSize(str('max-blob-size', '10MiB'), 'max blob size'),
      jwt: parseJwt(
        optional('jwt-decode-secret'),
        str('jwt-algorithm', 'HS256'),
        optional('jwt-expiring-sec'),
        values['jwt-verify-upload'] === true || parseBool(str('jwt-verify-upload', 'false'), 'jwt-verify-upload'),
      ),
    },
    console: {
      listen: parseOptionalListen(str('console-listen', '127.0.0.1:9001'), 'console-listen'),
      origins: parseOrigins(list(str('console-origin', ''))),
    },
    website: {
      listen: parseOptionalListen(str('website-listen', 'off'), 'website-listen'),
      domains: list(str('website-domain', '')),
    },
    notify: {
      targets: parseNotifyTargets(
        Object.fromEntries(TARGET_KINDS.map((kind) => [kind, list(str(`notify-${kind}` as const, ''))])) as Record<TargetKind, string[]>,
        list(str('notify-webhook-auth', '')),
        list(str('notify-webhook-ca', '')),
      ),
      queueLimit: parsePositive(str('notify-queue-limit', '100000'), 'notify-queue-limit'),
    },
    ops: {
      logLevel: parseLogLevel(str('log-level', 'info')),
      accessLog: parseOnOff(str('access-log', 'on'), 'access-log'),
      metrics: parseOnOff(str('metrics', 'on'), 'metrics'),
      metricsToken: optional('metrics-token'),
    },
    tls: parseTls(optional('tls-cert'), optional('tls-key')),
    sseCustomerKeysOverHttp: parseSseCOverHttp(
      parseBool(values['allow-sse-c-over-http'] === true ? 'true' : str('allow-sse-c-over-http', 'false'), 'allow-sse-c-over-http'),
      str('listen', '127.0.0.1:9000'),
    ),
    // the key itself only from the environment: never a flag (ps) or the config file
    kms: { masterKeyFile: optional('kms-master-key-file') && resolve(optional('kms-master-key-file')!), masterKeyBase64: env.TUSK_KMS_MASTER_KEY || undefined },
  };
}
