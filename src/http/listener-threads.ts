// Starting worker threads that join a listening port (threads/front-threads.ts for `tusk serve`,
// publisher/nodes/node-threads.ts for `tusk storage-node`), and keeping them running. Each worker
// posts `ready` once its listener is up (or `failed` with why not), and `closed` once its listener
// drained at shutdown; whatever else it posts goes to `onMessage`. A thread that ends after the
// start (an error nobody caught in it: `endOnUncaught`) is replaced by a new one with the same index.

import { parentPort, type Worker } from 'node:worker_threads';
import type { LogLine } from '../log/log-line.js';

export interface ListenerThread {
  worker: Worker;
  /** after its `closed` message, or once it ended anyway */
  closed: Promise<void>;
  /** the thread ended */
  exited: Promise<void>;
}

export interface ListenerThreads {
  /** the running threads: thread i + 1 at [i], replaced in place when one is started again */
  threads: ListenerThread[];
  /** Starts no more replacements and ends those still starting; call before closing the threads. */
  stop(): Promise<void>;
}

export interface ListenerThreadOptions<M> {
  count: number;
  /** names a thread in errors and logs: `${label} ${i + 1}` */
  label: string;
  spawn: (index: number) => Worker;
  onMessage?: (message: M, index: number) => void;
  log: LogLine;
  /** thread `index` ended after the start (its listener is gone); called before a new one is spawned */
  onExit?: (index: number) => void;
  /** a new thread took the place of thread `index` and is ready */
  onReplaced?: (index: number, thread: ListenerThread) => void;
}

/** `ending`: an error nobody caught ends the thread (posted by `endOnUncaught`) */
type Lifecycle = { t: 'ready' } | { t: 'failed'; message: string } | { t: 'closed' } | { t: 'ending'; message: string };

/** A thread that lived less than this before it ended is started again only after a pause. */
const SHORT_LIFE_MS = 10_000;
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 30_000;

/** Spawns thread `i`; `ready` settles once it listens, or fails if it fails, errs or ends first. */
function startOne<M extends { t: string }>(o: ListenerThreadOptions<M>, i: number): { thread: ListenerThread; ready: Promise<void> } {
  const name = `${o.label} ${i + 1}`;
  const worker = o.spawn(i);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let closed: () => void = () => undefined;
  const thread = { worker, exited, closed: Promise.race([new Promise<void>((resolve) => (closed = resolve)), exited]) };
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: Lifecycle | M) => {
      if (m.t === 'ready') resolve();
      else if (m.t === 'failed') reject(new Error(`${name}: ${(m as { message: string }).message}`));
      else if (m.t === 'closed') closed();
      else if (m.t === 'ending') o.log(`${name} failed: ${(m as { message: string }).message}`, 'error');
      else o.onMessage?.(m as M, i);
    });
    worker.on('error', (e) => {
      o.log(`${name} failed: ${e.stack ?? e}`, 'error');
      reject(e);
    });
    void exited.then(() => reject(new Error(`${name} ended during start-up`)));
  });
  return { thread, ready };
}

/**
 * Starts `count` threads (`spawn(i)` makes thread i + 1) and resolves once every one is ready. If
 * one fails, errs or ends during start-up, every thread is terminated and the start fails. A
 * thread that errs later is logged and replaced (after a pause that grows while replacements keep
 * ending soon after their start); the others keep serving meanwhile.
 */
export async function startListenerThreads<M extends { t: string }>(o: ListenerThreadOptions<M>): Promise<ListenerThreads> {
  const starts = Array.from({ length: o.count }, (_, i) => startOne(o, i));
  try {
    await Promise.all(starts.map((s) => s.ready));
  } catch (e) {
    await Promise.all(starts.map((s) => s.thread.worker.terminate()));
    throw e;
  }
  const threads = starts.map((s) => s.thread);
  let stopped = false;
  const starting = new Set<Worker>();
  /** pauses before a replacement: `stop` ends them at once */
  const pauses = new Map<NodeJS.Timeout, () => void>();
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        pauses.delete(timer);
        resolve();
      }, ms);
      timer.unref();
      pauses.set(timer, resolve);
    });

  const supervise = (i: number, thread: ListenerThread, shortLives: number): void => {
    const born = Date.now();
    void thread.exited.then(async () => {
      if (stopped) return;
      o.onExit?.(i);
      let short = Date.now() - born < SHORT_LIFE_MS ? shortLives + 1 : 0;
      for (;;) {
        const wait = short === 0 ? 0 : Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (short - 1));
        o.log(`${o.label} ${i + 1} ended; starting a new one${wait ? ` in ${wait} ms` : ''}`, 'warn');
        if (wait) await pause(wait);
        if (stopped) return;
        const next = startOne(o, i);
        starting.add(next.thread.worker);
        try {
          await next.ready;
        } catch (e) {
          o.log(`${o.label} ${i + 1} did not start again: ${(e as Error).message}`, 'error');
          await next.thread.worker.terminate();
          starting.delete(next.thread.worker);
          short++;
          continue;
        }
        starting.delete(next.thread.worker);
        if (stopped) {
          await next.thread.worker.terminate();
          return;
        }
        threads[i] = next.thread;
        o.onReplaced?.(i, next.thread);
        supervise(i, next.thread, short);
        return;
      }
    });
  };
  threads.forEach((t, i) => supervise(i, t, 0));

  return {
    threads,
    async stop() {
      stopped = true;
      for (const [timer, resolve] of pauses) {
        clearTimeout(timer);
        resolve();
      }
      pauses.clear();
      await Promise.all([...starting].map((w) => w.terminate()));
    },
  };
}

/**
 * The worker's side: an error nobody caught ends this thread, after `close` has closed its
 * listeners (a worker that ends with uWS sockets open aborts the whole process), and its owner
 * starts a new one. Call once the listeners are up.
 */
export function endOnUncaught(close: () => Promise<unknown>): void {
  let ending = false;
  process.on('uncaughtException', (e: Error) => {
    if (ending) return;
    ending = true;
    parentPort!.postMessage({ t: 'ending', message: e?.stack ?? String(e) } satisfies Lifecycle);
    void close()
      .catch(() => undefined)
      .finally(() => process.exit(1));
  });
}
