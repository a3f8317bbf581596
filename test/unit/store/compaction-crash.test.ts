// kill -9 while writers overwrite and delete and compaction runs: every acknowledged write reads
// back byte-identical, every acknowledged delete stays deleted, nothing unacknowledged and torn is
// visible, and after a full compaction the segments hold little more than the live bytes.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileStoreForChild, open, readAll, segmentBytes, tempDir } from './helpers.js';

const SEGMENT = 512 * 1024;

/** Deterministic body of write `n` to `key`; kept as source text: the child runs the same function. */
const BODY_SOURCE = `function bodyOf(key, n) {
  const size = [0, 100, 5000, 70000, 200000][(key.length * 7 + n * 13) % 5];
  const b = Buffer.alloc(size);
  const stamp = key + '#' + n + ';';
  for (let i = 0; i < size; i += stamp.length) b.write(stamp, i);
  return b;
}`;
const bodyOf = new Function(`return ${BODY_SOURCE}`)() as (key: string, n: number) => Buffer;

const CHILD = `
const { openStore } = await import(process.argv[2]);
${BODY_SOURCE}
const store = await openStore({ dataDir: process.argv[3], durability: 'strict', segmentSize: ${SEGMENT} });
await store.createBucket({ name: 'b', owner: 'o', created: 0, acl: 'private', objectLock: false, versioning: 'Unversioned' });
const say = (line) => process.stdout.write(line + '\\n');
let n = Number(process.argv[4]);
async function worker(w) {
  for (;;) {
    const key = 'w' + w + '/k' + (n % 6);
    const op = ++n;
    if (op % 4 === 0) {
      say('BEGIN ' + key + ' DEL');
      await store.deleteObject('b', key);
      say('ACK ' + key + ' DEL');
      continue;
    }
    const body = bodyOf(key, op);
    say('BEGIN ' + key + ' ' + op);
    const writer = store.beginWrite(body.length);
    for (let i = 0; i < body.length; i += 16384) await writer.write(Buffer.from(body.subarray(i, i + 16384)));
    await writer.commit('b', key, { etag: String(op), lastModified: Date.now(), attrs: undefined });
    say('ACK ' + key + ' ' + op);
  }
}
for (let w = 0; w < 6; w++) worker(w);
(async () => {
  for (;;) {
    const report = await store.compact({ minDeadRatio: 0.2, bytesPerSecond: 64 << 20 });
    if (report.recordsMoved + report.segmentsDeleted > 0) say('COMPACTED ' + report.recordsMoved + ' ' + report.segmentsDeleted);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
})();
`;

let outDir = '';

describe('crash safety with compaction running (kill -9)', () => {
  beforeAll(() => {
    outDir = compileStoreForChild('tusk-compaction-crash');
    fs.writeFileSync(path.join(outDir, 'child.mjs'), CHILD);
  }, 120_000);
  afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

  it('loses no acknowledged write or delete, shows nothing torn, and leaks no space', async () => {
    const dir = tempDir();
    /** key → states in order: a write number, 'DEL', each with whether it was acknowledged */
    const history = new Map<string, Array<{ state: number | 'DEL'; acked: boolean }>>();
    let compactions = 0;
    try {
      for (const [round, killAfter] of [300, 500, 700].entries()) {
        const child = spawn(process.execPath, [path.join(outDir, 'child.mjs'), path.join(outDir, 'store/index.js'), dir, String(round * 100_000)], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let buffered = '';
        let lines = 0;
        await new Promise<void>((resolve) => {
          child.stdout.on('data', (d: Buffer) => {
            buffered += d.toString();
            const all = buffered.split('\n');
            buffered = all.pop()!;
            for (const line of all) {
              const [what, key, op] = line.split(' ') as [string, string, string];
              if (what === 'COMPACTED') {
                compactions++;
                continue;
              }
              const state = op === 'DEL' ? ('DEL' as const) : Number(op);
              const list = history.get(key) ?? [];
              history.set(key, list);
              if (what === 'BEGIN') list.push({ state, acked: false });
              else list.find((e) => e.state === state && !e.acked)!.acked = true;
              if (++lines === killAfter) child.kill('SIGKILL');
            }
          });
          child.on('exit', () => resolve());
        });

        const store = await open(dir, { segmentSize: SEGMENT });
        try {
          for (const [key, list] of history) {
            const lastAcked = list.map((e) => e.acked).lastIndexOf(true);
            const allowed = (lastAcked >= 0 ? list.slice(lastAcked) : [{ state: 'DEL' as const, acked: true }, ...list]).map((e) => e.state);
            const v = store.getObject('b', key);
            const where = `round ${round}, ${key}`;
            if (!v) {
              expect(allowed, `${where}: deleted, but the last acknowledged state is ${String(allowed[0])}`).toContain('DEL');
              history.set(key, [{ state: 'DEL', acked: true }]);
              continue;
            }
            const n = Number(v.etag);
            expect(allowed, `${where}: holds write ${n}`).toContain(n);
            expect((await readAll(store, v)).equals(bodyOf(key, n)), `${where}: write ${n} torn`).toBe(true);
            history.set(key, [{ state: n, acked: true }]);
          }
        } finally {
          await store.close();
        }
      }

      expect(compactions, 'compaction ran while writers wrote').toBeGreaterThan(0);
      // a full compaction after the last crash: the segments hold the live bytes, within 10% + one segment
      const store = await open(dir, { segmentSize: SEGMENT });
      try {
        await store.compact({ minDeadRatio: 0.0001, bytesPerSecond: 1e12 });
        let live = 0;
        for (const key of history.keys()) live += store.getObject('b', key)?.size ?? 0;
        const records = history.size * 200; // header, trailer and key of each live record
        expect(segmentBytes(dir)).toBeLessThanOrEqual((live + records) * 1.1 + SEGMENT + 32);
        for (const key of history.keys()) {
          const v = store.getObject('b', key);
          if (v) expect((await readAll(store, v)).equals(bodyOf(key, Number(v.etag)))).toBe(true);
        }
      } finally {
        await store.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
