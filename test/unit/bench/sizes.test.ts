import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/bench/random.js';
import {
  describeSizeDistribution, drawSize, maxSize, parseByteSize, parseSizeDistribution,
} from '../../../src/bench/sizes.js';

describe('parseByteSize', () => {
  it('reads binary and decimal units', () => {
    expect(parseByteSize('4096')).toBe(4096);
    expect(parseByteSize('4KiB')).toBe(4096);
    expect(parseByteSize('4k')).toBe(4096);
    expect(parseByteSize('1MiB')).toBe(1048576);
    expect(parseByteSize('64MiB')).toBe(64 * 1048576);
    expect(parseByteSize('10MB')).toBe(10_000_000);
    expect(parseByteSize('1.5KiB')).toBe(1536);
    expect(parseByteSize('0')).toBe(0);
  });

  it('rejects garbage', () => {
    expect(() => parseByteSize('4 parsecs')).toThrow(/invalid size/);
    expect(() => parseByteSize('-1')).toThrow(/invalid size/);
  });
});

describe('size distributions', () => {
  it('parses the three forms', () => {
    expect(parseSizeDistribution('4KiB')).toEqual({ kind: 'fixed', bytes: 4096 });
    expect(parseSizeDistribution('1KiB..1MiB')).toEqual({ kind: 'log2', min: 1024, max: 1048576 });
    expect(parseSizeDistribution('4KiB:70,1MiB:30')).toEqual({
      kind: 'buckets', buckets: [{ bytes: 4096, weight: 70 }, { bytes: 1048576, weight: 30 }],
    });
    expect(() => parseSizeDistribution('1MiB..1KiB')).toThrow(/MIN <= MAX/);
    expect(() => parseSizeDistribution('4KiB:0')).toThrow(/WEIGHT > 0/);
  });

  it('log2-random stays within bounds and is uniform in log space', () => {
    const dist = parseSizeDistribution('1KiB..1MiB');
    const random = seededRandom(42);
    const perOctave = new Array<number>(10).fill(0);
    const n = 20_000;
    let [lo, hi] = [Infinity, 0];
    for (let i = 0; i < n; i++) {
      const size = drawSize(dist, random);
      [lo, hi] = [Math.min(lo, size), Math.max(hi, size)];
      perOctave[Math.min(9, Math.floor(Math.log2(size / 1024)))]!++;
    }
    expect(lo).toBeGreaterThanOrEqual(1024);
    expect(hi).toBeLessThanOrEqual(1048576);
    // 10 octaves between 1 KiB and 1 MiB: each should get about a tenth of the draws.
    for (const count of perOctave) expect(Math.abs(count / n - 0.1)).toBeLessThan(0.02);
    expect(maxSize(dist)).toBe(1048576);
  });

  it('weighted buckets follow their weights', () => {
    const dist = parseSizeDistribution('4KiB:70,1MiB:25,64MiB:5');
    const random = seededRandom(7);
    const counts = new Map<number, number>();
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const size = drawSize(dist, random);
      counts.set(size, (counts.get(size) ?? 0) + 1);
    }
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual([4096, 1048576, 64 * 1048576]);
    expect(counts.get(4096)! / n).toBeCloseTo(0.7, 1);
    expect(counts.get(1048576)! / n).toBeCloseTo(0.25, 1);
    expect(counts.get(64 * 1048576)! / n).toBeCloseTo(0.05, 1);
    expect(maxSize(dist)).toBe(64 * 1048576);
    expect(describeSizeDistribution(dist)).toBe('4 KiB:70,1 MiB:25,64 MiB:5');
  });

  it('the same seed draws the same sizes', () => {
    const dist = parseSizeDistribution('1..1GiB');
    const a = seededRandom(3);
    const b = seededRandom(3);
    for (let i = 0; i < 100; i++) expect(drawSize(dist, a)).toBe(drawSize(dist, b));
  });
});
