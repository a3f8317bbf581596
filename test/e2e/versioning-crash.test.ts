// Crash safety of version chains (s3.md §3.0.7): writers PUT, add delete markers and delete
// versions by id concurrently in a versioned bucket; `kill -9` at random moments; restart on the
// same data dir. Every acknowledged version is listed and reads back byte-identical by id, every
// acknowledged marker is listed, acknowledged permanent deletes stay deleted, and each key's
// versions keep their order (newest first = reverse acknowledgment order).

import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { s3Request } from './helpers/clients.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { randomCredentials, startTusk, type TuskServer } from './helpers/server.js';
import { UNSIGNED_PAYLOAD } from './helpers/sigv4.js';
import { versionEntries, xmlText, type VersionEntry } from './helpers/xml.js';

const ROUNDS = Number(process.env.TUSK_CRASH_ROUNDS ?? 3);
const WRITERS = 4;
const KEYS_PER_WRITER = 3;
const MAX_SIZE = 256 * 1024;

interface Item {
  /** unknown for an unacknowledged write */
  versionId?: string;
  marker: boolean;
  md5?: string;
  acked: boolean;
  /** a delete by id was sent: 'acked' once it answered 204 */
  removal?: 'sent' | 'acked';
  /** the answer's status, when one came and was not a success */
  status?: number;
}

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const dir = makeTempDirFixture();
afterAll(() => dir.remove());

async function listAll(s: TuskServer, bucket: string): Promise<VersionEntry[]> {
  const out: VersionEntry[] = [];
  let marker: Record<string, string> = {};
  for (;;) {
    // small pages: paging by key and version-id markers is part of what is checked
    const res = await s3Request(s, { method: 'GET', bucket, query: { versions: '', 'max-keys': '7', ...marker } });
    expect(res.status).toBe(200);
    const xml = res.text();
    out.push(...versionEntries(xml));
    if (xmlText(xml, 'IsTruncated') !== 'true') return out;
    marker = { 'key-marker': xmlText(xml, 'NextKeyMarker')!, 'version-id-marker': xmlText(xml, 'NextVersionIdMarker')! };
  }
}

describe('kill -9 during concurrent versioned writes and deletes', () => {
  it(`keeps every acknowledged version and marker, in order (${ROUNDS} rounds)`, async () => {
    const seed = Number(process.env.TUSK_CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const root = randomCredentials();
    const bucket = 'crash-versions';
    /** key → items oldest first (one writer per key, so this is commit order) */
    const history = new Map<string, Item[]>();
    let acked = 0;
    let server: TuskServer | undefined;

    const verify = async (s: TuskServer, round: number) => {
      const listing = await listAll(s, bucket);
      const byKey = new Map<string, VersionEntry[]>();
      for (const e of listing) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
      for (const key of byKey.keys()) expect(history.has(key), `unknown key ${key} listed`).toBe(true);
      for (const [key, items] of history) {
        const where = `seed ${seed}, round ${round}, key ${key}`;
        const listed = byKey.get(key) ?? [];
        const ids = new Map(listed.map((e, i) => [e.versionId, i]));
        const dump = () => JSON.stringify({ items, listed: listed.map((e) => [e.versionId, e.kind]), log: s.output().slice(-3000) });
        for (const item of items) {
          if (!item.versionId) continue;
          if (item.removal === 'acked') expect(ids.has(item.versionId), `${where}: removed version ${item.versionId} is back`).toBe(false);
          else if (item.acked && !item.removal)
            expect(ids.has(item.versionId), `${where}: acknowledged ${item.marker ? 'marker' : 'version'} ${item.versionId} lost ${dump()}`).toBe(true);
        }
        // order: known entries newest first, i.e. their history positions strictly decrease
        const positions = listed.map((e) => items.findIndex((i) => i.versionId === e.versionId)).filter((p) => p >= 0);
        expect(positions, `${where}: version order`).toEqual([...positions].sort((a, b) => b - a));
        // an entry without a known id is the write in flight at the kill: at most one, the newest
        const unknown = listed.filter((e) => !items.some((i) => i.versionId === e.versionId));
        const inFlight = items.at(-1);
        if (unknown.length) {
          expect(unknown.length, `${where}: unknown versions ${dump()}`).toBe(1);
          expect(listed[0]!.versionId, `${where}: unacknowledged write is not the newest`).toBe(unknown[0]!.versionId);
          expect(inFlight && !inFlight.acked && !inFlight.versionId, `${where}: unknown version without a write in flight`).toBe(true);
          expect(unknown[0]!.kind === 'DeleteMarker', `${where}: in-flight kind`).toBe(inFlight!.marker);
        }
        expect(listed.filter((e) => e.isLatest).length, `${where}: latest`).toBe(listed.length ? 1 : 0);
        const rebuilt: Item[] = [];
        for (const e of [...listed].reverse()) {
          const known = items.find((i) => i.versionId === e.versionId);
          const res = await s3Request(s, { method: 'GET', bucket, key, query: { versionId: e.versionId } });
          if (e.kind === 'DeleteMarker') {
            expect(res.status, `${where}: marker by id`).toBe(405);
            rebuilt.push({ versionId: e.versionId, marker: true, acked: true });
            continue;
          }
          expect(res.status, `${where}: version ${e.versionId}`).toBe(200);
          const got = md5(res.body);
          expect(got, `${where}: version ${e.versionId} bytes`).toBe(known ? known.md5 : inFlight!.md5);
          rebuilt.push({ versionId: e.versionId, marker: false, md5: got, acked: true });
        }
        const latest = await s3Request(s, { method: 'GET', bucket, key });
        if (!listed.length || listed[0]!.kind === 'DeleteMarker') expect(latest.status, `${where}: plain GET`).toBe(404);
        else expect(md5(latest.body), `${where}: plain GET`).toBe(rebuilt.at(-1)!.md5);
        history.set(key, rebuilt);
      }
    };

    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        server = await startTusk({ dataDir: dir.path, root, durability: 'strict' });
        if (round === 0) {
          expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
          const on = '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>';
          expect((await s3Request(server, { method: 'PUT', bucket, query: 'versioning', body: on })).status).toBe(200);
        } else await verify(server, round);

        const s = server;
        let stop = false;
        const writer = async (w: number) => {
          while (!stop) {
            const key = `w${w}/k${Math.floor(rand() * KEYS_PER_WRITER)}`;
            const items = history.get(key) ?? [];
            history.set(key, items);
            const r = rand();
            const removable = items.filter((i) => i.acked && !i.marker && !i.removal);
            try {
              if (r < 0.15 && removable.length) {
                const target = removable[Math.floor(rand() * removable.length)]!;
                target.removal = 'sent';
                const res = await s3Request(s, { method: 'DELETE', bucket, key, query: { versionId: target.versionId! } });
                if (res.status === 204) target.removal = 'acked';
                else target.status = res.status;
              } else if (r < 0.3) {
                const item: Item = { marker: true, acked: false };
                items.push(item);
                const res = await s3Request(s, { method: 'DELETE', bucket, key });
                if (res.status === 204) {
                  expect(res.headers['x-amz-delete-marker']).toBe('true');
                  Object.assign(item, { versionId: res.headers['x-amz-version-id'], acked: true });
                  acked += 1;
                } else item.status = res.status;
              } else {
                const body = randomBytes(Math.floor(rand() * MAX_SIZE));
                const item: Item = { marker: false, md5: md5(body), acked: false };
                items.push(item);
                const res = await s3Request(s, { method: 'PUT', bucket, key, body, payloadHash: UNSIGNED_PAYLOAD });
                if (res.status === 200) {
                  Object.assign(item, { versionId: res.headers['x-amz-version-id'], acked: true });
                  acked += 1;
                } else item.status = res.status;
              }
            } catch {
              return; // connection died with the server
            }
          }
        };
        const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
        await new Promise((r) => setTimeout(r, 400 + Math.floor(rand() * 1200)));
        await s.kill9();
        stop = true;
        await Promise.allSettled(writers);
      }
      server = await startTusk({ dataDir: dir.path, root, durability: 'strict' });
      await verify(server, ROUNDS);
      expect(acked, 'the writers must have had acknowledged writes to check').toBeGreaterThan(ROUNDS * 4);
      console.info(`versioning crash test: seed ${seed}, ${acked} acknowledged writes and markers across ${ROUNDS} kill -9 rounds`);
    } finally {
      await server?.dispose();
    }
  }, 240_000);
});
