// Micro benchmark of the storage engine's index paths: small-object PUT (commit incl. group commit)
// in strict and relaxed mode, getObject, and one 1000-item listing page (flat and with a delimiter).
// Verifies the results before timing. Run: npx vitest bench --run bench/micro/index.bench.ts
// (INDEX_BENCH_KEYS to size the bucket, default 20000; INDEX_BENCH_TIME_MS per task, default 1000)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import assert from 'node:assert/strict';
import { openStore, type SegmentStore } from '../../src/store/index.js';
import { internalObjectMeta } from '../../src/store/object-meta.js';

const KEYS = Number(process.env.INDEX_BENCH_KEYS ?? 20_000);
const TIME_MS = Number(process.env.INDEX_BENCH_TIME_MS ?? 1000);
const CONCURRENCY = 64;


const body = Buffer.alloc(1024, 7);
async function putOne(store: SegmentStore, key: string): Promise<void> {
  const w = store.beginWrite(body.length);
  await w.write(body);
  await w.commit('b', key, internalObjectMeta('d41d8cd98f00b204e9800998ecf8427e'));
}

/** CONCURRENCY parallel small PUTs: what a loaded server does, and what group commit is for. */
async function putBatch(store: SegmentStore, prefix: string, counter: { n: number }): Promise<void> {
  await Promise.all(Array.from({ length: CONCURRENCY }, () => putOne(store, `${prefix}/${counter.n++}`)));
}

async function main(): Promise<void> {
  const dirs: string[] = [];
  const stores = {} as Record<'strict' | 'relaxed', SegmentStore>;
  for (const durability of ['strict', 'relaxed'] as const) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-index-bench-'));
    dirs.push(dir);
    const store = await openStore({ dataDir: dir, durability });
    await store.createBucket({ name: 'b', owner: 'o', created: 0, acl: 'private', objectLock: false, versioning: 'Unversioned' });
    stores[durability] = store;
  }
  try {
    const store = stores.relaxed;
    for (let i = 0; i < KEYS; i += 500) {
      const n = Math.min(500, KEYS - i);
      await Promise.all(Array.from({ length: n }, (_, j) => putOne(store, keyOf(i + j))));
    }
    // Verify before timing.
    const page = store.list('b', { prefix: '', delimiter: '', startAfter: '', maxKeys: 1000 });
    assert.equal(page.items.length, 1000);
    assert.equal(page.isTruncated, true);
    const rolled = store.list('b', { prefix: '', delimiter: '/', startAfter: '', maxKeys: 1000 });
    assert.equal(rolled.items.length, 100);
    assert.equal(store.getObject('b', keyOf(7))?.size, 1024);

    const bench = new Bench({ time: TIME_MS, warmup: true });
    const counters = { strict: { n: 0 }, relaxed: { n: 0 } };
    let i = 0;
    bench
      .add(`PUT 1 KiB, ${CONCURRENCY} concurrent (strict)`, () => putBatch(stores.strict, 'p', counters.strict))
      .add(`PUT 1 KiB, ${CONCURRENCY} concurrent (relaxed)`, () => putBatch(stores.relaxed, 'p', counters.relaxed))
      .add('getObject (hit)', () => void store.getObject('b', keyOf(i++ % KEYS)))
      .add('list: page of 1000 keys', () => {
        store.list('b', { prefix: '', delimiter: '', startAfter: `dir${i++ % 100}/`, maxKeys: 1000 });
      })
      .add('list: delimiter, 100 CommonPrefixes', () => {
        store.list('b', { prefix: '', delimiter: '/', startAfter: '', maxKeys: 1000 });
      });
    const syncsBefore = stores.strict.stats().fdatasyncs;
    await bench.run();
    console.table(
      bench.tasks.map((t) => {
        const r = t.result;
        const meanMs = 'latency' in r ? r.latency.mean : NaN;
        const perCall = t.name.startsWith('PUT') ? CONCURRENCY : 1;
        return { task: t.name, 'mean ms/call': Number(meanMs.toFixed(4)), 'ops/s': Math.round((1000 / meanMs) * perCall) };
      }),
    );
    const syncs = stores.strict.stats().fdatasyncs - syncsBefore;
    console.log(`strict: ${counters.strict.n} PUTs used ${syncs} segment fdatasyncs (group commit)`);
  } finally {
    for (const s of Object.values(stores)) await s.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

function keyOf(n: number): string {
  return `dir${n % 100}/obj${String(n).padStart(8, '0')}`;
}

// vitest's bench mode collects this file; the measurement itself is plain tinybench.
await main();
