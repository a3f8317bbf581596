#!/usr/bin/env node
// Runs the same `tusk bench` scenarios against Tusk (on each HTTP engine), the peer s3rver and a trivial uWS
// server (the raw ceiling), all on loopback, in one run, alternating the target order per scenario so drift hits
// every target; prints a Markdown table, and the node engine's rate against uWS's (and writes them with --out).
//
// Targets: tusk-uws and tusk-node (strict durability) on `--http-engine uws` / `node`, tusk-relaxed-uws and
// tusk-relaxed-node the same without flushes; tusk and tusk-relaxed on `--http-engine auto`.
//
// usage: node bench/side-by-side.mjs [--targets tusk-uws,tusk-node,s3rver,trivial] [--duration 5s] [--warmup 1s]
//          [--scenarios put-4k,get-4k,...] [--out FILE.md] [--json-dir DIR] [--s3rver-module PATH] [--client raw|http]
// Needs the compiled sources (`npm run build`); s3rver from devDependencies or --s3rver-module.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = fileURLToPath(new URL('..', import.meta.url));
const distDir = process.env.TUSK_DIST_DIR ? pathToFileURL(`${process.env.TUSK_DIST_DIR}/`) : new URL('dist/', pathToFileURL(repo));
const bench = await import(new URL('bench/index.js', distDir).href).catch(() => {
  console.error('bench/side-by-side.mjs needs the compiled sources: run `npm run build` first');
  process.exit(1);
});
const { runBench, parseSizeDistribution, markdownTable, fixed, ms, DEFAULTS } = bench;

const { values: args } = parseArgs({
  options: {
    targets: { type: 'string', default: 'tusk-uws,tusk-node,s3rver,trivial' },
    scenarios: { type: 'string' },
    duration: { type: 'string', default: '5s' },
    warmup: { type: 'string', default: '1s' },
    out: { type: 'string' },
    'json-dir': { type: 'string' },
    's3rver-module': { type: 'string' },
    verbose: { type: 'boolean', default: false },
    // raw: the lean node:net client (the generator's CPU per request is less than half of node:http's)
    client: { type: 'string', default: 'raw' },
  },
});
const seconds = (text) => Math.round(parseFloat(text) * (text.endsWith('ms') ? 1 : 1000));

/** The scenarios of issue 4: sizes, concurrency and prepared population chosen to finish in seconds on 2 cores. */
const SCENARIOS = [
  { id: 'put-4k', title: '4 KiB PUT', op: { put: 1 }, size: '4KiB', concurrency: 16 },
  { id: 'get-4k', title: '4 KiB GET', op: { get: 1 }, size: '4KiB', concurrency: 16, objects: 1000 },
  { id: 'put-1m', title: '1 MiB PUT', op: { put: 1 }, size: '1MiB', concurrency: 8 },
  { id: 'get-1m', title: '1 MiB GET', op: { get: 1 }, size: '1MiB', concurrency: 8, objects: 64 },
  { id: 'put-64m', title: '64 MiB PUT', op: { put: 1 }, size: '64MiB', concurrency: 2 },
  { id: 'get-64m', title: '64 MiB GET', op: { get: 1 }, size: '64MiB', concurrency: 2, objects: 4 },
  // the same 64 MiB as 8 parts (bench's default part size), to set beside the single PUT (issue 10)
  { id: 'mpu-64m', title: '64 MiB multipart upload (8 MiB parts)', op: { multipart: 1 }, size: '64MiB', concurrency: 2 },
  { id: 'mixed-4k', title: '4 KiB mixed (get 50, put 20, head 15, list 5, delete 10)',
    op: { get: 50, put: 20, head: 15, list: 5, delete: 10 }, size: '4KiB', concurrency: 16, objects: 1000 },
  // The trivial server stores nothing, so it has nothing to list.
  { id: 'list-10k', title: 'LIST of 10 000 keys (pages of 1000)', op: { list: 1 }, size: '0', concurrency: 4,
    objects: 10_000, skip: ['trivial'] },
];

/** Starts a child process and resolves with the URL from its "listening on" line. */
function startChild(name, command, argv, env, pattern) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => fail(new Error(`${name} did not report its address within 30 s`)), 30_000);
    const fail = (err) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n${output.slice(-2000)}`));
    };
    const onData = (data) => {
      output += data;
      const m = pattern.exec(output);
      if (m) {
        clearTimeout(timer);
        child.stdout.removeListener('data', onData);
        child.stdout.resume();
        resolve({ child, url: m[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (data) => { output += data; });
    child.on('exit', (code) => fail(new Error(`${name} exited (code ${code}) before listening`)));
    child.on('error', fail);
  });
}

async function startTarget(name, dataDir) {
  // tusk: the default, every acknowledged PUT fdatasync'ed (group commit); tusk-relaxed: no flush, like s3rver;
  // -uws / -node: that HTTP engine (a start-up error when uWS has no binary for this Node), else auto
  const tusk = /^tusk(-relaxed)?(?:-(uws|node))?$/.exec(name);
  if (tusk) {
    if (!existsSync(join(repo, 'bin/tusk.js'))) throw new Error('bin/tusk.js not found');
    const creds = { accessKeyId: 'tuskbench', secretAccessKey: 'tuskbench-secret-key' };
    const durability = tusk[1] ? 'relaxed' : 'strict';
    const started = await startChild(name, process.execPath,
      ['bin/tusk.js', 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--durability', durability,
        '--publisher-listen', 'off', '--console-listen', 'off', '--threads', process.env.TUSK_BENCH_THREADS ?? '1', '--http-engine', tusk[2] ?? 'auto'],
      { TUSK_ACCESS_KEY_ID: creds.accessKeyId, TUSK_SECRET_ACCESS_KEY: creds.secretAccessKey },
      /s3 listening on (http:\/\/[^\s"]+)/);
    return { ...started, ...creds };
  }
  if (name === 's3rver') {
    const modulePath = args['s3rver-module'] ?? fileURLToPath(import.meta.resolve('s3rver'));
    const script = `const S3rver = require(${JSON.stringify(modulePath)});
new S3rver({ port: 0, address: '127.0.0.1', directory: ${JSON.stringify(dataDir)}, silent: true }).run()
  .then((a) => console.log('s3rver listening on http://127.0.0.1:' + a.port));`;
    // s3rver encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only offers in its legacy provider.
    const started = await startChild('s3rver', process.execPath, ['--openssl-legacy-provider', '-e', script], {},
      /s3rver listening on (http:\/\/[^\s]+)/);
    return { ...started, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  }
  if (name === 'trivial') {
    const started = await startChild('trivial', process.execPath, ['bench/trivial-server.mjs', '--port', '0'], {},
      /trivial listening on (http:\/\/[^\s]+)/);
    return { ...started, accessKeyId: 'trivial', secretAccessKey: 'trivial' };
  }
  throw new Error(`unknown target ${name}`);
}

/**
 * The disk's sequential write speed in MiB/s, measured as the large-PUT targets are (issue 9 asks
 * for the 64 MiB PUT against it, in the same run): `bytes` of random data in 8 MiB writes to a
 * file on the data directories' filesystem, then fdatasync, timed from the first write to the end
 * of the flush. A short probe would mostly measure the page cache and the disk's burst rate.
 */
async function diskWriteMiBps(dir, bytes) {
  const chunk = randomBytes(8 << 20);
  const path = join(dir, 'disk-probe');
  const file = await open(path, 'w');
  try {
    const start = performance.now();
    for (let written = 0; written < bytes; written += chunk.length) await file.write(chunk, 0, chunk.length, written);
    await file.datasync();
    return bytes / (1 << 20) / ((performance.now() - start) / 1000);
  } finally {
    await file.close();
    await rm(path, { force: true });
  }
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill('SIGTERM');
  });
}

const wanted = args.targets.split(',').filter(Boolean);
const scenarios = args.scenarios
  ? SCENARIOS.filter((s) => args.scenarios.split(',').includes(s.id))
  : SCENARIOS;
const durationMs = seconds(args.duration);
const warmupMs = seconds(args.warmup);
const targets = [];
const notes = [];
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const t of targets) t.child.kill('SIGKILL');
    process.exit(130);
  });
}
const scratch = await mkdtemp(join(tmpdir(), 'tusk-side-by-side-'));
const results = []; // { scenario, target, result | error }

try {
  for (const name of wanted) {
    try {
      const dataDir = join(scratch, name);
      await mkdir(dataDir, { recursive: true });
      targets.push({ name, ...(await startTarget(name, dataDir)) });
      console.error(`[side-by-side] ${name} at ${targets.at(-1).url}`);
    } catch (err) {
      notes.push(`${name}: not run (${err.message.split('\n')[0]})`);
      console.error(`[side-by-side] ${name} not started: ${err.message}`);
    }
  }
  if (args['json-dir']) await mkdir(args['json-dir'], { recursive: true });
  for (const [i, scenario] of scenarios.entries()) {
    if (scenario.id === 'put-64m') {
      const rate = await diskWriteMiBps(scratch, 2 * 2 ** 30);
      notes.push(`disk: ${fixed(rate, 0)} MiB/s sequential write with fdatasync, measured just before the 64 MiB PUT scenario (2 GiB of random data in 8 MiB writes, on the data directories' filesystem)`);
      console.error(`[side-by-side] disk write ${fixed(rate, 0)} MiB/s`);
    }
    // Rotate the order each scenario so slow drift (thermal, page cache, other load) hits every target.
    const order = targets.map((_, j) => targets[(i + j) % targets.length]);
    for (const target of order) {
      if (scenario.skip?.includes(target.name)) continue;
      console.error(`[side-by-side] ${scenario.title} on ${target.name}`);
      try {
        const result = await runBench({
          ...DEFAULTS,
          endpoint: target.url, accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey,
          region: 'us-east-1', addressing: 'path', mix: scenario.op, sizes: parseSizeDistribution(scenario.size),
          concurrency: scenario.concurrency, durationMs, warmupMs, objects: scenario.objects,
          keep: false, label: `${target.name} ${scenario.id}`, client: args.client,
        }, args.verbose ? (line) => console.error(`[bench] ${line}`) : undefined);
        results.push({ scenario, target: target.name, result });
        if (args['json-dir']) {
          await writeFile(join(args['json-dir'], `${scenario.id}-${target.name}.json`), JSON.stringify(result, null, 2));
        }
      } catch (err) {
        results.push({ scenario, target: target.name, error: err.message });
      }
    }
  }
} finally {
  await Promise.all(targets.map((t) => stop(t.child)));
  await rm(scratch, { recursive: true, force: true });
}

const rows = [];
for (const scenario of scenarios) {
  const peer = results.find((r) => r.scenario === scenario && r.target === 's3rver')?.result;
  for (const r of results.filter((x) => x.scenario === scenario)) {
    if (r.error) {
      rows.push([scenario.title, r.target, `failed: ${r.error.split('\n')[0].replace(/\|/g, '/')}`, '', '', '', '', '', '', '']);
      continue;
    }
    const t = r.result.total;
    const isList = Object.keys(scenario.op).length === 1 && scenario.op.list;
    const throughput = isList ? `${fixed(t.itemsPerSec, 0)} keys/s` : fixed(t.objPerSec, 1);
    const ratio = peer && peer.total.objPerSec > 0 && r.target !== 's3rver' ? `${(t.objPerSec / peer.total.objPerSec).toFixed(2)}x` : '';
    const errors = Object.entries(t.errors).map(([code, n]) => `${code}×${n}`).join(', ') || '0';
    rows.push([
      scenario.title, r.target, r.result.skipped ? `skipped: ${r.result.skipped}` : throughput,
      t.bytes > 0 ? fixed(t.mibPerSec, 1) : '-', ms(t.latencyMs?.p50), ms(t.latencyMs?.p99), ms(t.ttfbMs?.p50),
      errors, `${fixed(r.result.cpu.percentOfOneCore, 0)}%`, ratio,
    ]);
  }
}
/** The node engine's obj/s against uWS's, per scenario, for each durability both engines ran with. */
const engineRows = [];
for (const scenario of scenarios) {
  for (const prefix of ['tusk', 'tusk-relaxed']) {
    const rate = (engine) => results.find((r) => r.scenario === scenario && r.target === `${prefix}-${engine}`)?.result?.total.objPerSec;
    const [uws, node] = [rate('uws'), rate('node')];
    if (uws > 0 && node !== undefined) engineRows.push([scenario.title, prefix, fixed(uws, 1), fixed(node, 1), `${(node / uws).toFixed(2)}x`]);
  }
}
const cores = cpus().length;
const markdown = [
  `# Side-by-side: ${targets.map((t) => t.name).join(', ')}`,
  '',
  `${new Date().toISOString()} · Node ${process.version} · ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}) · ` +
    `${durationMs / 1000} s measured after ${warmupMs / 1000} s warm-up per run · loopback · every GET body verified · ` +
    `client ${args.client}`,
  '',
  markdownTable(
    ['scenario', 'target', 'obj/s', 'MiB/s', 'p50 ms', 'p99 ms', 'TTFB p50 ms', 'errors', 'generator CPU', 'obj/s vs s3rver'],
    rows,
  ),
  '',
  ...(engineRows.length
    ? ['node engine (`--http-engine node`) against uWS, obj/s:', '',
      markdownTable(['scenario', 'durability', 'uWS obj/s', 'node obj/s', 'node / uWS'], engineRows), '']
    : []),
  `Generator CPU is the load generator's own use (100% = one core). On ${cores} cores the generator, the server`,
  'and the peer share the machine: numbers are comparable with each other, not with a dedicated server.',
  'trivial = bench/trivial-server.mjs, a uWS server that stores nothing: the ceiling of this generator and HTTP stack.',
  ...notes.map((n) => `- ${n}`),
  '',
].join('\n');
process.stdout.write(markdown);
if (args.out) await writeFile(args.out, markdown);
