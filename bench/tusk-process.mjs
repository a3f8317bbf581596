// A Tusk server for a benchmark script: a fresh data directory, root credentials of the script's
// choosing, the publisher off (unless `args` name --publisher-listen), and its access log drained
// rather than kept (keeping and searching it slows the generator that shares the machine).
// TUSK_BENCH_NODE_ARGS adds Node flags to the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".

import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';

export const repo = fileURLToPath(new URL('..', import.meta.url));

/** The built bench library (dist/bench): runBench, parseSizeDistribution, markdownTable, … */
export const benchLib = await import(new URL('dist/bench/index.js', pathToFileURL(repo)).href);

/** The A/B options every overhead script takes (--duration, --warmup, --rounds), with `more`. */
export function overheadArgs(more = {}) {
  const options = { duration: { type: 'string', default: '5s' }, warmup: { type: 'string', default: '1s' }, rounds: { type: 'string', default: '4' }, ...more };
  return parseArgs({ options }).values;
}

/** The [label, target] entries of a round, rotated by one each round: one measured after another loses a few percent to order alone. */
export function roundOrder(targets, round) {
  const order = Object.entries(targets);
  const first = round % order.length;
  return [...order.slice(first), ...order.slice(0, first)];
}

/**
 * Starts `tusk serve` with `args` added; resolves once it listens. Without `--threads` in `args` it
 * serves on TUSK_BENCH_THREADS threads (default 1, not the server's one per core): the scripts'
 * generators share the machine, and their figures in the README are for one thread.
 */
export async function startTusk({ accessKeyId, secretAccessKey, args = [], label = 'tusk-bench' }) {
  if (!args.includes('--threads')) args = [...args, '--threads', process.env.TUSK_BENCH_THREADS ?? '1'];
  if (!args.includes('--publisher-listen')) args = [...args, '--publisher-listen', 'off'];
  const dataDir = await mkdtemp(join(tmpdir(), `${label}-`));
  const child = spawn(
    process.execPath,
    [...(process.env.TUSK_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), join(repo, 'bin', 'tusk.js'), 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--console-listen', 'off', ...args],
    { env: { ...process.env, TUSK_ACCESS_KEY_ID: accessKeyId, TUSK_SECRET_ACCESS_KEY: secretAccessKey }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const endpoint = await new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d;
      const m = /s3 listening on (http:\/\/[^\s"]+)/.exec(out);
      if (!m) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve(m[1]);
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`tusk exited (${code})`)));
  });
  return {
    endpoint,
    /** what it printed until it listened (the publisher's address and key come before) */
    startOutput: out,
    /** the server process's CPU time so far (user + system), in ms */
    pid: child.pid,
    cpuMs: () => benchLib.processCpuMs(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Requests/s of one wrk run (one thread, `connections` connections, `durationMs`) against `url`,
 * its Lua `script` given `file`; throws on any answer but 2xx/3xx and on a socket error.
 * `timeout`: wrk's per-request timeout (its default is 2 s).
 */
export async function wrkRate(url, { script, file, connections, durationMs, timeout }) {
  const args = ['-t1', ...(timeout ? ['--timeout', timeout] : []), `-c${connections}`, `-d${Math.round(durationMs / 1000)}s`, '-s', script, url, '--', file];
  const { stdout } = await promisify(execFile)('wrk', args);
  const failures = /Non-2xx or 3xx responses: (\d+)/.exec(stdout) ?? /Socket errors: [^\n]*/.exec(stdout);
  if (failures) throw new Error(`wrk against ${url}: ${failures[0]}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)[1]);
}

/** `5s` or `500ms` in milliseconds. */
export const milliseconds = (text) => Math.round(parseFloat(text) * (text.endsWith('ms') ? 1 : 1000));

