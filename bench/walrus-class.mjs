#!/usr/bin/env node
// Issue 34 acceptance: PUT and GET of 4 KiB and 64 MiB objects in storage class WALRUS next to
// STANDARD, in one run of one `tusk serve` with the publisher on the embedded network and its
// default Walrus settings (1 000 shards, 10 MiB blobs, small objects batched into quilts). Rounds
// rotate which class goes first. Verifies before it times: a 4 KiB and a 64 MiB WALRUS object read
// back byte-identical and HEAD answers x-amz-storage-class WALRUS and their blob id(s); every timed
// GET body is verified by the generator too. Reports obj/s and MiB/s per round and their means, as
// a table (bench/results/walrus-class.md) and as one JSON line per run (bench/results/walrus-class.jsonl).
//
// 4 KiB: closed loop for --duration after --warmup, --concurrency in flight (WALRUS PUTs wait for
// their quilt: its 100 ms window and one certification, so concurrency is what fills a quilt).
// 64 MiB: --big-count operations per round, one at a time, no warm-up (a WALRUS PUT of 64 MiB takes
// seconds: a warm-up would swallow the round). The generator's objects of one size and seed share
// every byte but a 32-byte stamp at their end, so a second 64 MiB object would repeat six of its
// seven 10 MiB blobs, which the publisher finds certified and does not store again: each 64 MiB PUT
// is its own generator run with a seed of its own, so that every blob it stores is new.
//
//   npm run build && node bench/walrus-class.mjs [--duration 4s] [--rounds 2] [--concurrency 16] [--big-count 2]

import { randomBytes } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { benchLib, milliseconds, overheadArgs, repo, roundOrder, startTusk } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS } = benchLib;
const args = overheadArgs({
  duration: { type: 'string', default: '4s' },
  rounds: { type: 'string', default: '2' },
  concurrency: { type: 'string', default: '16' },
  'big-count': { type: 'string', default: '2' },
  out: { type: 'string', default: join(repo, 'bench', 'results', 'walrus-class.md') },
});

const MiB = 1024 * 1024;
const CLASSES = { STANDARD: 'STANDARD', WALRUS: 'WALRUS' };
const SCENARIOS = [
  { size: '4KiB', bytes: 4096, timing: { durationMs: milliseconds(args.duration), warmupMs: milliseconds(args.warmup), concurrency: Number(args.concurrency), objects: 64 } },
  { size: '64MiB', bytes: 64 * MiB, timing: { count: 1, durationMs: 0, warmupMs: 0, concurrency: 1, objects: 1 }, runs: Number(args['big-count']) },
];

const loadBefore = loadavg();
const startedAt = Date.now();
const accessKeyId = 'TUSKWALRUSBENCH00001';
const secretAccessKey = 'walrus-bench-secret-walrus-bench-secret';
// the publisher on (WALRUS needs it), on the embedded network with its defaults
const tusk = await startTusk({ accessKeyId, secretAccessKey, label: 'tusk-walrus-bench', args: ['--publisher-listen', '127.0.0.1:0'] });
const { endpoint } = tusk;
try {
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  const bucket = 'walrus-class-bench';
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const verified = [];
  for (const { bytes } of SCENARIOS) verified.push(await verifyWalrusObject(s3, bucket, bytes));

  let seed = 0;
  const runOnce = (op, scenario, storageClass, label) => runBench({
    ...DEFAULTS, endpoint, accessKeyId, secretAccessKey, region: 'us-east-1', addressing: 'path', bucket,
    mix: { [op]: 1 }, sizes: parseSizeDistribution(scenario.size), ...scenario.timing, seed: ++seed,
    storageClass, keep: false, label, client: 'raw', quiet: true, timeoutMs: 300_000,
  });
  /** One round of `op`: one generator run, or (64 MiB) `scenario.runs` of them added up. */
  const run = async (op, scenario, storageClass, label) => {
    const results = [];
    for (let i = 0; i < (scenario.runs ?? 1); i++) {
      const result = await runOnce(op, scenario, storageClass, label);
      if (result.total.errorCount) throw new Error(`${label}: ${JSON.stringify(result.total.errors)}`);
      results.push(result);
    }
    const ok = results.reduce((n, r) => n + r.total.ok, 0);
    const seconds = results.reduce((n, r) => n + r.measuredSeconds, 0);
    const bytes = results.reduce((n, r) => n + r.total.bytes, 0);
    // several runs of one operation each (64 MiB): the median of their latencies, and the longest
    const latencies = results.map((r) => r.total.latencyMs);
    return { ok, seconds, objPerSec: ok / seconds, mibPerSec: bytes / MiB / seconds, p50Ms: median(latencies.map((l) => l.p50)), p99Ms: Math.max(...latencies.map((l) => l.p99)) };
  };
  const measurements = [];
  for (const scenario of SCENARIOS) {
    for (const op of ['put', 'get']) {
      for (let round = 0; round < Number(args.rounds); round++) {
        for (const [label, storageClass] of roundOrder(CLASSES, round)) {
          const m = await run(op, scenario, storageClass, `${label} ${op} ${scenario.size}`);
          measurements.push({ op, size: scenario.size, storageClass, round, ...m });
          const { ok, objPerSec, mibPerSec } = m;
          console.error(`${scenario.size} ${op} ${label} round ${round + 1}: ${fixed(objPerSec, 2)} obj/s, ${fixed(mibPerSec, 1)} MiB/s (${ok} ops)`);
        }
      }
    }
  }
  const loadAfter = loadavg();
  const line = {
    date: new Date().toISOString(), commit: gitCommit(), machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`, node: process.version,
    network: 'embedded network (defaults: 1000 shards, --max-blob-size 10MiB, quilts for objects up to 1 MiB)', threads: Number(process.env.TUSK_BENCH_THREADS ?? 1),
    options: { duration: args.duration, warmup: args.warmup, rounds: Number(args.rounds), concurrency: Number(args.concurrency), bigCount: Number(args['big-count']) },
    verified, measurements, wallSeconds: (Date.now() - startedAt) / 1000,
    // the machine is shared: the 1-, 5- and 15-minute load averages at the start and at the end of the run
    loadAverage: { start: loadBefore, end: loadAfter },
  };
  appendFileSync(join(repo, 'bench', 'results', 'walrus-class.jsonl'), `${JSON.stringify(line)}\n`);
  const markdown = report(line);
  writeFileSync(args.out, markdown);
  console.log(markdown);
} finally {
  await tusk.stop();
}

/** One WALRUS object of `size` bytes: PUT, then GET must be byte-identical and HEAD name the class and its blob id(s). */
async function verifyWalrusObject(s3, bucket, size) {
  const key = `verify/walrus-${size}`;
  const body = randomBytes(size);
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, StorageClass: 'WALRUS' }));
  const got = Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body.transformToByteArray());
  if (!got.equals(body)) throw new Error(`verification: the ${size}-byte WALRUS object read back different bytes`);
  const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  const blobIds = await headerOf(bucket, key, 'x-tusk-walrus-blob-id');
  if (head.StorageClass !== 'WALRUS' || !blobIds) throw new Error(`verification: HEAD of the ${size}-byte WALRUS object answered class ${head.StorageClass}, blob ids ${blobIds}`);
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  return { size, storageClass: head.StorageClass, blobs: blobIds.split(',').length };
}

/** A response header the SDK does not surface: a signed HEAD with the bench's own signer. */
async function headerOf(bucket, key, name) {
  const { SigV4Signer, UNSIGNED_PAYLOAD } = benchLib;
  const url = new URL(`/${bucket}/${key}`, endpoint);
  const headers = { host: url.host };
  new SigV4Signer({ accessKeyId, secretAccessKey, region: 'us-east-1' }).sign({ method: 'HEAD', path: url.pathname, query: '', headers, payloadHash: UNSIGNED_PAYLOAD });
  const res = await fetch(url, { method: 'HEAD', headers });
  return res.headers.get(name);
}

function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

function gitCommit() {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: repo, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function report(line) {
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = [];
  for (const { size } of SCENARIOS) {
    for (const op of ['put', 'get']) {
      const of = (storageClass) => line.measurements.filter((m) => m.op === op && m.size === size && m.storageClass === storageClass);
      const standard = mean(of('STANDARD').map((m) => m.objPerSec));
      for (const storageClass of Object.keys(CLASSES)) {
        const ms = of(storageClass);
        rows.push([
          `${op.toUpperCase()} ${size}`, storageClass,
          ms.map((m) => fixed(m.objPerSec, 2)).join(', '), fixed(mean(ms.map((m) => m.objPerSec)), 2),
          ms.map((m) => fixed(m.mibPerSec, 1)).join(', '), fixed(mean(ms.map((m) => m.mibPerSec)), 1),
          fixed(mean(ms.map((m) => m.p50Ms ?? 0)), 0), `${fixed(mean(ms.map((m) => m.objPerSec)) / standard, 3)}×`,
        ]);
      }
    }
  }
  const load = (l) => l.map((x) => fixed(x, 2)).join(' / ');
  const o = line.options;
  return `# WALRUS vs STANDARD storage class (bench/walrus-class.mjs)

${line.date}, commit ${line.commit}, ${line.machine}, Node ${line.node}, one \`tusk serve\` (${line.threads} S3 thread) with the publisher on the
${line.network}. 4 KiB: ${o.duration} measured after ${o.warmup} warm-up, ${o.concurrency} in flight; 64 MiB: ${o.bigCount} operations per round, one at a time, each with new bytes.
${o.rounds} rounds per operation, the class order rotating; GET bodies verified while they stream. Wall time ${fixed(line.wallSeconds, 0)} s.

Verified first: ${line.verified.map((v) => `a ${v.size}-byte WALRUS object read back identical, HEAD class ${v.storageClass}, ${v.blobs} blob id(s)`).join('; ')}.

**The machine is shared and loaded** (2 cores, other sessions' builds and tests running): load average (1 / 5 / 15 min)
${load(line.loadAverage.start)} at the start, ${load(line.loadAverage.end)} at the end. The figures show the order of magnitude of
the gap between the classes, not this server's ceiling.

${markdownTable(['op', 'class', 'obj/s per round', 'mean obj/s', 'MiB/s per round', 'mean MiB/s', 'p50 ms', 'vs STANDARD'], rows)}
`;
}
