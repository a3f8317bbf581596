#!/usr/bin/env node
// Issue 15 acceptance: the server's CPU per 64 MiB PUT against its digest work. Sends --count PUTs
// of --size (signed payload, so the server hashes SHA-256 besides MD5 and the block CRC32Cs) to
// one Tusk process and reads that process's CPU time (user + system, all its threads) before and
// after; then times the digest work alone in this process: one fused native pass of MD5 + SHA-256 +
// CRC32C over the same number of bytes (median of --rounds, process CPU time).
//
//   npm run build && node bench/put-cpu.mjs [--count 40] [--size 64MiB] [--concurrency 1]

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { benchLib, repo, startTusk } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS } = benchLib;
const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '40' },
    size: { type: 'string', default: '64MiB' },
    concurrency: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '5' },
  },
});
const native = await import(new URL('dist/native/native.js', `file://${repo}`).href);

const accessKeyId = 'TUSKPUTCPUBENCH00001';
const secretAccessKey = 'put-cpu-bench-secret-put-cpu-bench';
const tusk = await startTusk({ accessKeyId, secretAccessKey, label: 'tusk-put-cpu-bench' });
const { endpoint } = tusk;
const sizes = parseSizeDistribution(args.size);
const bytes = sizes.kind === 'fixed' ? sizes.bytes : (() => { throw new Error('--size: one size'); })();
let serverMs;
let seconds;
try {
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  await s3.send(new CreateBucketCommand({ Bucket: 'put-cpu-bench' }));
  const common = {
    ...DEFAULTS, endpoint, accessKeyId, secretAccessKey, region: 'us-east-1', addressing: 'path', bucket: 'put-cpu-bench',
    mix: { put: 1 }, sizes, concurrency: Number(args.concurrency), objects: 8, payload: 'sha256', keep: false, client: 'raw', quiet: true,
  };
  // a few PUTs first, so that the measured ones find the server warm
  await runBench({ ...common, count: 3, warmupMs: 0, label: 'warm-up' });
  const before = tusk.cpuMs();
  const result = await runBench({ ...common, count: Number(args.count), warmupMs: 0, label: 'measured' });
  serverMs = (tusk.cpuMs() - before) / result.total.ok;
  seconds = result.total.ok / result.total.objPerSec;
  if (result.total.errorCount) throw new Error(JSON.stringify(result.total.errors));
} finally {
  await tusk.stop();
}

const body = randomBytes(bytes);
const digestRuns = [];
for (let i = 0; i < Number(args.rounds); i++) {
  const start = process.cpuUsage();
  native.digestSync(body, native.DIGEST.MD5 | native.DIGEST.SHA256 | native.DIGEST.CRC32C);
  const used = process.cpuUsage(start);
  digestRuns.push((used.user + used.system) / 1000);
}
const digestMs = digestRuns.sort((a, b) => a - b)[Math.floor(digestRuns.length / 2)];
console.log(markdownTable(['PUT size', 'PUTs', 'server CPU per PUT', 'digest work (MD5+SHA-256+CRC32C)', 'ratio', 'wall time per PUT'], [[
  args.size, args.count, `${fixed(serverMs, 1)} ms`, `${fixed(digestMs, 1)} ms`, `${fixed(serverMs / digestMs, 2)}×`, `${fixed((seconds * 1000) / Number(args.count), 1)} ms`,
]]));
