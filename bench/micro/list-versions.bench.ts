// Micro benchmark: one 1000-entry ListObjectVersions page deep inside one key with 100 000
// versions vs one ListObjects page of plain keys (issue 11: listing versions pages at the same cost
// as listing keys). Pages start at a random position: a key marker + version-id marker inside the
// hot key, a start-after among the plain keys. Verifies pages before timing.
// Run: npx vitest bench --run --passWithNoTests bench/micro/list-versions.bench.ts
// (LIST_VERSIONS_BENCH_N versions and keys, default 100000; LIST_VERSIONS_BENCH_TIME_MS per task, default 1000)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { openStore, type SegmentStore } from '../../src/store/index.js';
import { internalObjectMeta } from '../../src/store/object-meta.js';

const N = Number(process.env.LIST_VERSIONS_BENCH_N ?? 100_000);
const TIME_MS = Number(process.env.LIST_VERSIONS_BENCH_TIME_MS ?? 1000);
const PAGE = 1000;
const BATCH = 500;
const body = Buffer.alloc(16, 7);

async function putOne(store: SegmentStore, bucket: string, key: string): Promise<void> {
  const w = store.beginWrite(body.length);
  await w.write(body);
  await w.commit(bucket, key, internalObjectMeta('0'.repeat(32)));
}

const keyOf = (i: number) => `k/${String(i).padStart(7, '0')}`;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-list-versions-bench-'));
  const store = await openStore({ dataDir: dir, durability: 'relaxed' });
  try {
    const base = { owner: 'o', created: 0, acl: 'private', objectLock: false } as const;
    await store.createBucket({ ...base, name: 'versions', versioning: 'Enabled' });
    await store.createBucket({ ...base, name: 'plain', versioning: 'Unversioned' });
    const started = Date.now();
    // concurrent commits share LMDB transactions; the version order is read back below
    for (let i = 0; i < N; i += BATCH) {
      const n = Math.min(BATCH, N - i);
      await Promise.all(Array.from({ length: n }, () => putOne(store, 'versions', 'hot')));
      await Promise.all(Array.from({ length: n }, (_, j) => putOne(store, 'plain', keyOf(i + j))));
    }
    /** version ids oldest first, from a full paged listing */
    const ids: string[] = [];
    for (let marker = { keyMarker: '', versionIdMarker: '' }; ;) {
      const page = store.listVersions('versions', { prefix: '', delimiter: '', ...marker, maxKeys: PAGE });
      for (const item of page.items) if (item.kind === 'version') ids.push(item.version.versionId);
      if (!page.isTruncated) break;
      marker = { keyMarker: page.nextKeyMarker!, versionIdMarker: page.nextVersionIdMarker! };
    }
    assert.equal(ids.length, N);
    assert.deepEqual([...ids].sort().reverse(), ids, 'newest first');
    ids.reverse();
    console.log(`prepared ${N} versions of one key and ${N} plain keys in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // Verify before timing: a page inside the hot key, newest first, and a page of plain keys.
    const at = Math.floor(N / 2);
    const vpage = store.listVersions('versions', { prefix: '', delimiter: '', keyMarker: 'hot', versionIdMarker: ids[at]!, maxKeys: PAGE });
    assert.equal(vpage.items.length, PAGE);
    assert.equal(vpage.isTruncated, true);
    const first = vpage.items[0]!;
    assert.ok(first.kind === 'version' && first.version.versionId === ids[at - 1] && !first.isLatest);
    const ppage = store.list('plain', { prefix: '', delimiter: '', startAfter: keyOf(at), maxKeys: PAGE });
    assert.equal(ppage.items.length, PAGE);
    const p0 = ppage.items[0]!;
    assert.ok(p0.kind === 'object' && p0.record.key === keyOf(at + 1));

    const pick = () => PAGE + Math.floor(Math.random() * (N - 2 * PAGE));
    const bench = new Bench({ time: TIME_MS, warmup: true });
    bench
      .add(`ListObjectVersions page of ${PAGE}, one key with ${N} versions`, () => {
        const page = store.listVersions('versions', { prefix: '', delimiter: '', keyMarker: 'hot', versionIdMarker: ids[pick()]!, maxKeys: PAGE });
        if (page.items.length !== PAGE) throw new Error('short page');
      })
      .add(`ListObjects page of ${PAGE}, ${N} plain keys`, () => {
        const page = store.list('plain', { prefix: '', delimiter: '', startAfter: keyOf(pick()), maxKeys: PAGE });
        if (page.items.length !== PAGE) throw new Error('short page');
      })
      .add(`ListObjectVersions page of ${PAGE}, ${N} plain keys`, () => {
        const page = store.listVersions('plain', { prefix: '', delimiter: '', keyMarker: keyOf(pick()), versionIdMarker: '', maxKeys: PAGE });
        if (page.items.length !== PAGE) throw new Error('short page');
      });
    await bench.run();
    const rows = bench.tasks.map((t) => {
      const r = t.result as unknown as { latency: { p50?: number; p99?: number; mean: number } };
      return {
        task: t.name,
        'p50 ms': Number((r.latency.p50 ?? r.latency.mean).toFixed(3)),
        'p99 ms': Number((r.latency.p99 ?? r.latency.mean).toFixed(3)),
        'entries/s': Math.round(PAGE / ((r.latency.p50 ?? r.latency.mean) / 1000)),
      };
    });
    console.table(rows);
    console.log(JSON.stringify(rows));
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
