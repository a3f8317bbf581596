#!/usr/bin/env node
// Does the engine's cost stay flat as the store grows? Loads objects through the engine directly
// (no HTTP: quick), and at each checkpoint (10 thousand, then up to --objects) measures PUT rate,
// GET p50 (index lookup + read of a random object), a LIST page p50 (1000 keys from a random
// start, and a delimiter page) — then closes and reopens the store to time start-up and read RSS.
// Every GET body is checked before anything is reported.
//
// usage: npm run build && node bench/scale.bench.mjs [--objects 1000000] [--size 64] [--durability relaxed|strict]
//          [--out bench/results/scale.md]
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../dist/store/index.js';

const { values: args } = parseArgs({
  options: {
    objects: { type: 'string', default: '1000000' },
    size: { type: 'string', default: '64' },
    durability: { type: 'string', default: 'relaxed' },
    concurrency: { type: 'string', default: '64' },
    out: { type: 'string' },
  },
});
const total = Number(args.objects);
const size = Number(args.size);
const concurrency = Number(args.concurrency);
const checkpoints = [10_000, 100_000, total].filter((n, i, all) => n <= total && all.indexOf(n) === i);

const keyOf = (i) => `data/${String(i % 997).padStart(3, '0')}/${createHash('md5').update(String(i)).digest('hex')}`;
const bodyOf = (i) => Buffer.alloc(size, `${i};`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (ns) => Number(ns) / 1e6;

async function put(store, i) {
  const body = bodyOf(i);
  const w = store.beginWrite(body.length);
  await w.write(body);
  await w.commit('scale', keyOf(i), { etag: String(i), lastModified: Date.now(), attrs: undefined });
}

async function readBody(store, version) {
  const r = store.openRead(version, 0, version.size);
  try {
    const parts = [];
    for (let c = await r.read(1 << 20); c; c = await r.read(1 << 20)) parts.push(Buffer.from(c));
    return Buffer.concat(parts);
  } finally {
    r.close();
  }
}

async function measure(store, loaded) {
  const gets = [];
  for (let n = 0; n < 2000; n++) {
    const i = Math.floor(Math.random() * loaded);
    const t = process.hrtime.bigint();
    const v = store.getObject('scale', keyOf(i));
    const body = await readBody(store, v);
    gets.push(ms(process.hrtime.bigint() - t));
    if (!body.equals(bodyOf(i))) throw new Error(`object ${i} read back wrong`);
  }
  const lists = [];
  const rollups = [];
  for (let n = 0; n < 200; n++) {
    const start = keyOf(Math.floor(Math.random() * loaded));
    let t = process.hrtime.bigint();
    const page = store.list('scale', { prefix: '', delimiter: '', startAfter: start, maxKeys: 1000 });
    lists.push(ms(process.hrtime.bigint() - t));
    if (page.items.length === 0 && loaded > 2000) throw new Error('empty page');
    t = process.hrtime.bigint();
    store.list('scale', { prefix: 'data/', delimiter: '/', startAfter: '', maxKeys: 1000 });
    rollups.push(ms(process.hrtime.bigint() - t));
  }
  return { getP50: median(gets), listP50: median(lists), rollupP50: median(rollups) };
}

const dir = mkdtempSync(join(tmpdir(), 'tusk-scale-'));
const rows = [];
try {
  let store = await openStore({ dataDir: dir, durability: args.durability, diskReserve: 1 });
  await store.createBucket({ name: 'scale', owner: 'o', created: Date.now(), acl: 'private', objectLock: false, versioning: 'Unversioned' });
  let loaded = 0;
  for (const target of checkpoints) {
    const t0 = process.hrtime.bigint();
    const from = loaded;
    let next = loaded;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < target) await put(store, next++);
      }),
    );
    loaded = target;
    const putRate = (target - from) / (ms(process.hrtime.bigint() - t0) / 1000);
    const m = await measure(store, loaded);
    await store.close();
    const t1 = process.hrtime.bigint();
    store = await openStore({ dataDir: dir, durability: args.durability, diskReserve: 1 });
    const startMs = ms(process.hrtime.bigint() - t1);
    const rss = process.memoryUsage().rss / 2 ** 20;
    rows.push({ objects: target, putRate, ...m, startMs, rssMiB: rss });
    console.log(JSON.stringify(rows.at(-1)));
  }
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const f = (x, d = 2) => x.toFixed(d);
const table = [
  `Engine scale run (bench/scale.bench.mjs; ${size}-byte objects, ${args.durability} durability, ${concurrency} writers; ${new Date().toISOString().slice(0, 10)})`,
  '',
  '| objects | PUT obj/s (this step) | GET p50 ms | LIST 1000-key page p50 ms | LIST delimiter page p50 ms | start-up ms | RSS MiB |',
  '|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.objects.toLocaleString('en')} | ${f(r.putRate, 0)} | ${f(r.getP50, 3)} | ${f(r.listP50)} | ${f(r.rollupP50)} | ${f(r.startMs, 0)} | ${f(r.rssMiB, 0)} |`),
  '',
];
console.log(table.join('\n'));
if (args.out) writeFileSync(args.out, table.join('\n'));
