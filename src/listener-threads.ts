// Starting worker threads that join a listening port (threads/front-threads.ts for `tusk serve`,
// publisher/nodes/node-threads.ts for `tusk storage-node`). Each worker posts `ready` once its
// listener is up (or `failed` with why not), and `closed` once its listener drained at shutdown;
// whatever else it posts goes to `onMessage`.

import type { Worker } from 'node:worker_threads';

export interface ListenerThread {
  worker: Worker;
  /** after its `closed` message, or once it ended anyway */
  closed: Promise<void>;
  /** the thread ended */
  exited: Promise<void>;
}

type Lifecycle = { t: 'ready' } | { t: 'failed'; message: string } | { t: 'closed' };

/**
 * Starts `count` threads (`spawn(i)` makes thread i + 1) and resolves once every one is ready. If
 * one fails, errs or ends during start-up, every thread is terminated and the start fails. A
 * thread that errs later is logged; the others keep serving.
 */
export async function startListenerThreads<M extends { t: string }>(o: {
  count: number;
  /** names a thread in errors and logs: `${label} ${i + 1}` */
  label: string;
  spawn: (index: number) => Worker;
  onMessage?: (message: M, index: number) => void;
  log: (line: string) => void;
}): Promise<ListenerThread[]> {
  const threads: ListenerThread[] = [];
  const started = Array.from({ length: o.count }, (_, i) => {
    const name = `${o.label} ${i + 1}`;
    const worker = o.spawn(i);
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    let closed: () => void = () => undefined;
    threads.push({ worker, exited, closed: Promise.race([new Promise<void>((resolve) => (closed = resolve)), exited]) });
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (m: Lifecycle | M) => {
        if (m.t === 'ready') resolve();
        else if (m.t === 'failed') reject(new Error(`${name}: ${(m as { message: string }).message}`));
        else if (m.t === 'closed') closed();
        else o.onMessage?.(m as M, i);
      });
      worker.on('error', (e) => {
        o.log(`${name} failed: ${e.stack ?? e}`);
        reject(e);
      });
      void exited.then(() => reject(new Error(`${name} ended during start-up`)));
    });
  });
  try {
    await Promise.all(started);
  } catch (e) {
    await Promise.all(threads.map((t) => t.worker.terminate()));
    throw e;
  }
  return threads;
}
