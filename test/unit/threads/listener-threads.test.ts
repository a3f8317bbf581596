// Starting listener threads (src/http/listener-threads.ts) with stand-in workers that post what a real
// one posts: the start resolves once every thread is ready; a thread that fails, errs or ends
// during start-up fails the start and the others are ended; later messages reach `onMessage`, a
// later error is logged and the thread replaced, and `closed` settles on the thread's own message
// or on its end.

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startListenerThreads } from '../../../src/http/listener-threads.js';

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
    const { threads, stop } = await startListenerThreads<{ t: 'note'; n: number }>({
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
    await stop();
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

  it('logs a thread that fails after the start and starts a new one in its place; the others keep running', async () => {
    const logged: string[] = [];
    const exits: number[] = [];
    const notes: Array<[unknown, number]> = [];
    const spawned: number[] = [];
    let replacedIndex: (i: number) => void = () => undefined;
    const replaced = new Promise<number>((resolve) => (replacedIndex = resolve));
    const group = await startListenerThreads<{ t: 'note'; n: number }>({
      count: 2,
      label: 'test thread',
      log: (l) => logged.push(l),
      spawn: (i) => {
        spawned.push(i);
        return stand(i, `post({ t: 'note', n: index }); post({ t: 'ready' }); parentPort.on('message', (m) => { if (m === 'crash') throw new Error('late'); });`);
      },
      onMessage: (m, i) => notes.push([m, i]),
      onExit: (i) => exits.push(i),
      onReplaced: (i) => replacedIndex(i),
    });
    const [first, second] = group.threads;
    first!.worker.postMessage('crash');
    await first!.exited;
    expect(await replaced).toBe(0);
    expect(exits).toEqual([0]);
    expect(spawned).toEqual([0, 1, 0]);
    expect(logged).toEqual([
      expect.stringMatching(/^test thread 1 failed: [^]*late/),
      // it lived for less than 10 s: the new one starts after a pause
      expect.stringMatching(/^test thread 1 ended; starting a new one in 500 ms$/),
    ]);
    expect(group.threads[0]).not.toBe(first);
    expect(group.threads[0]!.worker.threadId).toBeGreaterThan(0);
    expect(group.threads[1]).toBe(second);
    expect(notes.filter(([, i]) => i === 0)).toHaveLength(2);
    await group.stop();
    await Promise.all(group.threads.map((t) => t.worker.terminate()));
  });

  it('starts no new thread once stopped', async () => {
    let spawns = 0;
    const group = await startListenerThreads({
      count: 1,
      label: 'test thread',
      log: () => undefined,
      spawn: (i) => {
        spawns++;
        return stand(i, `post({ t: 'ready' }); parentPort.on('message', () => process.exit(0));`);
      },
    });
    await group.stop();
    const [only] = group.threads;
    only!.worker.postMessage('end');
    await only!.exited;
    await new Promise((r) => setTimeout(r, 700));
    expect(spawns).toBe(1);
    expect(group.threads[0]).toBe(only);
  });

  it('tries again, with a longer pause, while a new thread cannot start', async () => {
    const logged: string[] = [];
    let spawns = 0;
    let wasReplaced: () => void = () => undefined;
    const replaced = new Promise<void>((resolve) => (wasReplaced = resolve));
    const group = await startListenerThreads({
      count: 1,
      label: 'test thread',
      log: (l) => logged.push(l),
      spawn: (i) => {
        spawns++;
        // the first ends at once; the second cannot listen; the third runs
        const body = spawns === 1 ? `post({ t: 'ready' }); setTimeout(() => process.exit(0), 10);` : spawns === 2 ? `post({ t: 'failed', message: 'port taken' });` : `post({ t: 'ready' }); setInterval(() => {}, 1000);`;
        return stand(i, body);
      },
      onReplaced: () => wasReplaced(),
    });
    await replaced;
    expect(spawns).toBe(3);
    expect(logged).toEqual([
      'test thread 1 ended; starting a new one in 500 ms',
      'test thread 1 did not start again: test thread 1: port taken',
      'test thread 1 ended; starting a new one in 1000 ms',
    ]);
    await group.stop();
    await Promise.all(group.threads.map((t) => t.worker.terminate()));
  });
});
