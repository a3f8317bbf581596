// kill -9 during SSE-KMS writes (issue 37): concurrent aws:kms PUTs under a customer key that is
// rotated while they run (the key store rewritten under the writes), SIGKILL at a random moment,
// restart on the same data directory. Every acknowledged object reads back byte-identical and
// names its key; an unacknowledged one is absent or a version written to its key, never torn.

import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { s3Request } from './helpers/clients.js';
import { runCrashRounds } from './helpers/crash-rounds.js';
import { makeTempDirFixture, type SentBody } from './helpers/fixtures.js';
import { randomCredentials, type TuskServer } from './helpers/server.js';

const ROUNDS = 3;
const WRITERS = 3;
const KEYS_PER_WRITER = 4;
const KEY_ID = 'crash-key';
const SSE = { 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': KEY_ID };

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const dir = makeTempDirFixture();
afterAll(() => dir.remove());

/** An admin API call signed with the root key (src/admin/api.ts). */
const adminCall = (s: TuskServer, method: string, path: string, body: object = {}) =>
  s3Request(s, { method, path: `/tusk/admin/v1/${path}`, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('kill -9 during SSE-KMS writes', () => {
  it(`keeps every acknowledged aws:kms object readable, with key rotations in between (${ROUNDS} rounds)`, async () => {
    const seed = Number(process.env.TUSK_CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const bucket = 'kms-crash';
    const history = new Map<string, SentBody[]>();
    let acked = 0;
    let arn = '';
    const refused: string[] = [];

    const verify = async (s: TuskServer, round: number) => {
      for (const [key, versions] of history) {
        const lastAcked = versions.map((v) => v.acked).lastIndexOf(true);
        const allowed = lastAcked >= 0 ? versions.slice(lastAcked) : versions;
        const res = await s3Request(s, { method: 'GET', bucket, key });
        const where = `seed ${seed}, round ${round}, key ${key}`;
        if (res.status === 404) {
          expect(lastAcked, `${where}: acknowledged object lost`).toBe(-1);
          continue;
        }
        expect(res.status, `${where}: ${res.text().slice(0, 300)}`).toBe(200);
        expect(res.headers['x-amz-server-side-encryption-aws-kms-key-id'], where).toBe(arn);
        const got = md5(res.body);
        expect(allowed.map((v) => v.md5), `${where}: not a version written to this key (torn?)`).toContain(got);
        history.set(key, [{ md5: got, size: res.body.length, acked: true }]);
      }
    };

    await runCrashRounds({
      dataDir: dir.path, root: randomCredentials(), bucket, rounds: ROUNDS, workers: WRITERS, rand, minMs: 300, spanMs: 900, verify,
      async work(s, round, w, stopped) {
        if (round === 0 && w === 0) {
          const created = await adminCall(s, 'POST', 'kms/keys', { id: KEY_ID });
          expect(created.status, created.text()).toBe(201);
          arn = (JSON.parse(created.text()) as { key: { Arn: string } }).key.Arn;
        }
        while (!arn && !stopped()) await new Promise((r) => setTimeout(r, 10));
        let writes = 0;
        while (!stopped()) {
          // a rotation now and then: the key store is rewritten while objects are written under it
          if (w === 0 && writes++ % 4 === 3) {
            await adminCall(s, 'POST', `kms/keys/${KEY_ID}/rotate`).catch(() => undefined);
            continue;
          }
          const key = `w${w}/k${Math.floor(rand() * KEYS_PER_WRITER)}`;
          const body = randomBytes(Math.floor(rand() * 200 * 1024));
          const version: SentBody = { md5: md5(body), size: body.length, acked: false };
          history.set(key, [...(history.get(key) ?? []), version]);
          try {
            const res = await s3Request(s, { method: 'PUT', bucket, key, body, headers: SSE });
            if (res.status === 200) {
              expect(res.headers['x-amz-server-side-encryption-aws-kms-key-id']).toBe(arn);
              version.acked = true;
              acked += 1;
            } else {
              // answered, not acknowledged: only a refusal of this test's own making would be here
              refused.push(`${res.status} ${res.text().slice(0, 200)}`);
            }
          } catch {
            return; // connection died with the server
          }
        }
      },
    });
    expect(acked, `seed ${seed}`).toBeGreaterThan(0);
    expect(refused, `seed ${seed}`).toEqual([]);
  }, 120_000);
});
