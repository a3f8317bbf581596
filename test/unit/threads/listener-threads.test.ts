// Starting listener threads (src/listener-threads.ts) with stand-in workers that post what a real
// one posts: the start resolves once every thread is ready; a thread that fails, errs or ends
// during start-up fails the start and the others are ended; later messages reach `onMessage`, a
// later error is logged, and `closed` settles on the thread's own message or on its end.

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startListenerThreads } from '../../../src/listener-threads.js';

/** A worker running `body`, with `post(m)` for parentPort.postMessage and `index` its workerData. */
const stand = (index: number, body: string): Worker =>
  new Worker(
    `const { parentPort, workerData: index } = require('node:worker_threads');
     const post = (m) => parentPort.postMessage(m);
     ${body}`,
    { eval: true, workerData: index },
  );

const waitsForClose = `parentPort.on('message', (m) => { if (m === 'close') { post({ t: 'closed' }); } });`;

describe('listener threads', () => {
  it('starts every thread, relays their other messages, and settles closed on their word', async () => {
    const messages: Array<[unknown, number]> = [];
    const threads = await startListenerThreads<{ t: 'note'; n: number }>({
      count: 3,
      label: 'test thread',
      log: () => undefined,
      spawn: (i) => stand(i, `post({ t: 'note', n: index * 10 }); post({ t: 'ready' }); ${waitsForClose}`),
      onMessage: (m, i) => messages.push([m, i]),
    });
    expect(threads).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 20));
    expect(messages.sort((a, b) => a[1] - b[1])).toEqual([[{ t: 'note', n: 0 }, 0], [{ t: 'note', n: 10 }, 1], [{ t: 'note', n: 20 }, 2]]);
    let closed = false;
    void threads[1]!.closed.then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    threads[1]!.worker.postMessage('close');
    await threads[1]!.closed;
    // a thread that ends without saying so counts as closed too
    await threads[0]!.worker.terminate();
    await threads[0]!.closed;
    await Promise.all(threads.map((t) => t.worker.terminate()));
  });

  it('fails the start when one thread cannot listen, and ends the others', async () => {
    const spawned: Worker[] = [];
    await expect(
      startListenerThreads({
        count: 3,
        label: 'test thread',
        log: () => undefined,
        spawn: (i) => {
          const w = stand(i, i === 2 ? `post({ t: 'failed', message: 'port taken' });` : `post({ t: 'ready' }); setInterval(() => {}, 1000);`);
          spawned.push(w);
          return w;
        },
      }),
    ).rejects.toThrow('test thread 3: port taken');
    // terminated: threadId becomes -1 once a worker has ended
    for (const w of spawned) expect(w.threadId).toBe(-1);
  });

  it('fails the start when a thread ends or throws before it is ready, logging the error', async () => {
    await expect(
      startListenerThreads({ count: 1, label: 'test thread', log: () => undefined, spawn: (i) => stand(i, `process.exit(0);`) }),
    ).rejects.toThrow('test thread 1 ended during start-up');
    const logged: string[] = [];
    await expect(
      startListenerThreads({ count: 2, label: 'test thread', log: (l) => logged.push(l), spawn: (i) => stand(i, i === 1 ? `throw new Error('boom');` : `post({ t: 'ready' });`) }),
    ).rejects.toThrow('boom');
    expect(logged).toEqual([expect.stringMatching(/^test thread 2 failed: [^]*boom/)]);
  });

  it('logs a thread that fails after the start, and keeps the others', async () => {
    const logged: string[] = [];
    const threads = await startListenerThreads({
      count: 2,
      label: 'test thread',
      log: (l) => logged.push(l),
      spawn: (i) => stand(i, `post({ t: 'ready' }); parentPort.on('message', (m) => { if (m === 'crash') throw new Error('late'); });`),
    });
    threads[0]!.worker.postMessage('crash');
    await threads[0]!.exited;
    expect(logged).toEqual([expect.stringMatching(/^test thread 1 failed: [^]*late/)]);
    expect(threads[1]!.worker.threadId).toBeGreaterThan(0);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  });
});
