// `tusk serve`'s settings, declared once each (src/config/flag.ts): the S3 server, storage,
// operations, TLS and keys. The publisher's, the console's and the website's are in
// flags-faces.ts, bucket notification targets in flags-notify.ts.

import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseHttpEngineMode } from '../http/engine.js';
import { parseLogLevel } from '../log/logger.js';
import { flag, optionalText, text, type FlagSection } from './flag.js';
import { PUBLISHER, EMBEDDED_NETWORK, WALRUS_RENEWAL, CONSOLE, WEBSITE } from './flags-faces.js';
import { NOTIFY } from './flags-notify.js';
import { list, parseBool, parseDurability, parseDuration, parseDurationOrZero, parseHostPort, parseOnOff, parseOptionalDuration, parsePositive, parseRatio, parseSize, parseSizeOrZero } from './values.js';

export const SERVER = {
  flags: {
    listen: flag({
      arg: 'HOST:PORT', default: '127.0.0.1:9000', parse: (v) => parseHostPort(v, 'listen'),
      help: 'S3 listener',
      doc: 'S3 listener (port 0 picks a free port; a port in use is a start-up error, for every listener)',
    }),
    'data-dir': flag({
      arg: 'DIR', default: './data', parse: (v) => resolve(v),
      help: 'data directory',
      doc: 'segments, index, credentials, ledger, storage nodes; one process at a time (an exclusive lock on `<data-dir>/LOCK`, dropped when the process ends, also after a crash)',
    }),
    region: flag({ arg: 'REGION', default: 'us-east-1', parse: text, help: 'region of the SigV4 credential scope' }),
    domain: flag({
      arg: 'D[,D]', multiple: true, shown: '`localhost`', parse: (v) => {
        const domains = list(v);
        return domains.length ? domains : ['localhost'];
      },
      help: 'base domains for virtual-host style (<bucket>.<domain>); other hosts are path style',
      doc: 'base domains for virtual-host style (`<bucket>.<domain>`); other hosts are path style',
    }),
    durability: flag({
      arg: 'MODE', default: 'strict', parse: parseDurability,
      help: 'strict (fdatasync before acknowledging) or relaxed (no flush: benchmarks, caches)',
      doc: '`strict`: a write is acknowledged only after its body and index entry are on disk (fdatasync, grouped across requests); `relaxed`: no flush (benchmarks, caches), said at start-up',
    }),
    'accept-any-region': flag({ switch: true, default: 'false', shown: 'false', parse: (v) => parseBool(v, 'accept-any-region'), help: "do not check the credential scope's region" }),
    'max-buckets': flag({ arg: 'N', default: '10000', shown: '10000', parse: (v) => parsePositive(v, 'max-buckets'), help: 'buckets per account' }),
    threads: flag({
      arg: 'N', shown: 'cores', parse: (v) => (v === undefined ? availableParallelism() : parsePositive(v, 'threads')),
      help: 'threads serving S3 on the listener: each serves reads and uploads, the first commits them; with the publisher on, each also serves its reads',
      doc: "threads serving the S3 listener. Each listens on the S3 port (SO_REUSEPORT among Tusk's own threads; a port any other socket holds refuses the start) and serves GET, HEAD, OPTIONS, PutObject and UploadPart itself: reads from a read replica of the store, uploads by writing their bodies into space the first thread grants it, which the first thread then commits. Every other request (other writes, admin, health, metrics) and uploads to a bucket with a quota are forwarded to the first thread. Bucket, policy and account changes reach every thread before they are acknowledged. With the publisher on, every thread listens on its port too and serves the aggregator's reads (blobs, ranges, streams, quilt patches, status) from read-only views of the in-process or remote storage nodes, with RS2 decoding threads of its own; stores, the upload relay, the ledger routes, reads by object id and concatenations that name an object id (or are POSTed) go to the first thread. On a Walrus network every thread forwards the publisher's requests, and S3 reads of storage class WALRUS objects, to the first. A thread other than the first that fails (an error nothing caught) closes its listeners and ends alone, logged at error level; the others keep serving and a new thread takes its place (after a pause that grows while new ones keep failing soon after their start). `tusk storage-node --threads N` does the same.",
    }),
    'http-engine': flag({
      arg: 'E', default: 'auto', parse: parseHttpEngineMode,
      help: "auto (uWebSockets.js where a binary of it loads for this Node and C library, else node), uws or node (Node's own node:http)",
      doc: "the HTTP engine of every listener (S3, publisher, console, website, storage nodes): `uws` (uWebSockets.js), `node` (Node's own node:http), or `auto`: uWS where a binary of it loads for the running Node and C library (v20.30 on Node 20; v20.57 on Node 22, 24 and 25 with glibc ≥ 2.38: Debian 13, Ubuntu 24.04), node:http otherwise. The start-up log names the engine and why (`http engine: node (uWS: the v20.57 binary for Node 24 ABI 137 needs glibc 2.38, this system has glibc 2.36)`); `uws` where it cannot load is a start-up error. See \"HTTP engines\" below",
    }),
    'shutdown-grace': flag({
      arg: 'D', default: '10s', parse: (v) => parseDurationOrZero(v, 'shutdown-grace'),
      help: 'on SIGTERM, how long in-flight requests may still run before their connections close, e.g. 30s, or 0',
      doc: 'on `SIGTERM`/`SIGINT`, how long requests in flight may still run (`30s`, `2m`, or `0`); then their connections are closed and the process exits',
    }),
    // the root credentials only from the environment: never a flag (ps) or the config file
    'access-key-id': flag({
      only: 'env', shown: 'generated', parse: optionalText,
      help: 'the root access key id instead of a generated one',
      doc: "root credentials instead of the generated ones (with `TUSK_SECRET_ACCESS_KEY`; then `root-credentials.json` keeps only the root account's ids: no secret is generated; a later start without them generates one, for the same account)",
    }),
    'secret-access-key': flag({ only: 'env', shown: 'generated', parse: optionalText, help: "the root account's secret access key (with TUSK_ACCESS_KEY_ID)" }),
  },
} satisfies FlagSection;

export const STORAGE = {
  title: 'Storage:',
  flags: {
    'disk-reserve': flag({
      arg: 'SIZE', default: '256MiB', parse: (v) => parseSizeOrZero(v, 'disk-reserve'),
      help: 'writes stop (S3 507, publisher 429) and readiness fails before less than this is free, or 0',
      doc: "writes stop with `507 XTuskStorageFull` (publisher: `429 RESOURCE_EXHAUSTED`, reason `STORAGE_FULL`, checked before the ledger is charged), and readiness fails, before less than this is free on the data directory's disk; reads, deletes and compaction go on",
    }),
    'segment-size': flag({ arg: 'SIZE', default: '1GiB', parse: (v) => parseSize(v, 'segment size'), help: 'segment file size (a larger body gets a segment of its own)' }),
    'compaction-interval': flag({
      arg: 'D', default: '60s', parse: (v) => parseOptionalDuration(v, 'compaction interval'),
      help: 'how often background compaction looks for segments to rewrite, e.g. 60s; off disables it',
      doc: 'how often background compaction looks for segments to rewrite; `off` disables it',
    }),
    'compaction-dead': flag({
      arg: 'R', default: '0.5', parse: (v) => parseRatio(v, 'compaction-dead'),
      help: 'compact segments at least this share dead, 0-1',
      doc: 'rewrite segments at least this share of whose bytes is dead (deleted, overwritten, aborted); the active segment too, sealed for it once it holds at least 1 MiB of dead bytes',
    }),
    'compaction-rate': flag({ arg: 'SIZE', default: '64MiB', parse: (v) => parseSize(v, 'compaction rate'), help: 'bytes per second compaction may copy' }),
    'read-cache': flag({
      arg: 'SIZE', default: '64MiB', parse: (v) => parseSizeOrZero(v, 'read-cache'),
      help: 'small bodies (up to 64 KiB) kept in memory once read, or 0',
      doc: "small bodies (up to 64 KiB) kept in memory once read and checked, so that a hot small GET costs no system call; `0` turns it off. A body's place on disk is written once, so a cached body is never stale",
    }),
    'lifecycle-interval': flag({
      arg: 'D', default: '1h', parse: (v) => parseDuration(v, 'lifecycle interval'),
      help: 'time between lifecycle passes, e.g. 10m',
      doc: 'time between two passes of the lifecycle worker over the buckets with rules',
    }),
    'lifecycle-day': flag({
      arg: 'D', default: '1d', parse: (v) => parseDuration(v, 'lifecycle day'),
      help: 'length of a lifecycle day; debug only, e.g. 2s',
      doc: 'length of a lifecycle "day" (`Days`, `NoncurrentDays`, `DaysAfterInitiation`, `x-amz-expiration`); debug only: e.g. `--lifecycle-day 2s --lifecycle-interval 500ms` makes rules act in seconds',
    }),
    'server-access-log-interval': flag({
      arg: 'D', default: '5m', parse: (v) => parseDuration(v, 'server-access-log-interval'),
      help: 'server access log records (PutBucketLogging) are delivered as log objects this long after the first of a batch',
      doc: 'server access logs (PutBucketLogging): a batch of records becomes log objects this long after its first record (see *Server access logs*)',
    }),
  },
} satisfies FlagSection;

export const OPERATIONS = {
  title: 'Operations:',
  flags: {
    'log-level': flag({
      arg: 'LEVEL', default: 'info', parse: parseLogLevel,
      help: 'trace, debug, info, warn (warnings and errors only), error, fatal or silent; JSON lines, human-readable on a terminal',
      doc: '`trace` … `fatal`, `silent`; each line has its level (see Logs): `warn` shows warnings and errors only',
    }),
    'access-log': flag({
      arg: 'on|off', default: 'on', parse: (v) => parseOnOff(v, 'access-log'),
      help: 'one info line per request (needs level info)',
      doc: 'one `info` line per request (so only at `--log-level info` or below); `off` drops them and keeps every other line',
    }),
    metrics: flag({ arg: 'on|off', default: 'on', parse: (v) => parseOnOff(v, 'metrics'), help: 'Prometheus metrics at /tusk/metrics', doc: 'Prometheus metrics at `/tusk/metrics`' }),
    'metrics-token': flag({ arg: 'TOKEN', parse: optionalText, help: 'bearer token /tusk/metrics requires', doc: 'bearer token `/tusk/metrics` requires' }),
  },
} satisfies FlagSection;

export const TLS = {
  title: 'TLS (every listener; SIGHUP reloads the files):',
  flags: {
    'tls-cert': flag({
      arg: 'FILE', parse: optionalText,
      help: 'PEM certificate chain (with --tls-key)',
      doc: 'PEM certificate chain (with `--tls-key`): every listener (S3, publisher, console, website) speaks HTTPS (see Operations)',
    }),
    'tls-key': flag({ arg: 'FILE', parse: optionalText, help: 'PEM private key (with --tls-cert)', doc: 'PEM private key (with `--tls-cert`)' }),
  },
} satisfies FlagSection;

export const KEYS = {
  flags: {
    'allow-sse-c-over-http': flag({
      switch: true, default: 'false', shown: 'false', parse: (v) => parseBool(v, 'allow-sse-c-over-http'),
      help: 'accept SSE-C customer keys over plain HTTP on a loopback listener (testing; S3 refuses them without TLS)',
      doc: 'accept SSE-C customer keys over plain HTTP, on a loopback listener only (testing)',
    }),
    'kms-master-key-file': flag({
      arg: 'F', shown: '`<data-dir>/kms-master.key`', parse: (v) => v && resolve(v),
      help: 'the key that seals SSE-KMS keys, kept out of the data directory (created at first start; see docs/KMS.md)',
      doc: 'the key sealing SSE-KMS keys, kept out of the data directory (created at first start); or the key itself in `TUSK_KMS_MASTER_KEY` (docs/KMS.md)',
    }),
    // the key itself only from the environment: never a flag (ps) or the config file
    'kms-master-key': flag({ only: 'env', parse: optionalText, help: 'the SSE-KMS master key itself, base64, instead of a file' }),
  },
} satisfies FlagSection;

export const CONFIG_FILE = {
  flags: {
    config: flag({
      arg: 'FILE', only: 'no-file', parse: optionalText,
      help: 'settings file, TOML (or JSON when FILE ends in .json) with the flags\' names as keys, e.g. listen = "0.0.0.0:9000"; flags > TUSK_* > file',
      doc: "settings file, TOML (or JSON when FILE ends in `.json`) with the flags' names as keys (or with `_`), e.g. `listen = \"0.0.0.0:9000\"` ([docs/tusk.toml](docs/tusk.toml)); flags > `TUSK_*` > file",
    }),
  },
} satisfies FlagSection;

/** --help's and the README's order. */
export const SERVE_SECTIONS = [SERVER, STORAGE, NOTIFY, OPERATIONS, PUBLISHER, EMBEDDED_NETWORK, WALRUS_RENEWAL, CONSOLE, WEBSITE, TLS, KEYS, CONFIG_FILE] as const;

/** Every `tusk serve` setting; also parsed in this order. */
export const SERVE_FLAGS = {
  ...CONFIG_FILE.flags,
  ...SERVER.flags,
  ...STORAGE.flags,
  ...PUBLISHER.flags,
  ...EMBEDDED_NETWORK.flags,
  ...WALRUS_RENEWAL.flags,
  ...CONSOLE.flags,
  ...WEBSITE.flags,
  ...NOTIFY.flags,
  ...OPERATIONS.flags,
  ...TLS.flags,
  ...KEYS.flags,
};
