#!/usr/bin/env node
// Issue 15: the S3 face on several threads. Runs 4 KiB GET and 4 KiB PUT against two Tusk servers
// alike but for --threads (1 and 2 by default), rounds rotating which goes first; reports obj/s and
// the server's CPU time per request (all its threads, from /proc). The load generator shares the
// machine with the server: on 2 cores, a second server thread competes with it for CPU.
//
//   npm run build && node bench/threads.mjs [--threads 1,2] [--duration 5s] [--rounds 4] [--durability relaxed]

import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { benchLib, milliseconds, overheadArgs, roundOrder, startTusk } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS } = benchLib;
const args = overheadArgs({ threads: { type: 'string', default: '1,2' }, durability: { type: 'string', default: 'relaxed' } });

const accessKeyId = 'TUSKTHREADSBENCH0001';
const secretAccessKey = 'threads-bench-secret-threads-bench-secret';
const bucket = 'threads-bench';
const scenarios = { '4 KiB GET': { get: 1 }, '4 KiB PUT': { put: 1 } };
const counts = args.threads.split(',').map(Number);

const servers = [];
try {
  const targets = {};
  for (const n of counts) {
    const tusk = await startTusk({ accessKeyId, secretAccessKey, args: ['--durability', args.durability, '--threads', String(n)], label: 'tusk-threads-bench' });
    servers.push(tusk);
    const s3 = new S3Client({ endpoint: tusk.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    targets[`--threads ${n}`] = tusk;
  }
  const rows = [];
  for (const [scenario, mix] of Object.entries(scenarios)) {
    const rate = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
    const cpu = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const [label, tusk] of roundOrder(targets, round)) {
        const result = await runBench({
          ...DEFAULTS, endpoint: tusk.endpoint, accessKeyId, secretAccessKey, region: 'us-east-1', addressing: 'path', bucket,
          mix, sizes: parseSizeDistribution('4KiB'), concurrency: 16, objects: mix.get ? 1000 : 0,
          durationMs: milliseconds(args.duration), warmupMs: milliseconds(args.warmup),
          keep: false, label, client: 'raw', serverCpuMs: tusk.cpuMs,
        });
        if (result.total.errorCount) throw new Error(`${label}: ${JSON.stringify(result.total.errors)}`);
        rate[label].push(result.total.objPerSec);
        cpu[label].push((result.serverCpuMs * 1000) / result.total.ok);
      }
    }
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const base = mean(Object.values(rate)[0]);
    for (const label of Object.keys(targets)) {
      rows.push([scenario, label, rate[label].map((x) => fixed(x, 0)).join(', '), fixed(mean(rate[label]), 0),
        `${fixed(mean(rate[label]) / base, 2)}×`, `${fixed(mean(cpu[label]), 1)} µs`]);
    }
  }
  console.log(`durability ${args.durability}; ${args.rounds} rounds of ${args.duration}; concurrency 16, raw client`);
  console.log(markdownTable(['scenario', 'server', 'obj/s per round', 'mean obj/s', 'vs first', 'server CPU per op'], rows));
} finally {
  await Promise.all(servers.map((t) => t.stop()));
}
