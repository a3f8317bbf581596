// The codec over its worker pool: inline and pooled paths agree with the native binding, the
// EncodedBlob layout is the Walrus one (walrus.md §4, §8), errors keep their codes across threads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { encodedByteLength, INLINE_MAX_BYTES, openBlobCodec, type NativeBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import { parseBlobMetadata, parseSliverData } from '../../../../src/publisher/nodes/bcs.js';
import { isRs2Error, rs2BlobId, rs2Encode } from '../../../../src/publisher/rs2/rs2-native.js';
import { randomBytes } from './vector-input.js';

let codec: NativeBlobCodec;

beforeAll(async () => {
  codec = await openBlobCodec({ threads: 2 });
});

afterAll(async () => {
  await codec.close();
});

describe('blobId and encode', () => {
  const cases = [
    { what: 'inline (small blob, few shards)', n: 10, size: 1000 },
    { what: 'in the pool (many shards)', n: 100, size: 1000 },
    { what: 'in the pool (large blob)', n: 7, size: INLINE_MAX_BYTES + 1 },
  ];
  for (const { what, n, size } of cases) {
    it(`agree with the binding ${what}`, async () => {
      const data = randomBytes(size + n, size);
      const want = rs2BlobId(data, n);
      const info = await codec.blobId(data, n);
      expect(info.blobId.equals(Buffer.from(want.blobId))).toBe(true);
      expect(info.blobIdText).toBe(Buffer.from(want.blobId).toString('base64url'));
      expect(info.blobIdText).toHaveLength(43);
      expect(info.rootHash.equals(Buffer.from(want.rootHash))).toBe(true);
      expect(info).toMatchObject({ unencodedLength: size, encodedLength: want.encodedLength, symbolSize: want.symbolSize, nShards: n });

      const e = await codec.encode(data, n);
      expect(e.blobIdText).toBe(info.blobIdText);
      expect(e.rootHash.equals(info.rootHash)).toBe(true);
      expect(data.length, 'the caller keeps its buffer').toBe(size);
    });
  }

  it('lays out metadata and sliver pairs as Walrus does (pair p: primary p, secondary n−1−p)', async () => {
    const n = 13;
    const data = randomBytes(5, 100_000);
    const e = await codec.encode(data, n);
    const metadata = parseBlobMetadata(e.metadataBcs);
    expect(metadata.blobId.equals(e.blobId)).toBe(true);
    expect(metadata.unencodedLength).toBe(data.length);
    expect(metadata.hashes).toHaveLength(n);
    const f = Math.floor((n - 1) / 3);
    const [nPrimary, nSecondary] = [n - 2 * f, n - f];
    let rows = Buffer.alloc(0);
    for (let p = 0; p < n; p++) {
      const { primary, secondary } = e.sliverPair(p);
      const ps = parseSliverData(primary);
      const ss = parseSliverData(secondary);
      expect([ps.index, ps.symbolSize, ps.data.length]).toEqual([p, e.symbolSize, nSecondary * e.symbolSize]);
      expect([ss.index, ss.symbolSize, ss.data.length]).toEqual([n - 1 - p, e.symbolSize, nPrimary * e.symbolSize]);
      if (p < nPrimary) rows = Buffer.concat([rows, ps.data]);
    }
    // The systematic primary slivers are the blob's rows, zero-padded (walrus.md §3).
    expect(rows.subarray(0, data.length).equals(data)).toBe(true);
    expect(rows.subarray(data.length).every((b) => b === 0)).toBe(true);
    expect(() => e.sliverPair(n)).toThrow(RangeError);
    expect(() => e.sliverPair(-1)).toThrow(RangeError);
  });

  it('reuses released memory: an encoding into a used buffer is byte-identical to a fresh one', async () => {
    const n = 100;
    const size = 300_000;
    // the native layout: metadata, primary slivers 0..n−1, secondary slivers 0..n−1 (pair p holds secondary n−1−p)
    const all = (e: Awaited<ReturnType<typeof codec.encode>>) =>
      Buffer.concat([
        e.metadataBcs,
        ...Array.from({ length: n }, (_, p) => e.sliverPair(p).primary),
        ...Array.from({ length: n }, (_, s) => e.sliverPair(n - 1 - s).secondary),
      ]);
    const first = await codec.encode(randomBytes(1, size), n);
    const firstMemory = first.sliverPair(0).primary.buffer;
    const data = randomBytes(2, size);
    const want = rs2Encode(data, n);
    first.release();
    expect(() => first.sliverPair(0), 'a released encoding').toThrow(/released/);
    first.release(); // twice is harmless
    const second = await codec.encode(data, n);
    expect(second.sliverPair(0).primary.buffer, 'the released memory again').toBe(firstMemory);
    expect(second.blobIdText).toBe(Buffer.from(want.blobId).toString('base64url'));
    expect(all(second).equals(Buffer.from(want.bytes, 0, want.byteLength)), 'every byte rewritten').toBe(true);
    expect(encodedByteLength(size, n)).toBe(want.byteLength);
    const metadataBefore = Buffer.from(second.metadataBcs);
    second.release();
    const third = await codec.encode(randomBytes(3, size), n);
    expect(third.sliverPair(0).primary.buffer).toBe(firstMemory);
    expect(second.metadataBcs.equals(metadataBefore), 'metadata is a copy of its own, not a view of reused memory').toBe(true);
  });

  it('encodes the empty blob', async () => {
    const e = await codec.encode(Buffer.alloc(0), 4);
    expect(e.symbolSize).toBe(2);
    expect(e.unencodedLength).toBe(0);
  });
});

describe('errors', () => {
  it('DATA_TOO_LARGE with Walrus wording, inline and from a worker', async () => {
    // n = 4 holds at most 6 · 65534 bytes (walrus.md §2); n = 40 (14 × 27 source symbols) is pooled.
    for (const [n, size] of [
      [4, 6 * 65534 + 1],
      [40, 14 * 27 * 65534 + 1],
    ] as const) {
      const data = Buffer.alloc(size);
      for (const op of [() => codec.encode(data, n), () => codec.blobId(data, n)]) {
        const err = await op().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isRs2Error(err, 'DATA_TOO_LARGE'), String(err)).toBe(true);
        expect((err as Error).message).toContain('the data is too large to be encoded/decoded');
      }
    }
  });

  it('INVALID_SHARD_COUNT below 4 shards', async () => {
    await expect(codec.blobId(Buffer.from('x'), 3)).rejects.toMatchObject({ code: 'INVALID_SHARD_COUNT' });
    await expect(codec.encode(Buffer.alloc(INLINE_MAX_BYTES + 1), 3)).rejects.toMatchObject({ code: 'INVALID_SHARD_COUNT' });
  });
});

describe('close', () => {
  it('destroys the pool: later pooled calls reject; closing twice is fine', async () => {
    const own = await openBlobCodec({ threads: 1 });
    expect(own.threads).toBe(1);
    expect((await own.blobId(Buffer.alloc(0), 100)).nShards).toBe(100);
    await own.close();
    await own.close();
    await expect(own.blobId(Buffer.alloc(0), 100)).rejects.toThrow('closed');
  });

  it('rejects a thread count that is not a positive integer', async () => {
    await expect(openBlobCodec({ threads: 0 })).rejects.toThrow(RangeError);
  });
});
