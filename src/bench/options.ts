import { processCpuMs } from './server-cpu.js';
import { parseByteSize, parseSizeDistribution, type SizeDistribution } from './sizes.js';
import type { PayloadMode } from './s3-ops.js';

/** Everything one `tusk bench` run needs; produced by parseBenchArgs or built directly (bench/side-by-side.mjs). */
export const OPERATIONS = ['put', 'get', 'head', 'delete', 'list', 'multipart'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface BenchOptions {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  addressing: 'path' | 'virtual';
  /** Existing bucket to use (under a fresh prefix); when absent or missing, a bucket is created and removed. */
  bucket?: string;
  /** Operation weights; a single operation is {op: 1}. */
  mix: Partial<Record<Operation, number>>;
  sizes: SizeDistribution;
  concurrency: number;
  /** Measured time in ms (ignored when count is set). */
  durationMs: number;
  /** Number of measured operations (after warm-up). */
  count?: number;
  warmupMs: number;
  /** Open loop: operations per second, latency measured from each operation's scheduled time. */
  rate?: number;
  /** Objects written before the measured phase for get/head/delete/list/mixed. */
  objects?: number;
  partSize: number;
  listMaxKeys: number;
  seed: number;
  payload: PayloadMode;
  timeoutMs: number;
  /** HTTP implementation: node:http (default) or the leaner node:net client (raw-client.ts, http:// only). */
  client?: 'http' | 'raw';
  keep: boolean;
  label?: string;
  /** server-side encryption asked for on PUTs (x-amz-server-side-encryption) */
  sse?: 'AES256';
  /** storage class asked for on PUTs (x-amz-storage-class), e.g. WALRUS (README "S3 objects on Walrus") */
  storageClass?: string;
  /** For a server on this machine: reads its CPU time (ms, all threads); the result then reports it for the measured phase. */
  serverCpuMs?: () => number;
}

export const DEFAULTS = {
  region: 'us-east-1',
  addressing: 'path',
  concurrency: 16,
  durationMs: 10_000,
  warmupMs: 2_000,
  partSize: 8 * 1024 * 1024,
  listMaxKeys: 1000,
  seed: 1,
  payload: 'unsigned',
  timeoutMs: 60_000,
} as const;

export const RUN_USAGE = `usage: tusk bench [run] --endpoint URL [options]

  --endpoint URL          S3 endpoint, e.g. http://127.0.0.1:9000
  --access-key AK         (env AWS_ACCESS_KEY_ID)
  --secret-key SK         (env AWS_SECRET_ACCESS_KEY)
  --region R              signing region (default us-east-1)
  --addressing path|virtual   bucket in the path or in the Host (default path)
  --bucket NAME           use this bucket under a fresh prefix (created and removed if missing);
                          default: create tusk-bench-<id> and remove it afterwards
  --op OP                 put|get|head|delete|list|multipart|mixed (default put)
  --mix get=60,put=20,... weights for --op mixed (default get=50,put=20,head=15,list=5,delete=10)
  --size S                4KiB | 1KiB..1MiB (log2-random) | 4KiB:70,1MiB:25,64MiB:5 (weighted)
  --concurrency N         requests in flight (default 16)
  --duration T            measured time, e.g. 10s, 500ms, 1m (default 10s)
  --count N               measured operations instead of a duration
  --warmup T              excluded from results (default 2s)
  --rate R                open loop: R ops/s, latency from the scheduled start
  --objects N             objects prepared for get/head/delete/list/mixed
  --part-size S           multipart part size (default 8MiB)
  --list-max-keys N       keys per LIST page (default 1000)
  --payload unsigned|sha256   x-amz-content-sha256 of PUT bodies (default unsigned)
  --sse AES256            ask for SSE-S3 on every PUT (x-amz-server-side-encryption), to measure encryption
  --storage-class C       ask for storage class C on every PUT (x-amz-storage-class), e.g. WALRUS
  --server-pid PID        a server on this machine: report its CPU time per operation (Linux /proc)
  --seed N                content and random-choice seed (default 1)
  --timeout T             per request (default 60s)
  --client http|raw       http: node:http (default); raw: a leaner HTTP/1.1 client over node:net that
                          costs the generator less CPU per request (http:// endpoints only)
  --keep                  do not delete what the run wrote
  --label TEXT            name for this run in reports
  --json FILE             also write the result as JSON
  --quiet                 no progress lines
`;

export interface CliRun {
  options: BenchOptions;
  jsonPath?: string;
  quiet: boolean;
}

/** "10s", "500ms", "2m", "1.5s"; a bare number is seconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) throw new Error(`invalid duration '${text}' (examples: 500ms, 10s, 2m)`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * factor);
}

export function parseMix(text: string): Partial<Record<Operation, number>> {
  const mix: Partial<Record<Operation, number>> = {};
  for (const item of text.split(',').filter(Boolean)) {
    const [name, weight] = item.split('=');
    const w = Number(weight);
    if (!isOperation(name!) || !Number.isFinite(w) || w < 0) {
      throw new Error(`invalid mix item '${item}': expected OP=WEIGHT with OP one of ${OPERATIONS.join(', ')}`);
    }
    mix[name] = w;
  }
  if (!Object.values(mix).some((w) => w > 0)) throw new Error('--mix needs at least one positive weight');
  return mix;
}

function parseSse(value: string | undefined): 'AES256' | undefined {
  if (value === undefined || value === 'AES256') return value;
  throw new Error(`--sse is AES256 (SSE-S3), got '${value}'`);
}

function isOperation(name: string): name is Operation {
  return (OPERATIONS as readonly string[]).includes(name);
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${flag} needs a positive integer, got '${text}'`);
  return n;
}

const VALUE_FLAGS = new Set([
  'endpoint', 'access-key', 'secret-key', 'region', 'addressing', 'bucket', 'op', 'mix', 'size', 'concurrency',
  'duration', 'count', 'warmup', 'rate', 'objects', 'part-size', 'list-max-keys', 'payload', 'seed', 'timeout',
  'label', 'json', 'client', 'sse', 'storage-class', 'server-pid',
]);
const BOOLEAN_FLAGS = new Set(['keep', 'quiet']);

export function parseBenchArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliRun {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (BOOLEAN_FLAGS.has(name) && eq < 0) {
      flags.add(name);
    } else if (VALUE_FLAGS.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      values.set(name, value);
    } else {
      throw new Error(`unknown option --${name}`);
    }
  }
  const endpoint = values.get('endpoint');
  if (!endpoint) throw new Error('--endpoint is required');
  const accessKeyId = values.get('access-key') ?? env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = values.get('secret-key') ?? env['AWS_SECRET_ACCESS_KEY'];
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('credentials needed: --access-key/--secret-key or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY');
  }
  const addressing = values.get('addressing') ?? DEFAULTS.addressing;
  if (addressing !== 'path' && addressing !== 'virtual') throw new Error('--addressing is path or virtual');
  const payload = values.get('payload') ?? DEFAULTS.payload;
  if (payload !== 'unsigned' && payload !== 'sha256') throw new Error('--payload is unsigned or sha256');
  const client = values.get('client') ?? 'http';
  if (client !== 'http' && client !== 'raw') throw new Error('--client is http or raw');
  const op = values.get('op') ?? 'put';
  let mix: Partial<Record<Operation, number>>;
  if (op === 'mixed') {
    mix = parseMix(values.get('mix') ?? 'get=50,put=20,head=15,list=5,delete=10');
  } else if (isOperation(op)) {
    if (values.has('mix')) throw new Error('--mix goes with --op mixed');
    mix = { [op]: 1 };
  } else {
    throw new Error(`unknown --op '${op}' (one of ${OPERATIONS.join(', ')}, mixed)`);
  }
  const rate = values.get('rate');
  const count = values.get('count');
  const objects = values.get('objects');
  const options: BenchOptions = {
    endpoint,
    accessKeyId,
    secretAccessKey,
    region: values.get('region') ?? DEFAULTS.region,
    addressing,
    bucket: values.get('bucket'),
    mix,
    sizes: parseSizeDistribution(values.get('size') ?? '4KiB'),
    concurrency: positiveInt('--concurrency', values.get('concurrency') ?? String(DEFAULTS.concurrency)),
    durationMs: values.has('duration') ? parseDuration(values.get('duration')!) : DEFAULTS.durationMs,
    count: count === undefined ? undefined : positiveInt('--count', count),
    warmupMs: values.has('warmup') ? parseDuration(values.get('warmup')!) : DEFAULTS.warmupMs,
    rate: rate === undefined ? undefined : Number(rate),
    objects: objects === undefined ? undefined : positiveInt('--objects', objects),
    partSize: values.has('part-size') ? parseByteSize(values.get('part-size')!) : DEFAULTS.partSize,
    listMaxKeys: positiveInt('--list-max-keys', values.get('list-max-keys') ?? String(DEFAULTS.listMaxKeys)),
    seed: positiveInt('--seed', values.get('seed') ?? String(DEFAULTS.seed)),
    payload,
    timeoutMs: values.has('timeout') ? parseDuration(values.get('timeout')!) : DEFAULTS.timeoutMs,
    client,
    keep: flags.has('keep'),
    label: values.get('label'),
    sse: parseSse(values.get('sse')),
    storageClass: values.get('storage-class'),
  };
  const serverPid = values.get('server-pid');
  if (serverPid !== undefined) {
    const pid = positiveInt('--server-pid', serverPid);
    processCpuMs(pid); // fails now, not mid-run, when there is no such process
    options.serverCpuMs = () => processCpuMs(pid);
  }
  if (options.rate !== undefined && !(options.rate > 0)) throw new Error('--rate needs a positive number');
  if (options.partSize < 1) throw new Error('--part-size must be at least 1 byte');
  return { options, jsonPath: values.get('json'), quiet: flags.has('quiet') };
}
