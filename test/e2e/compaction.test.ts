// Compaction gives back the dead space of the active segment too (with the default 1 GiB segments a
// store smaller than that lives in its active segment for good): written, mostly deleted, compacted
// by the running server or by `tusk compact`, the data directory shrinks to about what is live and
// every remaining object reads back; `kill -9` while it runs loses nothing acknowledged.

import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { runTuskToExit } from './helpers/child-process.js';
import { s3Request } from './helpers/clients.js';
import { makeTempDirFixture, type SentBody } from './helpers/fixtures.js';
import { runCrashRounds } from './helpers/crash-rounds.js';
import { metricSample } from './helpers/metrics.js';
import { segmentBytes } from './helpers/segments.js';
import { randomCredentials, startTusk, type TuskServer } from './helpers/server.js';
import { UNSIGNED_PAYLOAD } from './helpers/sigv4.js';

const KIB = 1024;
const MIB = 1024 * KIB;
// the 120 MiB written and 108 MiB deleted, scaled down by 10
const OBJECTS = 24;
const OBJECT_SIZE = 512 * KIB;
const KEPT = [3, 11, 17]; // 1.5 of the 12 MiB stay live

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Writes OBJECTS bodies, deletes all but KEPT; answers the kept bodies by key. */
async function writeThenDeleteMost(server: TuskServer, bucket: string): Promise<Map<string, Buffer>> {
  expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
  const kept = new Map<string, Buffer>();
  for (let i = 0; i < OBJECTS; i++) {
    const body = randomBytes(OBJECT_SIZE);
    expect((await s3Request(server, { method: 'PUT', bucket, key: `o${i}`, body, payloadHash: UNSIGNED_PAYLOAD })).status).toBe(200);
    if (KEPT.includes(i)) kept.set(`o${i}`, body);
  }
  for (let i = 0; i < OBJECTS; i++) {
    if (!KEPT.includes(i)) expect((await s3Request(server, { method: 'DELETE', bucket, key: `o${i}` })).status).toBe(204);
  }
  return kept;
}

async function expectKept(server: TuskServer, bucket: string, kept: Map<string, Buffer>): Promise<void> {
  for (const [key, body] of kept) {
    const res = await s3Request(server, { method: 'GET', bucket, key });
    expect(res.status, key).toBe(200);
    expect(md5(res.body), key).toBe(md5(body));
  }
}

const liveBytes = KEPT.length * OBJECT_SIZE;
// the live bodies, their record headers and trailers, and a few redo records and segment headers
const shrunk = liveBytes + 256 * KIB;

describe('compaction of the active segment', () => {
  const dirs: Array<{ remove(): void }> = [];
  afterAll(() => dirs.forEach((d) => d.remove()));
  const fixture = () => {
    const d = makeTempDirFixture();
    dirs.push(d);
    return d.path;
  };

  it('the running server gives back its dead space (--compaction-interval)', async () => {
    const server = await startTusk({ dataDir: fixture(), durability: 'strict', extraArgs: ['--compaction-interval', '1s'] });
    try {
      const kept = await writeThenDeleteMost(server, 'live');
      expect(segmentBytes(server.dataDir)).toBeGreaterThan(OBJECTS * OBJECT_SIZE);
      const after = await eventually(async () => {
        const size = segmentBytes(server.dataDir);
        return size <= shrunk ? size : undefined;
      }, 30_000);
      expect(after, `segments hold ${segmentBytes(server.dataDir)} bytes for ${liveBytes} live`).toBeDefined();
      const metrics = await (await fetch(`${server.endpoint}/tusk/metrics`)).text();
      expect(metricSample(metrics, 'tusk_store_compaction_deleted_segments_total')).toBeGreaterThan(0);
      await expectKept(server, 'live', kept);
      // and it keeps taking writes
      expect((await s3Request(server, { method: 'PUT', bucket: 'live', key: 'later', body: 'x' })).status).toBe(200);
      await server.stop();
      const again = await startTusk({ dataDir: server.dataDir, durability: 'strict' });
      try {
        await expectKept(again, 'live', kept);
      } finally {
        await again.stop();
      }
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('tusk compact gives it back offline', async () => {
    const dataDir = fixture();
    let server = await startTusk({ dataDir, durability: 'strict', extraArgs: ['--compaction-interval', 'off'] });
    const kept = await writeThenDeleteMost(server, 'offline');
    await server.stop();
    const before = segmentBytes(dataDir);
    expect(before).toBeGreaterThan(OBJECTS * OBJECT_SIZE);
    const compact = runTuskToExit(['compact', '--data-dir', dataDir]);
    expect(compact.status, compact.output).toBe(0);
    expect(segmentBytes(dataDir), compact.output).toBeLessThanOrEqual(shrunk);
    server = await startTusk({ dataDir, durability: 'strict', extraArgs: ['--compaction-interval', 'off'] });
    try {
      await expectKept(server, 'offline', kept);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('kill -9 while the active segment is compacted loses nothing acknowledged', async () => {
    const seed = Number(process.env.TUSK_CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const bucket = 'crash';
    /** key → states in order: a body, or a delete (md5 '') */
    const history = new Map<string, SentBody[]>();
    let compacted = 0;
    const dataDir = fixture();
    const verify = async (s: TuskServer, round: number) => {
      for (const [key, states] of history) {
        const lastAcked = states.map((v) => v.acked).lastIndexOf(true);
        const allowed = (lastAcked >= 0 ? states.slice(lastAcked) : [{ md5: '', size: 0, acked: true }, ...states]).map((v) => v.md5);
        const res = await s3Request(s, { method: 'GET', bucket, key });
        const where = `seed ${seed}, round ${round}, ${key}`;
        expect([200, 404], where).toContain(res.status);
        const got = res.status === 404 ? '' : md5(res.body);
        expect(allowed, `${where}: holds ${got || 'nothing'}`).toContain(got);
        history.set(key, [{ md5: got, size: res.body.length, acked: true }]);
      }
    };
    await runCrashRounds({
      dataDir,
      root: randomCredentials(),
      bucket,
      rounds: 4,
      workers: 3,
      rand,
      minMs: 1500,
      spanMs: 2500,
      verify,
      extraArgs: ['--compaction-interval', '200ms', '--compaction-dead', '0.3'],
      async work(s, _round, w, stopped) {
        for (let n = 0; !stopped(); n++) {
          const key = `w${w}/k${Math.floor(rand() * 4)}`;
          const states = history.get(key) ?? [];
          history.set(key, states);
          try {
            if (rand() < 0.3) {
              const state: SentBody = { md5: '', size: 0, acked: false };
              states.push(state);
              state.acked = (await s3Request(s, { method: 'DELETE', bucket, key })).status === 204;
            } else {
              const body = randomBytes(Math.floor(rand() * 300 * KIB));
              const state: SentBody = { md5: md5(body), size: body.length, acked: false };
              states.push(state);
              state.acked = (await s3Request(s, { method: 'PUT', bucket, key, body, payloadHash: UNSIGNED_PAYLOAD })).status === 200;
            }
            if (w === 0 && n % 10 === 9) {
              const metrics = await (await fetch(`${s.endpoint}/tusk/metrics`)).text();
              compacted = Math.max(compacted, metricSample(metrics, 'tusk_store_compaction_segments_total') ?? 0);
            }
          } catch {
            return; // the connection died with the server
          }
        }
      },
    });
    expect(compacted, `seed ${seed}: compaction ran while the writers wrote`).toBeGreaterThan(0);
    // what is left is little more than what is live
    const server = await startTusk({ dataDir, durability: 'strict', extraArgs: ['--compaction-interval', '200ms', '--compaction-dead', '0.3'] });
    try {
      let live = 0;
      for (const [key] of history) {
        const res = await s3Request(server, { method: 'HEAD', bucket, key });
        if (res.status === 200) live += Number(res.headers['content-length']);
      }
      const size = await eventually(async () => {
        const s = segmentBytes(dataDir);
        return s <= live / 0.7 + 2 * MIB ? s : undefined;
      }, 20_000);
      expect(size, `seed ${seed}: ${segmentBytes(dataDir)} segment bytes for ${live} live`).toBeDefined();
    } finally {
      await server.stop();
    }
  }, 240_000);
});
