// Decoding with lost slivers (walrus.md §11), sliver and metadata verification (§7.2, §8.2), and
// the storage-node verifier built on them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { INLINE_MAX_BYTES, openBlobCodec, type NativeBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import type { EncodedBlob } from '../../../../src/publisher/rs2/codec-types.js';
import { nativeBlobVerifier } from '../../../../src/publisher/rs2/native-verifier.js';
import { parseBlobMetadata } from '../../../../src/publisher/nodes/bcs.js';
import { isStorageNodeError } from '../../../../src/publisher/nodes/errors.js';
import { randomBytes, rng } from './vector-input.js';

let codec: NativeBlobCodec;

beforeAll(async () => {
  codec = await openBlobCodec({ threads: 2 });
});

afterAll(async () => {
  await codec.close();
});

const params = (n: number) => {
  const f = Math.floor((n - 1) / 3);
  return { f, nPrimary: n - 2 * f, nSecondary: n - f };
};

function primaries(e: EncodedBlob, pairs: Iterable<number>): Map<number, Buffer> {
  return new Map([...pairs].map((p) => [p, e.sliverPair(p).primary]));
}

function flipped(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

describe('decode', () => {
  const random = rng(0xdec0de);
  const cases = Array.from({ length: 12 }, (_, i) => {
    const n = 4 + random(197);
    const maxSize = params(n).nPrimary * params(n).nSecondary * 65534;
    // Alternate small blobs (decoded inline when n ≤ 32) and blobs above the inline limit.
    const size = i % 2 === 0 ? random(2000) : INLINE_MAX_BYTES + random(Math.min(200_000, maxSize - INLINE_MAX_BYTES));
    return { n, size, seed: i + 1 };
  });

  for (const { n, size, seed } of cases) {
    it(`rebuilds ${size} bytes at n=${n} after losing up to 2f random primary slivers`, async () => {
      const data = randomBytes(seed, size);
      const e = await codec.encode(data, n);
      const { f, nPrimary } = params(n);
      const pick = rng(seed * 7919);
      const lost = new Set<number>();
      const losses = pick(2 * f + 1);
      while (lost.size < losses) lost.add(pick(n));
      const kept = primaries(e, Array.from({ length: n }, (_, p) => p).filter((p) => !lost.has(p)));
      expect(kept.size).toBeGreaterThanOrEqual(nPrimary);
      expect((await codec.decode(e.metadataBcs, kept, n)).equals(data)).toBe(true);
    });
  }

  it('rebuilds from exactly the non-systematic slivers (every row recomputed), with each consistency check', async () => {
    const n = 100;
    const data = randomBytes(99, 150_000);
    const e = await codec.encode(data, n);
    const { nPrimary } = params(n);
    const last = primaries(e, Array.from({ length: nPrimary }, (_, k) => n - 1 - k));
    for (const check of ['default', 'strict', 'skip'] as const) {
      expect((await codec.decode(e.metadataBcs, last, n, check)).equals(data), check).toBe(true);
    }
  });

  it('refuses fewer than n − 2f slivers with NOT_ENOUGH_SLIVERS', async () => {
    const n = 10;
    const e = await codec.encode(randomBytes(3, 500), n);
    const few = primaries(e, [0, 4, 9]);
    await expect(codec.decode(e.metadataBcs, few, n)).rejects.toMatchObject({ code: 'NOT_ENOUGH_SLIVERS' });
  });

  for (const [what, size] of [
    ['inline', 500],
    ['in the pool', INLINE_MAX_BYTES * 2],
  ] as const) {
    // a repair sliver (every row recomputed from it) or a systematic one (its row taken as it is)
    for (const [which, pairs] of [
      ['repair', (n: number, nPrimary: number) => Array.from({ length: nPrimary }, (_, k) => n - 1 - k)],
      ['systematic', (_n: number, nPrimary: number) => Array.from({ length: nPrimary }, (_, k) => k)],
    ] as const) {
      it(`detects a corrupted ${which} sliver: SLIVER_HASH_MISMATCH by default, BLOB_ID_MISMATCH when strict (${what})`, async () => {
        const n = 10;
        const e = await codec.encode(randomBytes(4, size), n);
        const { nPrimary } = params(n);
        const chosen = pairs(n, nPrimary);
        const slivers = primaries(e, chosen);
        slivers.set(chosen[0]!, flipped(slivers.get(chosen[0]!)!, 3));
        await expect(codec.decode(e.metadataBcs, slivers, n)).rejects.toMatchObject({ code: 'SLIVER_HASH_MISMATCH' });
        await expect(codec.decode(e.metadataBcs, slivers, n, 'strict')).rejects.toMatchObject({ code: 'BLOB_ID_MISMATCH' });
        // unchecked, the corruption comes through
        expect((await codec.decode(e.metadataBcs, slivers, n, 'skip')).equals(randomBytes(4, size))).toBe(false);
      });
    }
  }

  it('rejects a sliver of the wrong shape with INVALID_SLIVER', async () => {
    const n = 7;
    const e = await codec.encode(randomBytes(5, 800), n);
    const slivers = primaries(e, [0, 1, 2]);
    slivers.set(1, e.sliverPair(2).primary); // index 2 stored as pair 1
    await expect(codec.decode(e.metadataBcs, slivers, n)).rejects.toMatchObject({ code: 'INVALID_SLIVER' });
  });

  it('rejects metadata whose hashes do not give its blob id with INVALID_METADATA', async () => {
    const n = 7;
    const e = await codec.encode(randomBytes(6, 800), n);
    await expect(codec.decode(flipped(e.metadataBcs, 60), primaries(e, [0, 1, 2]), n)).rejects.toMatchObject({
      code: 'INVALID_METADATA',
    });
  });
});

describe('verifySliver', () => {
  it('accepts every good sliver of both axes and rejects corrupted, misplaced and truncated ones', async () => {
    const n = 10;
    const e = await codec.encode(randomBytes(7, 3000), n);
    const md = e.metadataBcs;
    for (let p = 0; p < n; p++) {
      const { primary, secondary } = e.sliverPair(p);
      expect(await codec.verifySliver(md, p, 'primary', primary)).toBe(true);
      expect(await codec.verifySliver(md, p, 'secondary', secondary)).toBe(true);
      // a flipped data byte (just after the 1-byte length prefix), and the last symbol's byte
      expect(await codec.verifySliver(md, p, 'primary', flipped(primary, 1))).toBe(false);
      expect(await codec.verifySliver(md, p, 'secondary', flipped(secondary, secondary.length - 5))).toBe(false);
    }
    const { primary, secondary } = e.sliverPair(3);
    expect(await codec.verifySliver(md, 4, 'primary', primary)).toBe(false);
    expect(await codec.verifySliver(md, 3, 'secondary', primary)).toBe(false);
    expect(await codec.verifySliver(md, 3, 'primary', secondary)).toBe(false);
    expect(await codec.verifySliver(md, 3, 'primary', primary.subarray(0, primary.length - 1))).toBe(false);
    expect(await codec.verifySliver(md, n, 'primary', primary)).toBe(false);
    expect(await codec.sliverProblem(md, 3, 'primary', flipped(primary, 2))).toMatch(/does not match its hash/);
  });

  // The encoder climbs the Merkle trees over aligned groups of 16 columns; the verifier takes one
  // tree per re-encoded sliver. Shard counts around the group size: one group, full groups only,
  // and last groups of 1 to 15 columns.
  it.each([15, 16, 17, 31, 32, 33, 48, 49, 65, 130])('n=%i: every sliver of both axes verifies against the encoder\'s hashes', async (n) => {
    const e = await codec.encode(randomBytes(n, 20_000 + n), n);
    for (let p = 0; p < n; p++) {
      const { primary, secondary } = e.sliverPair(p);
      expect(await codec.verifySliver(e.metadataBcs, p, 'primary', primary), `pair ${p} primary`).toBe(true);
      expect(await codec.verifySliver(e.metadataBcs, p, 'secondary', secondary), `pair ${p} secondary`).toBe(true);
    }
  });

  it('checks large slivers in the pool the same way', async () => {
    const n = 4;
    const e = await codec.encode(randomBytes(8, 390_000), n);
    const { primary, secondary } = e.sliverPair(1);
    expect(primary.length).toBeGreaterThan(INLINE_MAX_BYTES);
    expect(await codec.verifySliver(e.metadataBcs, 1, 'primary', primary)).toBe(true);
    expect(await codec.verifySliver(e.metadataBcs, 1, 'secondary', secondary)).toBe(true);
    expect(await codec.verifySliver(e.metadataBcs, 1, 'primary', flipped(primary, 100_000))).toBe(false);
    expect(await codec.verifySliver(e.metadataBcs, 1, 'secondary', flipped(secondary, 1000))).toBe(false);
  });
});

describe('verifyMetadata', () => {
  it('accepts real metadata and rejects a changed hash, length or shard count, and garbage', async () => {
    const n = 10;
    const e = await codec.encode(randomBytes(9, 3000), n);
    expect(await codec.verifyMetadata(e.metadataBcs, n)).toBe(true);
    expect(await codec.verifyMetadata(e.metadataBcs, n + 1)).toBe(false);
    expect(await codec.verifyMetadata(flipped(e.metadataBcs, 100), n)).toBe(false); // a sliver hash
    expect(await codec.verifyMetadata(flipped(e.metadataBcs, 34), n)).toBe(false); // unencoded length
    expect(await codec.verifyMetadata(flipped(e.metadataBcs, 5), n)).toBe(false); // blob id
    expect(await codec.verifyMetadata(e.metadataBcs.subarray(0, 100), n)).toBe(false);
    expect(await codec.verifyMetadata(Buffer.alloc(0), n)).toBe(false);
    expect(await codec.metadataProblem(flipped(e.metadataBcs, 100), n)).toMatch(/do not give the blob id/);
  });
});

describe('nativeBlobVerifier', () => {
  it('passes a real upload and refuses wrong metadata and slivers with storage-node errors', async () => {
    const verifier = nativeBlobVerifier(codec);
    const n = 7;
    const e = await codec.encode(randomBytes(10, 2000), n);
    const metadata = parseBlobMetadata(e.metadataBcs);
    await verifier.verifyMetadata(e.blobId, e.metadataBcs, metadata);
    for (let p = 0; p < n; p++) {
      await verifier.verifySliver(metadata, p, 'primary', e.sliverPair(p).primary);
      await verifier.verifySliver(metadata, p, 'secondary', e.sliverPair(p).secondary);
    }
    const bad = flipped(e.metadataBcs, 80);
    const badMetadata = await Promise.resolve().then(() => verifier.verifyMetadata(e.blobId, bad, parseBlobMetadata(bad))).catch((err: unknown) => err);
    expect(isStorageNodeError(badMetadata, 'INVALID_METADATA')).toBe(true);
    const badSliver = await Promise.resolve().then(() => verifier.verifySliver(metadata, 2, 'primary', flipped(e.sliverPair(2).primary, 4))).catch((err: unknown) => err);
    expect(isStorageNodeError(badSliver, 'INVALID_SLIVER')).toBe(true);
    expect((badSliver as Error).message).toMatch(/does not match its hash/);
  });
});
