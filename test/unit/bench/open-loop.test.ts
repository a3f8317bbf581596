import { afterEach, describe, expect, it } from 'vitest';
import type { BenchOptions } from '../../../src/bench/options.js';
import { runBench } from '../../../src/bench/scenario.js';
import { parseSizeDistribution } from '../../../src/bench/sizes.js';
import { startMemoryS3, type MemoryS3 } from './memory-s3.js';

function options(endpoint: string, overrides: Partial<BenchOptions>): BenchOptions {
  return {
    endpoint, accessKeyId: 'ak', secretAccessKey: 'sk', region: 'us-east-1', addressing: 'path',
    mix: { head: 1 }, sizes: parseSizeDistribution('1KiB'), concurrency: 1, durationMs: 1000,
    warmupMs: 0, objects: 4, partSize: 8 << 20, listMaxKeys: 1000, seed: 1, payload: 'unsigned',
    timeoutMs: 5000, keep: false, ...overrides,
  };
}

describe('open loop (--rate)', () => {
  let server: MemoryS3 | undefined;
  afterEach(async () => server?.close());

  it('measures from the scheduled time, so an overloaded endpoint shows queueing in the tail', async () => {
    server = await startMemoryS3({ delayMs: 40 });
    // One connection serving ~25 ops/s, asked for 100 ops/s: op k is scheduled at 10k ms, served at ~40k ms.
    const open = await runBench(options(server.url, { rate: 100, count: 20 }));
    const closed = await runBench(options(server.url, { count: 20 }));
    expect(open.ops['head']!.ok).toBe(20);
    expect(closed.ops['head']!.latencyMs!.p99).toBeLessThan(150);
    expect(open.ops['head']!.latencyMs!.max).toBeGreaterThan(400);
    expect(open.ops['head']!.latencyMs!.p50).toBeGreaterThan(closed.ops['head']!.latencyMs!.p50 * 2);
  });

  it('keeps the asked rate when the endpoint keeps up', async () => {
    server = await startMemoryS3();
    const result = await runBench(options(server.url, { rate: 200, durationMs: 500, warmupMs: 100, concurrency: 4 }));
    const head = result.ops['head']!;
    expect(head.errorCount).toBe(0);
    expect(head.ok).toBeGreaterThanOrEqual(95);
    expect(head.ok).toBeLessThanOrEqual(102);
  });
});
