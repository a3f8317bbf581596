import { describe, expect, it } from 'vitest';
import { OpStats, percentile, SampleBuffer, summarize } from '../../../src/bench/stats.js';

describe('percentile (nearest rank)', () => {
  const oneToHundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it('picks the smallest sample with at least p% of samples at or below it', () => {
    expect(percentile(oneToHundred, 50)).toBe(50);
    expect(percentile(oneToHundred, 90)).toBe(90);
    expect(percentile(oneToHundred, 99)).toBe(99);
    expect(percentile(oneToHundred, 99.9)).toBe(100);
    expect(percentile(oneToHundred, 100)).toBe(100);
    expect(percentile(oneToHundred, 0)).toBe(1);
  });

  it('handles tiny and empty sample sets', () => {
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([1, 2], 50)).toBe(1);
    expect(percentile([1, 2], 51)).toBe(2);
    expect(percentile([], 50)).toBeNaN();
  });

  it('one slow outlier in 100 shows at p99.9 and max but not p90 or p99', () => {
    const samples = new SampleBuffer();
    for (let i = 0; i < 99; i++) samples.push(1);
    samples.push(500);
    expect(summarize(samples)).toEqual({ p50: 1, p90: 1, p99: 1, p999: 500, max: 500, mean: (99 + 500) / 100 });
    samples.push(500);
    expect(summarize(samples)!.p99).toBe(500);
  });
});

describe('SampleBuffer and OpStats', () => {
  it('grows past its initial capacity and sorts numerically', () => {
    const samples = new SampleBuffer();
    for (let i = 5000; i > 0; i--) samples.push(i / 10);
    const sorted = samples.sorted();
    expect(sorted.length).toBe(5000);
    expect(sorted[0]).toBe(0.1);
    expect(sorted[4999]).toBe(500);
    expect(summarize(samples)!.p50).toBe(250);
  });

  it('counts errors by code separately from successes', () => {
    const stats = new OpStats();
    stats.recordOk(2, 100, 1);
    stats.recordError('NoSuchKey');
    stats.recordError('NoSuchKey');
    stats.recordError('net:ECONNRESET');
    expect(stats.ok).toBe(1);
    expect(stats.bytes).toBe(100);
    expect(stats.errorCount).toBe(3);
    expect(Object.fromEntries(stats.errors)).toEqual({ NoSuchKey: 2, 'net:ECONNRESET': 1 });
    expect(stats.latencyMs.length).toBe(1);
  });
});
