// kill -9 in the middle of a write storm: every acknowledged write must survive, untorn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compileStoreForChild, open, readAll, tempDir } from './helpers.js';

let outDir = '';

/** Deterministic body for a key: sizes from empty to a few hundred KiB (buffered and streamed paths).
 * Kept as source text: the child process runs the very same function. */
const BODY_FOR_SOURCE = `function bodyFor(key) {
  const seed = createHash('sha256').update(key).digest();
  const size = [0, 1, 3000, 70000, 300000][seed[0] % 5];
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i += 32) seed.copy(out, i, 0, Math.min(32, size - i));
  return out;
}`;
const bodyFor = new Function('createHash', `return ${BODY_FOR_SOURCE}`)(createHash) as (key: string) => Buffer;

const CHILD = `
import { createHash } from 'node:crypto';
const { openStore } = await import(process.argv[2]);
${BODY_FOR_SOURCE}
const store = await openStore({ dataDir: process.argv[3], durability: 'strict', segmentSize: 4 << 20 });
await store.createBucket({ name: 'b', owner: 'o', created: 0, acl: 'private', objectLock: false, versioning: 'Unversioned' });
let n = 0;
async function worker(w) {
  for (;;) {
    const key = 'w' + w + '/' + (n++);
    const body = bodyFor(key);
    const writer = store.beginWrite(body.length);
    for (let i = 0; i < body.length; i += 16384) await writer.write(Buffer.from(body.subarray(i, i + 16384)));
    await writer.commit('b', key, { etag: key, lastModified: Date.now(), attrs: { contentType: 'x' } });
    process.stdout.write('ACK ' + key + '\\n');
  }
}
for (let w = 0; w < 8; w++) worker(w);
`;

describe('crash safety (kill -9)', () => {
  beforeAll(() => {
    outDir = compileStoreForChild('tusk-store-crash');
    fs.writeFileSync(path.join(outDir, 'child.mjs'), CHILD);
  }, 120_000);
  afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

  it('keeps every acknowledged write after SIGKILL, for several crash points', async () => {
    const dir = tempDir();
    const acked: string[] = [];
    let truncated = 0;
    let interrupted = 0;
    try {
      for (const killAfter of [25, 60, 110]) {
        const child = spawn(process.execPath, [path.join(outDir, 'child.mjs'), path.join(outDir, 'store/index.js'), dir], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let buffered = '';
        let count = 0;
        await new Promise<void>((resolve) => {
          child.stdout.on('data', (d: Buffer) => {
            buffered += d.toString();
            const lines = buffered.split('\n');
            buffered = lines.pop()!;
            for (const line of lines) {
              acked.push(line.slice(4));
              if (++count === killAfter) child.kill('SIGKILL');
            }
          });
          child.on('exit', () => resolve());
        });
        expect(count).toBeGreaterThanOrEqual(killAfter);

        const store = await open(dir);
        const { recovery } = store.stats();
        truncated += recovery.truncatedBytes;
        interrupted += recovery.truncatedBytes + recovery.replay.found;
        try {
          for (const key of acked) {
            const record = store.getObject('b', key);
            expect(record, key).toBeDefined();
            expect((await readAll(store, record!)).equals(bodyFor(key)), key).toBe(true);
          }
        } finally {
          await store.close();
        }
      }
      // Eight writers were mid-upload at each kill: recovery really had work to do, torn tails to
      // cut or logged operations past the durable index (small writes going out together at the end
      // of a turn leave a torn tail less often than they did).
      expect(interrupted, `truncated ${truncated} bytes in all`).toBeGreaterThan(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
