import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { SyncGroup } from '../../../src/store/sync-group.js';
import { bucket, open, put, readAll, tempDir } from './helpers.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('SyncGroup', () => {
  it('starts a round at the end of the turn, shared by every caller of that turn; a caller during a sync waits for the next round', async () => {
    const rounds: ReturnType<typeof deferred>[] = [];
    const counter = { fdatasyncs: 0 };
    const group = new SyncGroup(() => {
      const d = deferred();
      rounds.push(d);
      return d.promise;
    }, counter);
    const events: string[] = [];
    const first = group.sync().then(() => events.push('first'));
    const second = group.sync().then(() => events.push('second'));
    expect(counter.fdatasyncs).toBe(0); // not yet: the rest of the turn may ask too
    await new Promise((r) => setImmediate(r));
    expect(counter.fdatasyncs).toBe(1);
    // arrives while round 1 runs: its write may have completed after round 1 started
    const third = group.sync().then(() => events.push('third'));
    rounds[0]!.resolve();
    await Promise.all([first, second]);
    await new Promise((r) => setImmediate(r));
    expect(events).toEqual(['first', 'second']);
    expect(counter.fdatasyncs).toBe(2);
    rounds[1]!.resolve();
    await third;
    expect(events).toEqual(['first', 'second', 'third']);
    expect(counter.fdatasyncs).toBe(2);
    await group.idle();
  });

  it('idle() waits for the queued round as well as the running one', async () => {
    const rounds: ReturnType<typeof deferred>[] = [];
    const group = new SyncGroup(() => {
      const d = deferred();
      rounds.push(d);
      return d.promise;
    }, { fdatasyncs: 0 });
    void group.sync();
    let idle = false;
    const waiting = group.idle().then(() => (idle = true));
    await new Promise((r) => setImmediate(r));
    void group.sync(); // queued behind the running round
    rounds[0]!.resolve();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    rounds[1]!.resolve();
    await waiting;
    expect(idle).toBe(true);
  });

  it('propagates a flush failure to the callers of that round only', async () => {
    let fail = true;
    const group = new SyncGroup(async () => {
      if (fail) {
        fail = false;
        throw new Error('EIO');
      }
    }, { fdatasyncs: 0 });
    // the assertions are attached at once: round 1 fails before this test awaits them
    const a = expect(group.sync()).rejects.toThrow('EIO');
    const alsoA = expect(group.sync()).rejects.toThrow('EIO'); // same turn: same round
    await new Promise((r) => setImmediate(r));
    const b = expect(group.sync()).resolves.toBeUndefined(); // during round 1: round 2
    await Promise.all([a, alsoA, b]);
  });
});

describe('store durability modes', () => {
  it('strict: N concurrent commits share far fewer than N fdatasyncs', async () => {
    const dir = tempDir();
    const store = await open(dir);
    try {
      await store.createBucket(bucket('b'));
      const before = store.stats().fdatasyncs;
      const n = 64;
      const bodies = Array.from({ length: n }, () => randomBytes(2_000));
      await Promise.all(bodies.map((body, i) => put(store, 'b', `k${i}`, body)));
      const used = store.stats().fdatasyncs - before;
      expect(used).toBeGreaterThanOrEqual(1);
      expect(used).toBeLessThanOrEqual(n / 4);
      for (let i = 0; i < n; i++) expect((await readAll(store, store.getObject('b', `k${i}`)!)).equals(bodies[i]!)).toBe(true);

      // Sequential commits each need their own sync: the counter really counts.
      const seqBefore = store.stats().fdatasyncs;
      for (let i = 0; i < 5; i++) await put(store, 'b', `seq${i}`, randomBytes(100));
      expect(store.stats().fdatasyncs - seqBefore).toBe(5);
      // one flush per write group: the redo record and the body share it, the index does not wait for its own
      expect(store.stats().indexFlushWaits).toBe(1); // the createBucket above
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('relaxed: no segment fdatasync and no wait for the index flush, data still persists across a clean close', async () => {
    const dir = tempDir();
    let store = await open(dir, { durability: 'relaxed' });
    await store.createBucket(bucket('b'));
    const body = randomBytes(150_000);
    await put(store, 'b', 'k', body);
    await put(store, 'b', 'small', Buffer.from('s'));
    expect(store.stats().fdatasyncs).toBe(0);
    expect(store.stats().indexFlushWaits).toBe(0);
    await store.close();
    store = await open(dir, { durability: 'strict' }); // switching modes across restarts is allowed
    try {
      expect((await readAll(store, store.getObject('b', 'k')!)).equals(body)).toBe(true);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
