// Node child processes for the end-to-end tests: output kept for failure messages, ready once it
// prints a line matching a pattern, stopped with SIGTERM (SIGKILL after a timeout). Every child is
// tracked so a failed test file never leaves one running.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { delimiter, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const STOP_TIMEOUT_MS = 15_000;

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface TestChild {
  pid: number;
  /** the ready pattern's match in the child's stdout */
  match: RegExpExecArray;
  /** everything the process printed so far */
  output(): string;
  /** what it printed on stdout alone (the JSON log) */
  stdout(): string;
  /** true while the child has not exited */
  alive(): boolean;
  /** SIGTERM, wait for exit; SIGKILL after a timeout. Resolves to the exit code (null if killed). */
  stop(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL, wait for exit. */
  kill9(): Promise<void>;
}

export interface SpawnOptions {
  /** added to this process's environment */
  env?: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  /** names the process in failure messages */
  label: string;
  /** the program to run; default: this node */
  command?: string;
}

/**
 * This process's environment plus `extra`, with this Node's folder first on PATH: a child that runs
 * `node` or `npm` by name (`npm start`'s script) then runs on the Node the tests run on, not on
 * whichever one PATH finds first (the suite runs on two: .ci/run).
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  return { ...env, PATH: [dirname(process.execPath), env.PATH].filter(Boolean).join(delimiter) };
}

/** Asked every READY_POLL_MS until it gives a match: readiness of a process that prints nothing when it is up. */
export type ReadyProbe = () => Promise<RegExpExecArray | undefined>;
const READY_POLL_MS = 100;

/**
 * Spawns node (or `options.command`) with `args` in the repository root; resolves once stdout
 * matches `ready`, or once `ready`, a probe, gives a match.
 */
export async function spawnUntil(args: string[], ready: RegExp | ReadyProbe, options: SpawnOptions): Promise<TestChild> {
  const child = spawn(options.command ?? process.execPath, args, { cwd: REPO_ROOT, env: childEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let log = '';
  let stdout = '';
  const append = (chunk: Buffer) => {
    log += chunk.toString('utf8');
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    // whole lines are kept: a test parses each one
    if (stdout.length > 200_000) stdout = stdout.slice(stdout.indexOf('\n', stdout.length - 100_000) + 1);
  });
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  let hasExited = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      hasExited = true;
      live.delete(child);
      resolve(code);
    }),
  );
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    let poll: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      clearInterval(poll);
      child.kill('SIGKILL');
      reject(new Error(`${options.label} did not become ready in ${options.startTimeoutMs} ms; output:\n${log}`));
    }, options.startTimeoutMs);
    const done = (m: RegExpExecArray) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve(m);
    };
    if (ready instanceof RegExp) {
      const onData = () => {
        const m = ready.exec(log);
        if (m) {
          child.stdout!.off('data', onData);
          done(m);
        }
      };
      child.stdout!.on('data', onData);
    } else {
      poll = setInterval(() => void ready().then((m) => m && !hasExited && done(m), () => undefined), READY_POLL_MS);
    }
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`${options.label} exited with ${code} before becoming ready; output:\n${log}`));
    });
  });
  const stopWith = async (signal: NodeJS.Signals, timeoutMs: number): Promise<number | null> => {
    if (hasExited) return exited;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return {
    pid: child.pid!,
    match,
    output: () => log,
    stdout: () => stdout,
    alive: () => !hasExited,
    stop: (timeoutMs = STOP_TIMEOUT_MS) => stopWith('SIGTERM', timeoutMs),
    kill9: async () => void (await stopWith('SIGKILL', STOP_TIMEOUT_MS)),
  };
}

/** Runs `node bin/tusk.js ...args` to its exit: for starts that must refuse at once, not serve. */
export function runTuskToExit(args: string[], timeoutMs = 15_000): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [resolve(REPO_ROOT, 'bin', 'tusk.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
