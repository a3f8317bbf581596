import { describe, expect, it } from 'vitest';
import { bundleChunks, headerLength, maxHeaderLength, parseBundleIndex } from '../../../../src/publisher/nodes/blob-bundle.js';

describe('blob bundle format', () => {
  const metadata = Buffer.from('metadata bytes');
  const pairs = [
    { pairIndex: 7, primary: Buffer.from('p7-primary'), secondary: Buffer.from('p7-secondary!') },
    { pairIndex: 2, primary: Buffer.from('p2-p'), secondary: Buffer.from('') },
  ];

  it('locates every part of the body it writes', () => {
    const body = Buffer.concat(bundleChunks(metadata, pairs));
    expect(body.subarray(0, 4).toString('latin1')).toBe('TBN1');
    expect(headerLength(body)).toBe(8 + 16 * 5);
    expect(maxHeaderLength(2)).toBe(headerLength(body));
    const index = parseBundleIndex(body.subarray(0, headerLength(body)), body.length);
    const part = (at: { offset: number; length: number } | undefined) => body.subarray(at!.offset, at!.offset + at!.length);
    expect(part(index.metadata).equals(metadata)).toBe(true);
    for (const p of pairs) {
      expect(part(index.sliver(p.pairIndex, 'primary')).equals(p.primary)).toBe(true);
      expect(part(index.sliver(p.pairIndex, 'secondary')).equals(p.secondary)).toBe(true);
      expect(index.hasPair(p.pairIndex)).toBe(true);
    }
    expect(index.hasPair(3)).toBe(false);
    expect(index.sliver(3, 'primary')).toBeUndefined();
  });

  it('refuses a foreign body, a short header and parts outside the body', () => {
    const body = Buffer.concat(bundleChunks(metadata, pairs));
    expect(() => parseBundleIndex(Buffer.from('XXXX\0\0\0\0'), 8)).toThrow(/magic/);
    expect(() => parseBundleIndex(body.subarray(0, 20), body.length)).toThrow(/needs 88 bytes/);
    expect(() => parseBundleIndex(body.subarray(0, 88), body.length - 1)).toThrow(/outside the body/);
  });

  it("joins a node's slivers that lie side by side in the encoder's buffer into few chunks", () => {
    // The encoder's layout (encoded-blob.ts): metadata, primaries 0..n−1, secondaries n−1..0 by pair.
    const n = 10;
    const all = Buffer.from(Array.from({ length: 8 + n * 6 + n * 4 }, (_, i) => i & 0xff));
    const metadata = all.subarray(0, 8);
    const primary = (p: number) => all.subarray(8 + 6 * p, 14 + 6 * p);
    const secondary = (p: number) => all.subarray(8 + 6 * n + 4 * (n - 1 - p), 8 + 6 * n + 4 * (n - p));
    const own = [5, 3, 6, 4].map((pairIndex) => ({ pairIndex, primary: primary(pairIndex), secondary: secondary(pairIndex) }));
    const chunks = bundleChunks(metadata, own);
    expect(chunks).toHaveLength(4); // header, metadata, primaries 3..6, secondaries 6..3
    const body = Buffer.concat(chunks);
    const index = parseBundleIndex(body.subarray(0, headerLength(body)), body.length);
    for (const p of [3, 4, 5, 6]) {
      const at = index.sliver(p, 'secondary')!;
      expect(body.subarray(at.offset, at.offset + at.length).equals(secondary(p))).toBe(true);
      const pa = index.sliver(p, 'primary')!;
      expect(body.subarray(pa.offset, pa.offset + pa.length).equals(primary(p))).toBe(true);
    }
  });
});
