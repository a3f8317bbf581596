// Hasher.updateAsync through the process-wide scheduler: concurrent hashers share thread-pool
// jobs (their MD5s and SHA-256s in SIMD lanes, native/src/digest/md5_lanes.rs and
// sha256_lanes.rs), each must still get exactly its own digests, and a failing hasher must not
// take the others of its job down with it.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DIGEST,
  DIGEST_ALL,
  Hasher,
  PIECE_MAX,
  hashSchedulingStats,
  resetHashSchedulingStats,
  setHashScheduling,
  simdPaths,
  type Digests,
  type HashScheduling,
} from '../../src/native/native.js';
import { mulberry32, reference } from './digest-reference.js';

/** Tiny, block-straddling and upload-sized (~512 KiB) chunks. */
function randomChunks(data: Uint8Array, rand: () => number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < data.length; ) {
    const r = rand();
    const len = r < 0.2 ? 1 + Math.floor(rand() * 130) : r < 0.4 ? 1 + Math.floor(rand() * 70_000) : 400_000 + Math.floor(rand() * 250_000);
    chunks.push(data.subarray(at, at + len));
    at += len;
  }
  return chunks;
}

/** The reference digests `mask` selects, in hex. */
async function expected(data: Uint8Array, mask: number): Promise<Record<string, string>> {
  const all = hex(await reference(data));
  return Object.fromEntries(Object.entries(all).filter(([name]) => mask & DIGEST[name.toUpperCase() as keyof typeof DIGEST]));
}

function hex(d: Digests): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d)) out[k] = Buffer.isBuffer(v) ? v.toString('hex') : (v as number | bigint).toString(16);
  return out;
}

const LENGTHS = [0, 1, 55, 56, 63, 64, 65, 1000, 70_001, 600_000, (2 << 20) + 5, 5 << 20];
// Most with SHA-256: enough in one job for its lanes too (sha256_lanes::MIN_LANES).
const MASKS = [
  DIGEST.MD5,
  DIGEST.MD5 | DIGEST.SHA256,
  DIGEST.MD5 | DIGEST.SHA256 | DIGEST.CRC32C,
  DIGEST.MD5 | DIGEST.SHA256 | DIGEST.CRC32 | DIGEST.SHA1,
  DIGEST_ALL,
  DIGEST.CRC32C,
  DIGEST.SHA256,
  DIGEST.SHA256 | DIGEST.CRC64NVME,
];

let defaults: HashScheduling | undefined;
function schedule(settings: Partial<HashScheduling>): void {
  const previous = setHashScheduling(settings);
  defaults ??= previous;
}
afterEach(() => {
  if (defaults) setHashScheduling(defaults);
  defaults = undefined;
});

describe('Hasher.updateAsync across concurrent hashers', () => {
  it('reports the MD5 kernel', () => {
    expect(simdPaths().md5).toMatch(/^(avx512x16|avx2x8|scalar)$/);
  });

  for (const settings of [{ jobs: 1, lanes: 16 }, { jobs: 2, lanes: 5 }, {}]) {
    it(`gives every stream its own digests (scheduling ${JSON.stringify(settings)})`, async () => {
      schedule(settings);
      const { jobs, lanes } = setHashScheduling({});
      const rand = mulberry32(0x51ab + jobs * 31 + lanes);
      const streams = Array.from({ length: 40 }, (_, i) => {
        const data = randomBytes(LENGTHS[Math.floor(rand() * LENGTHS.length)]!);
        const mask = MASKS[i % MASKS.length]!;
        // Half send every chunk to the thread pool; the others hash small first chunks inline.
        const hasher = new Hasher(mask, { inlineMax: i % 2 === 0 ? 0 : 64 * 1024 });
        return { data, mask, hasher, chunks: randomChunks(data, rand), windowed: i % 3 === 0 };
      });
      resetHashSchedulingStats();
      await Promise.all(
        streams.map(async (s) => {
          if (!s.windowed) return Promise.all(s.chunks.map((c) => s.hasher.updateAsync(c)));
          // As an upload does: at most 8 chunks in flight.
          const inFlight: Promise<void>[] = [];
          for (const c of s.chunks) {
            inFlight.push(s.hasher.updateAsync(c));
            if (inFlight.length >= 8) await inFlight.shift();
          }
          return Promise.all(inFlight);
        }),
      );
      for (const [i, s] of streams.entries()) {
        expect(hex(s.hasher.digest()), `stream ${i}: ${s.data.length} bytes in ${s.chunks.length} chunks`).toEqual(
          await expected(s.data, s.mask),
        );
      }
      const stats = hashSchedulingStats();
      expect(stats.peakJobs).toBeLessThanOrEqual(jobs);
      expect(stats.largestJob).toBeLessThanOrEqual(lanes);
      // 40 streams at once: updates must have queued behind busy jobs and been batched.
      expect(stats.largestJob).toBeGreaterThan(1);
      expect(stats.updates).toBeGreaterThan(stats.jobs);
    });
  }

  it('gives a lone stream one job per update, at once', async () => {
    const data = randomBytes(6 * 256 * 1024);
    const h = new Hasher(DIGEST.MD5 | DIGEST.CRC32C, { inlineMax: 0 });
    resetHashSchedulingStats();
    const pending = [0, 1, 2, 3, 4, 5].map((i) => h.updateAsync(data.subarray(i * 256 * 1024, (i + 1) * 256 * 1024)));
    // The first job starts inside updateAsync, not on a later tick.
    expect(hashSchedulingStats().jobs).toBe(1);
    await Promise.all(pending);
    expect(hashSchedulingStats()).toMatchObject({ jobs: 6, updates: 6, largestJob: 1, peakJobs: 1 });
    expect(hex(h.digest())).toEqual(await expected(data, DIGEST.MD5 | DIGEST.CRC32C));
  });

  it('sends a large update in pieces of at most PIECE_MAX, settling once', async () => {
    for (const size of [PIECE_MAX, PIECE_MAX + 1, 3 * PIECE_MAX + 12_345]) {
      const data = randomBytes(size);
      const h = new Hasher(DIGEST.MD5 | DIGEST.SHA256, { inlineMax: 0 });
      resetHashSchedulingStats();
      await h.updateAsync(data);
      expect(hashSchedulingStats().jobs).toBe(Math.ceil(size / PIECE_MAX));
      expect(hex(h.digest())).toEqual(await expected(data, DIGEST.MD5 | DIGEST.SHA256));
    }
  });

  it('fails only the hasher whose update failed, not the others of its job', async () => {
    schedule({ jobs: 1, lanes: 16 });
    const rand = mulberry32(7);
    // Holds the only job slot, so everything below queues and starts as one job.
    const blocker = new Hasher(DIGEST.MD5, { inlineMax: 0 });
    const blocking = blocker.updateAsync(randomBytes(16 << 20));
    const good = Array.from({ length: 6 }, (_, i) => {
      const data = randomBytes(300_000 + Math.floor(rand() * 300_000));
      return { data, mask: MASKS[i]!, hasher: new Hasher(MASKS[i]!, { inlineMax: 0 }) };
    });
    const finished = new Hasher(DIGEST.MD5, { inlineMax: 0 });
    finished.digest();
    const notBytes = new Hasher(DIGEST.MD5 | DIGEST.SHA256, { inlineMax: 0 });

    resetHashSchedulingStats();
    const halves = good.map((g) => [g.data.subarray(0, 100_001), g.data.subarray(100_001)] as const);
    const firsts = good.map((g, i) => g.hasher.updateAsync(halves[i]![0]));
    const finishedUpdate = finished.updateAsync(Buffer.alloc(100_000));
    const badUpdate = notBytes.updateAsync('not bytes' as unknown as Uint8Array);
    const afterBad = notBytes.updateAsync(Buffer.alloc(100_000));
    const seconds = good.map((g, i) => g.hasher.updateAsync(halves[i]![1]));

    await expect(finishedUpdate).rejects.toMatchObject({ code: 'ERR_HASHER_FINISHED' });
    await expect(badUpdate).rejects.toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    // Poisoned: the update queued behind the failed one fails with the same error.
    await expect(afterBad).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    expect(() => notBytes.digest()).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
    await Promise.all([...firsts, ...seconds, blocking]);
    // The failing hashers really shared a job with the good ones.
    expect(hashSchedulingStats().largestJob).toBeGreaterThanOrEqual(good.length + 2);
    for (const g of good) expect(hex(g.hasher.digest())).toEqual(await expected(g.data, g.mask));
  });

  it('rejects invalid scheduling', () => {
    expect(() => setHashScheduling({ jobs: 0 })).toThrow(RangeError);
    expect(() => setHashScheduling({ lanes: 1.5 })).toThrow(RangeError);
  });
});
