// Crash safety (s3.md §3.13: a new object becomes visible atomically once every check passed):
// concurrent writers, `kill -9` at random moments, restart on the same data dir. Every acknowledged
// PUT must read back byte-identical; an unacknowledged one may be absent or complete, never torn.

import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { s3Request } from './helpers/clients.js';
import { makeTempDirFixture, type SentBody } from './helpers/fixtures.js';
import { runCrashRounds } from './helpers/crash-rounds.js';
import { randomCredentials, type TuskServer } from './helpers/server.js';
import { UNSIGNED_PAYLOAD } from './helpers/sigv4.js';
import { xmlAll } from './helpers/xml.js';

const ROUNDS = 5;
const WRITERS = 4;
const KEYS_PER_WRITER = 5;
const MAX_SIZE = 2 * 1024 * 1024;

type Version = SentBody;

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const dir = makeTempDirFixture();
afterAll(() => dir.remove());

describe('kill -9 during concurrent PUTs', () => {
  it(`keeps every acknowledged object and never shows a torn one (${ROUNDS} rounds)`, async () => {
    const seed = Number(process.env.TUSK_CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const root = randomCredentials();
    const bucket = 'crash-bucket';
    /** key → versions in write order (each key has a single writer, so order is well defined) */
    const history = new Map<string, Version[]>();
    let acked = 0;

    const verify = async (s: TuskServer, round: number) => {
      const listing = await s3Request(s, { method: 'GET', bucket, query: { 'list-type': '2' } });
      expect(listing.status).toBe(200);
      const listed = new Set(xmlAll(listing.text(), 'Key'));
      for (const key of listed) expect(history.has(key), `unknown key ${key} listed`).toBe(true);
      for (const [key, versions] of history) {
        const lastAcked = versions.map((v) => v.acked).lastIndexOf(true);
        // the last acknowledged version, or any later (unacknowledged, possibly committed) one
        const allowed = lastAcked >= 0 ? versions.slice(lastAcked) : versions;
        const res = await s3Request(s, { method: 'GET', bucket, key });
        const where = `seed ${seed}, round ${round}, key ${key}`;
        if (res.status === 404) {
          expect(lastAcked, `${where}: acknowledged object lost`).toBe(-1);
          expect(listed.has(key), `${where}: listed but not readable`).toBe(false);
          continue;
        }
        expect(res.status, where).toBe(200);
        const got = md5(res.body);
        expect(allowed.map((v) => v.md5), `${where}: content is not a version written to this key (torn?)`).toContain(got);
        expect(res.headers['etag']).toBe(`"${got}"`);
        expect(listed.has(key), `${where}: readable but not listed`).toBe(true);
        // collapse history: what is visible now is the only version that can matter from here on
        history.set(key, [{ md5: got, size: res.body.length, acked: true }]);
      }
    };

    await runCrashRounds({
      dataDir: dir.path, root, bucket, rounds: ROUNDS, workers: WRITERS, rand, minMs: 300, spanMs: 1200, verify,
      async work(s, _round, w, stopped) {
        while (!stopped()) {
          const key = `w${w}/k${Math.floor(rand() * KEYS_PER_WRITER)}`;
          // mostly small objects, some up to 2 MiB, some empty
          const r = rand();
          const size = r < 0.1 ? 0 : r < 0.6 ? Math.floor(rand() * 64 * 1024) : Math.floor(rand() * MAX_SIZE);
          const body = randomBytes(size);
          const version: Version = { md5: md5(body), size, acked: false };
          const versions = history.get(key) ?? [];
          versions.push(version);
          history.set(key, versions);
          try {
            const res = await s3Request(s, { method: 'PUT', bucket, key, body, payloadHash: UNSIGNED_PAYLOAD });
            if (res.status === 200) {
              expect(res.headers['etag']).toBe(`"${version.md5}"`);
              version.acked = true;
              acked += 1;
            }
          } catch {
            return; // connection died with the server
          }
        }
      },
    });
    expect(acked, 'the writers must have had acknowledged PUTs to check').toBeGreaterThan(ROUNDS);
    console.info(`crash test: seed ${seed}, ${acked} acknowledged PUTs across ${ROUNDS} kill -9 rounds`);
  }, 240_000);
});
