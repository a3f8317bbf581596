#!/usr/bin/env node
// Issue 15: the S3 face on several threads. Runs 4 KiB GET and 4 KiB PUT against two Tusk servers
// alike but for --threads (1 and 2 by default), rounds rotating which goes first; reports obj/s and
// the server's CPU time per request (all its threads, from /proc).
//
// The load generator shares the machine with the server. By default it is wrk (Debian's package,
// installed when missing), a C generator that costs a few µs per request, replaying requests
// signed beforehand (SigV4 header auth, UNSIGNED-PAYLOAD, one key per request over a set of keys):
// the servers then get most of the 2 cores. `--generator raw` uses Tusk's own generator instead
// (signs every request in Node, ~25 µs of CPU each), which leaves the servers less than a core.
//
//   npm run build && node bench/threads.mjs [--threads 1,2] [--duration 5s] [--rounds 4] [--durability relaxed]
//       [--generator wrk|raw] [--connections 32] [--only GET|PUT]

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ensureDebianPackages } from '../scripts/build-native.mjs';
import { benchLib, milliseconds, overheadArgs, roundOrder, startTusk, wrkRate } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS, signRequest, SigV4Signer, UNSIGNED_PAYLOAD } = benchLib;
const args = overheadArgs({
  threads: { type: 'string', default: '1,2' },
  durability: { type: 'string', default: 'relaxed' },
  generator: { type: 'string', default: 'wrk' },
  connections: { type: 'string', default: '32' },
  only: { type: 'string' },
});

const accessKeyId = 'TUSKTHREADSBENCH0001';
const secretAccessKey = 'threads-bench-secret-threads-bench-secret';
const region = 'us-east-1';
const bucket = 'threads-bench';
const SIZE = 4096;
/** keys a scenario cycles through */
const KEYS = 2000;
const scenarios = Object.fromEntries(Object.entries({ '4 KiB GET': 'GET', '4 KiB PUT': 'PUT' }).filter(([, m]) => !args.only || m === args.only));
const counts = args.threads.split(',').map(Number);
const connections = Number(args.connections);
const run = promisify(execFile);

if (args.generator === 'wrk') ensureDebianPackages(['wrk']);
const work = await mkdtemp(join(tmpdir(), 'tusk-threads-bench-'));
// wrk replays the lines of the file it is given, one request each, in a loop
const replay = join(work, 'replay.lua');
await writeFile(replay, `local requests = {}
local i = 0
init = function(args)
  for line in io.lines(args[1]) do requests[#requests + 1] = (line:gsub("\\\\r\\\\n", "\\r\\n")) end
end
request = function()
  i = i % #requests + 1
  return requests[i]
end
`);

/** A file of `method` requests to `endpoint`, one per key, signed now (valid for 15 minutes). */
async function signedRequests(endpoint, method, label) {
  const signer = new SigV4Signer({ accessKeyId, secretAccessKey, region });
  const body = method === 'PUT' ? 'x'.repeat(SIZE) : '';
  const lines = [];
  for (let k = 0; k < KEYS; k++) {
    const { target, headers } = signRequest(new URL(endpoint), 'path', signer, {
      method, bucket, key: `obj-${k}`, payloadHash: UNSIGNED_PAYLOAD, ...(body ? { body: [Buffer.from(body)] } : {}),
    });
    const head = [`${method} ${target} HTTP/1.1`, ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)].join('\\r\\n');
    lines.push(`${head}\\r\\n\\r\\n${body}`);
  }
  const file = join(work, `${label}-${method}.txt`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** obj/s over the run's duration, failing on any answer but 2xx. */
const wrk = (endpoint, file) => wrkRate(endpoint, { script: replay, file, connections, durationMs: milliseconds(args.duration) });

const servers = [];
try {
  const targets = {};
  for (const n of counts) {
    const tusk = await startTusk({ accessKeyId, secretAccessKey, args: ['--durability', args.durability, '--threads', String(n)], label: 'tusk-threads-bench' });
    servers.push(tusk);
    const s3 = new S3Client({ endpoint: tusk.endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const label = `--threads ${n}`;
    const files = {};
    if (args.generator === 'wrk') {
      files.PUT = await signedRequests(tusk.endpoint, 'PUT', `t${n}`);
      files.GET = await signedRequests(tusk.endpoint, 'GET', `t${n}`);
    }
    targets[label] = { tusk, files };
  }
  if (args.generator === 'wrk') {
    // the GET scenario reads what one PUT pass wrote
    for (const { tusk, files } of Object.values(targets)) await run('wrk', ['-t1', '-c8', '-d2s', '-s', replay, tusk.endpoint, '--', files.PUT]);
  }
  const rows = [];
  for (const [scenario, method] of Object.entries(scenarios)) {
    const rate = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
    const cpu = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const [label, { tusk, files }] of roundOrder(targets, round)) {
        let perSecond;
        let cpuPerOp; // µs
        if (args.generator === 'wrk') {
          const before = tusk.cpuMs();
          perSecond = await wrk(tusk.endpoint, files[method]);
          cpuPerOp = ((tusk.cpuMs() - before) * 1000) / (perSecond * (milliseconds(args.duration) / 1000));
        } else {
          const mix = method === 'GET' ? { get: 1 } : { put: 1 };
          const result = await runBench({
            ...DEFAULTS, endpoint: tusk.endpoint, accessKeyId, secretAccessKey, region, addressing: 'path', bucket,
            mix, sizes: parseSizeDistribution('4KiB'), concurrency: connections, objects: method === 'GET' ? 1000 : 0,
            durationMs: milliseconds(args.duration), warmupMs: milliseconds(args.warmup),
            keep: false, label, client: 'raw', serverCpuMs: tusk.cpuMs,
          });
          if (result.total.errorCount) throw new Error(`${label}: ${JSON.stringify(result.total.errors)}`);
          perSecond = result.total.objPerSec;
          cpuPerOp = (result.serverCpuMs * 1000) / result.total.ok;
        }
        rate[label].push(perSecond);
        cpu[label].push(cpuPerOp);
      }
    }
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const base = mean(Object.values(rate)[0]);
    for (const label of Object.keys(targets)) {
      rows.push([scenario, label, rate[label].map((x) => fixed(x, 0)).join(', '), fixed(mean(rate[label]), 0),
        `${fixed(mean(rate[label]) / base, 2)}×`, `${fixed(mean(cpu[label]), 1)} µs`]);
    }
  }
  console.log(`durability ${args.durability}; ${args.rounds} rounds of ${args.duration}; ${connections} connections; generator ${args.generator} on the same machine`);
  console.log(markdownTable(['scenario', 'server', 'obj/s per round', 'mean obj/s', 'vs first', 'server CPU per op'], rows));
} finally {
  await Promise.all(servers.map((t) => t.stop()));
  await rm(work, { recursive: true, force: true });
}
