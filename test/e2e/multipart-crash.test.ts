// Crash safety of multipart uploads (s3.md §3.21, §3.23): concurrent uploads and completes,
// `kill -9` at random moments, restart on the same data dir. Every acknowledged Complete reads
// back byte-identical (each part through ?partNumber, and the "<md5 of md5s>-N" ETag); every other
// upload is either still listed — with every acknowledged part, and completable — or its object is
// complete; no key that was never completed becomes visible, nothing torn.

import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { s3Request } from './helpers/clients.js';
import { makeTempDirFixture, md5Hex, type SentBody } from './helpers/fixtures.js';
import { runCrashRounds } from './helpers/crash-rounds.js';
import { randomCredentials, type TuskServer } from './helpers/server.js';
import { UNSIGNED_PAYLOAD } from './helpers/sigv4.js';
import { xmlAll, xmlText } from './helpers/xml.js';

const ROUNDS = 3;
const UPLOADERS = 3;
const PART = 5 * 1024 * 1024;

/** A part body sent: its MD5 and length, and whether its UploadPart was acknowledged. */
type PartSent = SentBody;

interface UploadState {
  key: string;
  uploadId: string;
  parts: Map<number, PartSent>;
  /** the part numbers a Complete was sent for, and whether it was acknowledged */
  complete?: { parts: number[]; acked: boolean };
  /** verified as a finished object */
  done?: boolean;
}

const md5 = md5Hex;
const dir = makeTempDirFixture();
afterAll(() => dir.remove());

function multipartEtag(md5s: string[]): string {
  return `"${md5(Buffer.concat(md5s.map((m) => Buffer.from(m, 'hex'))))}-${md5s.length}"`;
}

function completeXml(parts: Array<[number, string]>): string {
  return `<CompleteMultipartUpload>${parts.map(([n, m]) => `<Part><PartNumber>${n}</PartNumber><ETag>"${m}"</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
}

describe('kill -9 during concurrent multipart uploads and completes', () => {
  it(`keeps every completed upload, leaves the others listed and completable or complete (${ROUNDS} rounds)`, async () => {
    const seed = Number(process.env.TUSK_CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const root = randomCredentials();
    const bucket = 'mpu-crash';
    const uploads: UploadState[] = [];
    let completedAcked = 0;
    let resumed = 0;

    /** The object of a finished upload: size, ETag and every part's bytes. */
    const expectObject = async (s: TuskServer, u: UploadState, numbers: number[], where: string) => {
      const parts = numbers.map((n) => u.parts.get(n)!);
      const head = await s3Request(s, { method: 'HEAD', bucket, key: u.key });
      expect(head.status, where).toBe(200);
      expect(head.headers['etag'], `${where}: ETag`).toBe(multipartEtag(parts.map((p) => p.md5)));
      expect(Number(head.headers['content-length'])).toBe(parts.reduce((a, p) => a + p.size, 0));
      for (const [i, p] of parts.entries()) {
        const got = await s3Request(s, { method: 'GET', bucket, key: u.key, query: { partNumber: String(i + 1) } });
        expect(md5(got.body), `${where}: part ${i + 1} torn`).toBe(p.md5);
      }
      u.done = true;
    };

    const verify = async (s: TuskServer, round: number) => {
      const listing = await s3Request(s, { method: 'GET', bucket, query: { 'list-type': '2' } });
      const visible = new Set(xmlAll(listing.text(), 'Key'));
      const pending = await s3Request(s, { method: 'GET', bucket, query: { uploads: '' } });
      const listedUploads = new Set(xmlAll(pending.text(), 'UploadId'));
      const known = new Set(uploads.map((u) => u.key));
      for (const key of visible) expect(known.has(key), `unknown key ${key} visible`).toBe(true);
      for (const u of uploads) {
        if (u.done) continue;
        const where = `seed ${seed}, round ${round}, ${u.key}`;
        const listed = listedUploads.has(u.uploadId);
        if (visible.has(u.key)) {
          // only a Complete makes the key visible, and then the upload is gone
          expect(u.complete, `${where}: visible without a Complete`).toBeDefined();
          expect(listed, `${where}: completed but still listed`).toBe(false);
          await expectObject(s, u, u.complete!.parts, where);
          continue;
        }
        expect(u.complete?.acked ?? false, `${where}: acknowledged Complete lost`).toBe(false);
        const created = u.uploadId !== '';
        if (!listed) {
          // an upload whose creation was never acknowledged may be absent
          expect(created, `${where}: acknowledged upload no longer listed`).toBe(false);
          u.done = true;
          continue;
        }
        const partsRes = await s3Request(s, { method: 'GET', bucket, key: u.key, query: { uploadId: u.uploadId } });
        expect(partsRes.status, where).toBe(200);
        const numbers = xmlAll(partsRes.text(), 'PartNumber').map(Number);
        const etags = xmlAll(partsRes.text(), 'ETag');
        for (const [n, p] of u.parts) if (p.acked) expect(numbers, `${where}: acknowledged part ${n} lost`).toContain(n);
        numbers.forEach((n, i) => expect(etags[i], `${where}: part ${n} torn`).toBe(`"${u.parts.get(n)?.md5}"`));
        if (numbers.length === 0) continue;
        // complete it now with what is there: parts are 5 MiB but the last number's
        const res = await s3Request(s, {
          method: 'POST', bucket, key: u.key, query: { uploadId: u.uploadId },
          body: completeXml(numbers.map((n) => [n, u.parts.get(n)!.md5])),
        });
        expect(res.status, `${where}: ${res.text()}`).toBe(200);
        u.complete = { parts: numbers, acked: true };
        await expectObject(s, u, numbers, `${where} (resumed)`);
        resumed += 1;
      }
    };

    await runCrashRounds({
      dataDir: dir.path, root, bucket, rounds: ROUNDS, workers: UPLOADERS, rand, minMs: 800, spanMs: 2000, verify,
      async work(s, round, w, stopped) {
        for (let i = 0; !stopped(); i++) {
          const u: UploadState = { key: `r${round}/w${w}/u${i}`, uploadId: '', parts: new Map() };
          uploads.push(u);
          try {
            const created = await s3Request(s, { method: 'POST', bucket, key: u.key, query: 'uploads' });
            if (created.status !== 200) return;
            u.uploadId = xmlText(created.text(), 'UploadId')!;
            const count = 1 + Math.floor(rand() * 3);
            for (let n = 1; n <= count && !stopped(); n++) {
              const body = randomBytes(n === count ? Math.floor(rand() * PART) : PART);
              const part: PartSent = { md5: md5(body), size: body.length, acked: false };
              u.parts.set(n, part);
              const res = await s3Request(s, {
                method: 'PUT', bucket, key: u.key, query: { partNumber: String(n), uploadId: u.uploadId }, body, payloadHash: UNSIGNED_PAYLOAD,
              });
              if (res.status !== 200) return;
              part.acked = true;
            }
            const numbers = [...u.parts.keys()];
            u.complete = { parts: numbers, acked: false };
            const done = await s3Request(s, {
              method: 'POST', bucket, key: u.key, query: { uploadId: u.uploadId },
              body: completeXml(numbers.map((n) => [n, u.parts.get(n)!.md5])),
            });
            if (done.status !== 200) return;
            u.complete.acked = true;
            completedAcked += 1;
          } catch {
            return; // the connection died with the server
          }
        }
      },
    });
    expect(completedAcked, 'some Completes must have been acknowledged to check').toBeGreaterThan(0);
    console.info(`multipart crash test: seed ${seed}, ${completedAcked} acknowledged completes, ${resumed} uploads resumed after a crash`);
  }, 300_000);
});
