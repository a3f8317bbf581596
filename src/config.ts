// Server settings: embedded defaults, overridden by TUSK_* environment variables, overridden by flags.

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';

export type Durability = 'strict' | 'relaxed';

export interface HostPort {
  host: string;
  port: number;
}

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
  lifecycle: LifecycleConfig;
}

export interface LifecycleConfig {
  /** time between two passes of the lifecycle worker */
  intervalMs: number;
  /** length of a lifecycle "day" (shorter only for testing rules) */
  dayMs: number;
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
}

export interface PublisherConfig {
  /** publisher + aggregator listener; undefined = no publisher */
  listen?: HostPort;
  /** endpoint keys from configuration; a default one is generated in the data directory when empty */
  endpointKeys: string[];
  nShards: number;
  /** remote storage nodes; empty = 10 nodes inside the process */
  nodeUrls: string[];
  epochLengthMs: number;
  maxBodyBytes: number;
  /** JWT authentication of stores at /v1/blobs (walrus.md §10.5), when a secret is given */
  jwt?: { secret: string; algorithm?: 'HS256' | 'HS384' | 'HS512'; expiringSec: number; verifyUpload: boolean };
}

export const VERSION = '1.0.0';
export const SERVER_HEADER = `Tusk/${VERSION}`;

export function parseHostPort(value: string, what: string): HostPort {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`${what}: expected host:port, got '${value}'`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

function parseDurability(value: string): Durability {
  if (value !== 'strict' && value !== 'relaxed') throw new Error(`durability: expected strict or relaxed, got '${value}'`);
  return value;
}

function parseBool(value: string, what: string): boolean {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new Error(`${what}: expected true or false, got '${value}'`);
}

function list(value: string | string[] | undefined): string[] {
  const items = Array.isArray(value) ? value : value ? [value] : [];
  return items.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

export const SERVE_USAGE = `Usage: tusk serve [options]

  --listen HOST:PORT       S3 listener (TUSK_LISTEN, default 127.0.0.1:9000)
  --data-dir DIR           data directory (TUSK_DATA_DIR, default ./data)
  --region REGION          region of the credential scope (TUSK_REGION, default us-east-1)
  --domain D[,D...]        base domains for virtual-host style (TUSK_DOMAIN, default localhost)
  --durability MODE        strict (fdatasync before acknowledging, default) or relaxed (TUSK_DURABILITY)
  --accept-any-region      do not check the credential scope's region (TUSK_ACCEPT_ANY_REGION)
  --max-buckets N          buckets per account (TUSK_MAX_BUCKETS, default 10000)
  --disk-reserve SIZE      stop writes (507) before less than this is free (TUSK_DISK_RESERVE, default 256MiB)
  --segment-size SIZE      segment file size (TUSK_SEGMENT_SIZE, default 1GiB)
  --compaction-interval D  background compaction period, e.g. 60s, or 'off' (TUSK_COMPACTION_INTERVAL, default 60s)
  --compaction-dead R      compact segments at least this share dead, 0-1 (TUSK_COMPACTION_DEAD, default 0.5)
  --compaction-rate SIZE   bytes per second compaction may copy (TUSK_COMPACTION_RATE, default 64MiB)
  --lifecycle-interval D   time between lifecycle passes, e.g. 10m (TUSK_LIFECYCLE_INTERVAL, default 1h)
  --lifecycle-day D        length of a lifecycle day; debug only, e.g. 2s (TUSK_LIFECYCLE_DAY, default 1d)

  Publisher (Walrus-compatible blob store and aggregator):
  --publisher-listen H:P   publisher listener (TUSK_PUBLISHER_LISTEN, default 127.0.0.1:31415; 'off' disables)
  --endpoint-keys K[,K]    endpoint keys (TUSK_ENDPOINT_KEYS; default: one generated on first start)
  --n-shards N             shard count (TUSK_N_SHARDS, default 1000 as on Walrus mainnet; at least 4)
  --storage-nodes U[,U]    storage node URLs (TUSK_STORAGE_NODES; default: 10 nodes inside the process)
  --epoch-length D         epoch length, e.g. 1d, 2h, 90s (TUSK_EPOCH_LENGTH, default 1d)
  --max-blob-size B        largest accepted blob body, e.g. 10MiB (TUSK_MAX_BLOB_SIZE, default 10MiB)
  --jwt-decode-secret S    also accept stores at /v1/blobs with a JWT signed with S (text, or 0x + hex;
                           TUSK_JWT_DECODE_SECRET); --jwt-algorithm HS256|HS384|HS512 (default HS256),
                           --jwt-expiring-sec N (exp − iat must be N), --jwt-verify-upload (check
                           epochs, size and send_object_to against the claims), as the Walrus publisher

  TUSK_ACCESS_KEY_ID / TUSK_SECRET_ACCESS_KEY set the root credentials instead of generated ones.
  More accounts: <data-dir>/accounts.json (see README).`;

/** Settings from flags (`argv`, after the subcommand) over environment over defaults. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const { values } = parseArgs({
    args: argv,
    options: {
      listen: { type: 'string' },
      'data-dir': { type: 'string' },
      region: { type: 'string' },
      domain: { type: 'string', multiple: true },
      durability: { type: 'string' },
      'accept-any-region': { type: 'boolean' },
      'max-buckets': { type: 'string' },
      'disk-reserve': { type: 'string' },
      'segment-size': { type: 'string' },
      'compaction-interval': { type: 'string' },
      'compaction-dead': { type: 'string' },
      'compaction-rate': { type: 'string' },
      'publisher-listen': { type: 'string' },
      'endpoint-keys': { type: 'string', multiple: true },
      'n-shards': { type: 'string' },
      'storage-nodes': { type: 'string', multiple: true },
      'epoch-length': { type: 'string' },
      'max-blob-size': { type: 'string' },
      'jwt-decode-secret': { type: 'string' },
      'jwt-algorithm': { type: 'string' },
      'jwt-expiring-sec': { type: 'string' },
      'jwt-verify-upload': { type: 'boolean' },
      'lifecycle-interval': { type: 'string' },
      'lifecycle-day': { type: 'string' },
    },
    strict: true,
  });
  const domains = list(values.domain ?? env.TUSK_DOMAIN);
  return {
    listen: parseHostPort(values.listen ?? env.TUSK_LISTEN ?? '127.0.0.1:9000', 'listen'),
    dataDir: resolve(values['data-dir'] ?? env.TUSK_DATA_DIR ?? './data'),
    region: values.region ?? env.TUSK_REGION ?? 'us-east-1',
    domains: domains.length ? domains : ['localhost'],
    durability: parseDurability(values.durability ?? env.TUSK_DURABILITY ?? 'strict'),
    acceptAnyRegion:
      values['accept-any-region'] ??
      (env.TUSK_ACCEPT_ANY_REGION ? parseBool(env.TUSK_ACCEPT_ANY_REGION, 'TUSK_ACCEPT_ANY_REGION') : false),
    clockSkewMs: 15 * 60 * 1000,
    rootAccessKeyId: env.TUSK_ACCESS_KEY_ID || undefined,
    rootSecretAccessKey: env.TUSK_SECRET_ACCESS_KEY || undefined,
    serverHeader: SERVER_HEADER,
    maxBucketsPerAccount: parsePositive(values['max-buckets'] ?? env.TUSK_MAX_BUCKETS ?? '10000', 'max-buckets'),
    storage: {
      diskReserve: parseSize(values['disk-reserve'] ?? env.TUSK_DISK_RESERVE ?? '256MiB', 'disk reserve'),
      segmentSize: parseSize(values['segment-size'] ?? env.TUSK_SEGMENT_SIZE ?? '1GiB', 'segment size'),
      compactionIntervalMs: parseOptionalDuration(values['compaction-interval'] ?? env.TUSK_COMPACTION_INTERVAL ?? '60s', 'compaction interval'),
      compactionMinDead: parseRatio(values['compaction-dead'] ?? env.TUSK_COMPACTION_DEAD ?? '0.5', 'compaction-dead'),
      compactionRate: parseSize(values['compaction-rate'] ?? env.TUSK_COMPACTION_RATE ?? '64MiB', 'compaction rate'),
    },
    publisher: {
      listen: parsePublisherListen(values['publisher-listen'] ?? env.TUSK_PUBLISHER_LISTEN ?? '127.0.0.1:31415'),
      endpointKeys: list(values['endpoint-keys'] ?? env.TUSK_ENDPOINT_KEYS),
      nShards: parseShards(values['n-shards'] ?? env.TUSK_N_SHARDS ?? '1000'),
      nodeUrls: list(values['storage-nodes'] ?? env.TUSK_STORAGE_NODES),
      epochLengthMs: parseDuration(values['epoch-length'] ?? env.TUSK_EPOCH_LENGTH ?? '1d', 'epoch length'),
      maxBodyBytes: parseSize(values['max-blob-size'] ?? env.TUSK_MAX_BLOB_SIZE ?? '10MiB', 'max blob size'),
      jwt: parseJwt(values, env),
    },
    lifecycle: {
      intervalMs: parseDuration(values['lifecycle-interval'] ?? env.TUSK_LIFECYCLE_INTERVAL ?? '1h', 'lifecycle interval'),
      dayMs: parseDuration(values['lifecycle-day'] ?? env.TUSK_LIFECYCLE_DAY ?? '1d', 'lifecycle day'),
    },
  };
}

function parseJwt(
  values: { 'jwt-decode-secret'?: string; 'jwt-algorithm'?: string; 'jwt-expiring-sec'?: string; 'jwt-verify-upload'?: boolean },
  env: NodeJS.ProcessEnv,
): PublisherConfig['jwt'] {
  const secret = values['jwt-decode-secret'] ?? env.TUSK_JWT_DECODE_SECRET;
  if (!secret) return undefined;
  const algorithm = values['jwt-algorithm'] ?? 'HS256';
  if (algorithm !== 'HS256' && algorithm !== 'HS384' && algorithm !== 'HS512') throw new Error(`jwt-algorithm: expected HS256, HS384 or HS512, got '${algorithm}'`);
  const expiring = values['jwt-expiring-sec'];
  return { secret, algorithm, expiringSec: expiring === undefined ? 0 : parsePositive(expiring, 'jwt-expiring-sec'), verifyUpload: values['jwt-verify-upload'] ?? false };
}

function parsePublisherListen(value: string): HostPort | undefined {
  return value === 'off' ? undefined : parseHostPort(value, 'publisher-listen');
}

function parseOptionalDuration(value: string, what: string): number | undefined {
  return value === 'off' ? undefined : parseDuration(value, what);
}

function parseRatio(value: string, what: string): number {
  const r = /^(0(\.\d+)?|1(\.0+)?)$/.test(value.trim()) ? Number(value) : NaN;
  if (!(r >= 0 && r <= 1)) throw new Error(`${what}: expected a number from 0 to 1, got '${value}'`);
  return r;
}

function parsePositive(value: string, what: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && Number.isSafeInteger(n))) throw new Error(`${what}: expected a positive integer, got '${value}'`);
  return n;
}

function parseShards(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  // n ≤ 3 has no recovery symbols (walrus.md §2); shard indices are u16
  if (!(n >= 4 && n <= 65535)) throw new Error(`n-shards: expected an integer from 4 to 65535, got '${value}'`);
  return n;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(value: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim());
  const ms = m ? Number(m[1]) * DURATION_UNITS[m[2]!]! : NaN;
  if (!(ms >= 1)) throw new Error(`${what}: expected a duration like 90s, 2h or 1d, got '${value}'`);
  return Math.round(ms);
}

const SIZE_UNITS: Record<string, number> = { '': 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, KB: 1e3, MB: 1e6, GB: 1e9 };

export function parseSize(value: string, what: string): number {
  const m = /^(\d+)\s*(B|KiB|MiB|GiB|KB|MB|GB)?$/.exec(value.trim());
  const bytes = m ? Number(m[1]) * SIZE_UNITS[m[2] ?? '']! : NaN;
  if (!(bytes >= 1) || !Number.isSafeInteger(bytes)) throw new Error(`${what}: expected a size like 10MiB, got '${value}'`);
  return bytes;
}
