// Starts a real Tusk process on port 0 in a temp dir, for end-to-end tests (style.md §11).

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpEngineName } from '../../../src/http/engine.js';
import { freePort } from '../../../src/http/listener.js';
import { NODE_SHARES_PORTS } from '../../../src/http/node-engine.js';
import { uwsAvailability } from '../../../src/http/uws-module.js';
import { REPO_ROOT, spawnUntil, type ReadyProbe } from './child-process.js';

const TUSK_BIN = join(REPO_ROOT, 'bin', 'tusk.js');
const READY_LINE = /s3 listening on (https?):\/\/127\.0\.0\.1:(\d+)/;
const START_TIMEOUT_MS = 30_000;
/** dispose() is cleanup, not a drain test: do not wait long for a slow exit */
const DISPOSE_TIMEOUT_MS = 3_000;

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface ExtraAccount extends Credentials {
  displayName: string;
}

export interface TuskOptions {
  /** Reuse an existing data dir (restart after a crash); default: a fresh temp dir. */
  dataDir?: string;
  durability?: 'strict' | 'relaxed';
  region?: string;
  /** Base domains for virtual-host style (s3.md §1.1). */
  domains?: string[];
  /** Written to <data-dir>/accounts.json before start-up. */
  extraAccounts?: ExtraAccount[];
  /** 'generated': no credentials in the environment, the server creates its own (read back from its data dir) */
  root?: Credentials | 'generated';
  /** `--publisher-listen` value; default 'off' */
  publisherListen?: string;
  /** `--console-listen` value; default 'off' (its default port would be shared by every test) */
  consoleListen?: string;
  /** more `tusk serve` flags */
  extraArgs?: string[];
  /** more environment variables for the process */
  env?: NodeJS.ProcessEnv;
  /**
   * The start-up prints nothing at info level (`--log-level warn` among `extraArgs`): the S3 port is
   * picked here and the server is ready once its health probe answers.
   */
  quiet?: boolean;
  /** Serve from a file system of this many bytes: a tmpfs mounted over the data dir in a mount
   * namespace of the server's own (unshare), so it goes away with the process. */
  tmpfsBytes?: number;
  /** how long the start-up may take (default 30 s; a Walrus network's publisher reads the chain first) */
  startTimeoutMs?: number;
}

export interface TuskServer {
  readonly port: number;
  readonly endpoint: string;
  readonly pid: number;
  readonly dataDir: string;
  readonly region: string;
  readonly root: Credentials;
  readonly extraAccounts: ExtraAccount[];
  /** The HTTP engine it serves with: what its start-up log says, else what TUSK_HTTP_ENGINE and this Node choose (a quiet start says nothing). */
  readonly engine: HttpEngineName;
  /** Everything the process printed so far (for failure messages; only its last ~100 KB once it printed more). */
  output(): string;
  /** What it printed until it was ready (addresses, the publisher's endpoint key), kept whole. */
  readonly startOutput: string;
  /** What it printed on stdout alone: the JSON log. */
  stdout(): string;
  /** True while the child has not exited. */
  alive(): boolean;
  /** SIGTERM, wait for exit; SIGKILL after a timeout. Resolves to the exit code (null if killed). */
  stop(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL, wait for exit. */
  kill9(): Promise<void>;
  /** Stops the process (if running) and removes the data dir. */
  dispose(): Promise<void>;
}

/** The engine a server started with `env` (over this process's environment) serves with, under this Node: as engine.ts chooses it. */
export function expectedEngine(env: NodeJS.ProcessEnv = {}): HttpEngineName {
  const mode = { ...process.env, ...env }.TUSK_HTTP_ENGINE || 'auto';
  return mode === 'node' || (mode === 'auto' && !('module' in uwsAvailability())) ? 'node' : 'uws';
}

/**
 * Whether the servers this suite starts (on TUSK_HTTP_ENGINE's engine, under this Node) run the
 * threads they are asked for: the node engine shares a port between threads from Node 22.12 on,
 * and serves on one thread before (README Known limits).
 */
export function listenerThreadsRun(): boolean {
  return expectedEngine() !== 'node' || NODE_SHARES_PORTS;
}

const ENGINE_LINE = /http engine: (uws|node) /;

export function randomCredentials(prefix = 'TUSK'): Credentials {
  const id = (prefix + randomBytes(12).toString('hex').toUpperCase()).slice(0, 20);
  return { accessKeyId: id, secretAccessKey: randomBytes(30).toString('base64').replace(/[+/=]/g, 'x') };
}

export function makeTempDir(label = 'tusk-e2e-'): string {
  return mkdtempSync(join(tmpdir(), label));
}

export async function startTusk(options: TuskOptions = {}): Promise<TuskServer> {
  if (!existsSync(TUSK_BIN)) {
    throw new Error(`${TUSK_BIN} is missing: run \`npm run build\` before the e2e tests`);
  }
  const ownsDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? makeTempDir();
  const supplied = options.root === 'generated' ? undefined : options.root ?? randomCredentials();
  const extraAccounts = options.extraAccounts ?? [];
  const region = options.region ?? 'us-east-1';
  if (extraAccounts.length > 0) {
    writeFileSync(join(dataDir, 'accounts.json'), JSON.stringify({ accounts: extraAccounts }));
  }

  const quietPort = options.quiet ? await freePort('127.0.0.1') : 0;
  const args = [TUSK_BIN, 'serve', '--listen', `127.0.0.1:${quietPort}`, '--data-dir', dataDir];
  // the S3 tests need no publisher; tests of both faces pass a listener (e.g. 127.0.0.1:0) and extra flags
  args.push('--publisher-listen', options.publisherListen ?? 'off', '--console-listen', options.consoleListen ?? 'off', ...(options.extraArgs ?? []));
  args.push('--durability', options.durability ?? 'relaxed');
  if (options.region) args.push('--region', options.region);
  if (options.domains?.length) args.push('--domain', options.domains.join(','));

  // '' counts as unset (config.ts), whatever the test runner's own environment holds
  const env = { ...options.env, TUSK_ACCESS_KEY_ID: supplied?.accessKeyId ?? '', TUSK_SECRET_ACCESS_KEY: supplied?.secretAccessKey ?? '' };
  const ready = options.quiet ? healthReady(quietPort) : READY_LINE;
  const child = options.tmpfsBytes
    ? await spawnUntil(onTmpfs(options.tmpfsBytes, dataDir, [process.execPath, ...args]), ready, {
        command: 'unshare',
        env,
        startTimeoutMs: options.startTimeoutMs ?? START_TIMEOUT_MS,
        label: 'tusk on tmpfs',
      })
    : await spawnUntil(args, ready, { env, startTimeoutMs: options.startTimeoutMs ?? START_TIMEOUT_MS, label: 'tusk' });
  const port = Number(child.match[2]);
  // TUSK_HTTP_ENGINE (inherited) runs the suite on one engine: make sure the server took it (a quiet
  // one does not say)
  const engine = { ...process.env, ...options.env }.TUSK_HTTP_ENGINE;
  if ((engine === 'node' || engine === 'uws') && !options.quiet && !child.output().includes(`http engine: ${engine} `)) {
    await child.stop(DISPOSE_TIMEOUT_MS);
    throw new Error(`TUSK_HTTP_ENGINE=${engine}, but the server says otherwise:\n${child.output()}`);
  }
  const root = supplied ?? (JSON.parse(readFileSync(join(dataDir, 'root-credentials.json'), 'utf8')) as Credentials);
  const said = ENGINE_LINE.exec(child.output())?.[1] as HttpEngineName | undefined;

  return {
    port,
    endpoint: `${child.match[1]}://127.0.0.1:${port}`,
    pid: child.pid,
    dataDir,
    region,
    root,
    extraAccounts,
    engine: said ?? expectedEngine(options.env),
    output: child.output,
    startOutput: child.output(),
    stdout: child.stdout,
    alive: child.alive,
    stop: child.stop,
    kill9: child.kill9,
    async dispose() {
      await child.stop(DISPOSE_TIMEOUT_MS);
      if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Up once plain HTTP /tusk/health/ready on `port` says the start-up is done (its stage `up`, even
 * when a disk reserve keeps it not ready); matches as READY_LINE would (scheme, port).
 */
function healthReady(port: number): ReadyProbe {
  const endpoint = `http://127.0.0.1:${port}`;
  return async () => {
    const { stage } = (await (await fetch(`${endpoint}/tusk/health/ready`)).json()) as { stage?: string };
    return stage === 'up' ? /^(https?):\/\/127\.0\.0\.1:(\d+)$/.exec(endpoint) ?? undefined : undefined;
  };
}

/** The first match of `pattern` in what a process printed, waiting for it to appear. */
export async function waitForOutput(output: () => string, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(output());
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Everything `server` printed that is still kept: what it printed until ready, kept whole, then `output()`, which keeps only a tail. */
export function printedBy(server: Pick<TuskServer, 'output' | 'startOutput'>): () => string {
  return () => `${server.startOutput}\n${server.output()}`;
}

/** The publisher `server` started (`--publisher-listen`): its URL and endpoint key, once its log names them. */
export async function publisherOf(server: Pick<TuskServer, 'output' | 'startOutput'>): Promise<{ url: string; key: string }> {
  const printed = printedBy(server);
  const [, url] = await waitForOutput(printed, /publisher listening on (http:\/\/[^\s"]+)/);
  const [, key] = await waitForOutput(printed, /publisher endpoint key: ([^\s"]+)/);
  return { url: url!, key: key! };
}

/** `unshare` arguments that mount a tmpfs of `bytes` over `dir`, then exec `command` (as root, or
 * as a user mapped to root in a user namespace of its own). */
function onTmpfs(bytes: number, dir: string, command: string[]): string[] {
  const asUser = process.getuid?.() === 0 ? [] : ['--map-root-user'];
  const script = 'size=$1; dir=$2; shift 2; mount -t tmpfs -o "size=$size" tmpfs "$dir" && exec "$@"';
  return [...asUser, '--mount', 'sh', '-c', script, 'sh', String(bytes), dir, ...command];
}

/** Resident set size of a process in bytes, from /proc/<pid>/status (Linux). */
export async function readRssBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}
