#!/usr/bin/env node
// End-to-end publish latency and throughput: `tusk serve` with its publisher (n = 1000 shards by
// default, 10 in-process storage nodes, strict durability) takes `PUT /<key>/v1/blobs` of fresh
// random blobs — encode, pay, store slivers, collect confirmations, certify — first one at a time
// (latency), then with several in flight (throughput). Each stored blob is read back once through
// the aggregator and compared before anything is reported. Afterwards, with the server stopped, the
// same codec (dist/, its worker pool) encodes fresh blobs of each size alone, so the table shows
// publish next to encode (issue 14: publish p50 at most 1.3x the encode time).
//
// usage: npm run build && node bench/publish.bench.mjs [--sizes 1,10] [--count 5] [--concurrency 4]
//          [--n-shards 1000] [--durability strict|relaxed]
//        TUSK_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" adds Node flags to the server (profiling)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1,10' },
    count: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '4' },
    'n-shards': { type: 'string', default: '1000' },
    durability: { type: 'string', default: 'strict' },
  },
});
const MiB = 1 << 20;
const sizes = args.sizes.split(',').map((s) => Number(s) * MiB);
const count = Number(args.count);
const concurrency = Number(args.concurrency);

function start(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(process.env.TUSK_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      'bin/tusk.js', 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--publisher-listen', '127.0.0.1:0', '--console-listen', 'off',
      '--n-shards', args['n-shards'], '--durability', args.durability, '--max-blob-size', `${Math.max(...sizes) + MiB}`,
      '--threads', process.env.TUSK_BENCH_THREADS ?? '1',
    ], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`tusk did not start:\n${out}`)), 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      const url = /publisher listening on (http:\/\/[^\s"]+)/.exec(out);
      const key = /publisher endpoint key: ([^\s"]+)/.exec(out);
      if (url && key) {
        clearTimeout(timer);
        resolve({ child, url: url[1], key: key[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`tusk exited (${code}):\n${out}`)));
  });
}

async function publish(server, blob) {
  const t0 = performance.now();
  const res = await fetch(`${server.url}/${server.key}/v1/blobs`, { method: 'PUT', body: blob });
  const json = await res.json();
  const ms = performance.now() - t0;
  if (res.status !== 200 || !json.newlyCreated) throw new Error(`publish failed: ${res.status} ${JSON.stringify(json)}`);
  return { ms, blobId: json.newlyCreated.blobObject.blobId };
}

async function verify(server, blobId, blob) {
  const res = await fetch(`${server.url}/v1/blobs/${blobId}`);
  const got = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200 || !got.equals(blob)) throw new Error(`blob ${blobId} did not read back identical`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dataDir = mkdtempSync(join(tmpdir(), 'tusk-publish-bench-'));
const server = await start(dataDir);
const rows = [];
try {
  for (const size of sizes) {
    // latency: one store at a time, after one warm-up store
    await publish(server, randomBytes(size));
    const latencies = [];
    for (let i = 0; i < count; i++) {
      const blob = randomBytes(size);
      const { ms, blobId } = await publish(server, blob);
      await verify(server, blobId, blob);
      latencies.push(ms);
    }
    // throughput: `concurrency` stores in flight, `count` each
    const blobs = Array.from({ length: concurrency * count }, () => randomBytes(size));
    let next = 0;
    const t0 = performance.now();
    const stored = [];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < blobs.length) {
          const blob = blobs[next++];
          stored.push({ blob, ...(await publish(server, blob)) });
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    for (const s of stored) await verify(server, s.blobId, s.blob);
    rows.push({
      size: `${size / MiB} MiB`,
      p50: median(latencies),
      max: Math.max(...latencies),
      blobsPerS: blobs.length / seconds,
      mbPerS: (blobs.length * size) / 1e6 / seconds,
    });
  }
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

// Encode alone: the server's codec, in this process now that the server is gone.
const { openBlobCodec } = await import(new URL('../dist/publisher/rs2/codec.js', import.meta.url).href);
const codec = await openBlobCodec();
try {
  for (const [i, size] of sizes.entries()) {
    await codec.encode(randomBytes(size), Number(args['n-shards'])); // warm-up
    const times = [];
    for (let k = 0; k < count; k++) {
      const blob = randomBytes(size);
      const t0 = performance.now();
      const encoded = await codec.encode(blob, Number(args['n-shards']));
      times.push(performance.now() - t0);
      if (encoded.unencodedLength !== size) throw new Error('encode returned another length');
      encoded.release(); // as the server does once the nodes have the slivers: the next encode reuses the memory
    }
    rows[i].encodeP50 = median(times);
  }
} finally {
  await codec.close();
}

console.log(`# Publish end to end: n = ${args['n-shards']}, 10 in-process storage nodes, durability ${args.durability}`);
console.log(`\n${new Date().toISOString()} · Node ${process.version} · ${cpus().length} cores (${cpus()[0]?.model.trim()}) · every blob read back and compared\n`);
console.log(`| blob | encode alone p50 | publish latency p50 (1 in flight) | publish / encode | latency max | throughput (${concurrency} in flight) |`);
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.size} | ${r.encodeP50.toFixed(0)} ms | ${r.p50.toFixed(0)} ms | ${(r.p50 / r.encodeP50).toFixed(2)}x | ${r.max.toFixed(0)} ms | ${r.blobsPerS.toFixed(2)} blobs/s, ${r.mbPerS.toFixed(1)} MB/s |`,
  );
}
console.log(`\n${JSON.stringify({ nShards: Number(args['n-shards']), durability: args.durability, rows })}`);
