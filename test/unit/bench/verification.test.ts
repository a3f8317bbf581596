import { afterEach, describe, expect, it } from 'vitest';
import type { BenchOptions } from '../../../src/bench/options.js';
import { runBench } from '../../../src/bench/scenario.js';
import { parseSizeDistribution } from '../../../src/bench/sizes.js';
import { startMemoryS3, type MemoryS3 } from './memory-s3.js';

function options(endpoint: string, overrides: Partial<BenchOptions> = {}): BenchOptions {
  return {
    endpoint, accessKeyId: 'ak', secretAccessKey: 'sk', region: 'us-east-1', addressing: 'path',
    mix: { get: 1 }, sizes: parseSizeDistribution('1KiB..64KiB'), concurrency: 4, durationMs: 1000, count: 200,
    warmupMs: 0, objects: 20, partSize: 8 << 20, listMaxKeys: 1000, seed: 1, payload: 'unsigned',
    timeoutMs: 5000, keep: false, ...overrides,
  };
}

describe('GET verification', () => {
  let server: MemoryS3 | undefined;
  afterEach(async () => server?.close());

  it('a server that flips a byte in GET bodies yields only verification errors, never throughput', async () => {
    server = await startMemoryS3({ corruptGets: true });
    const result = await runBench(options(server.url));
    const get = result.ops['get']!;
    expect(get.errors['verify:content']).toBe(200);
    expect(get.errorCount).toBe(200);
    expect(get.ok).toBe(0);
    expect(get.bytes).toBe(0);
    expect(get.mibPerSec).toBe(0);
    expect(get.latencyMs).toBeNull();
    expect(result.notes.join('\n')).toMatch(/preflight: GET of a just-written object failed \(verify:content\)/);
  });

  it('a truncated body is a length error', async () => {
    server = await startMemoryS3({ truncateGets: true });
    const result = await runBench(options(server.url, { count: 50 }));
    expect(result.ops['get']).toMatchObject({ ok: 0, errors: { 'verify:length': 50 } });
  });

  it('the same run against an honest server counts every GET as a success (the check can pass)', async () => {
    server = await startMemoryS3();
    const result = await runBench(options(server.url));
    const get = result.ops['get']!;
    expect(get.errorCount).toBe(0);
    expect(get.ok).toBe(200);
    expect(get.bytes).toBeGreaterThan(200 * 1024 - 1);
    expect(get.latencyMs!.p50).toBeGreaterThan(0);
    expect(get.ttfbMs!.p50).toBeLessThanOrEqual(get.latencyMs!.max);
  });

  it('leaves the endpoint as it found it: objects and the created bucket are gone', async () => {
    server = await startMemoryS3();
    const result = await runBench(options(server.url, { mix: { put: 2, get: 5, head: 2, delete: 1 }, count: 300 }));
    expect(result.total.errorCount).toBe(0);
    expect(result.total.ok).toBe(300);
    expect(Object.keys(result.ops).sort()).toEqual(['delete', 'get', 'head', 'put']);
    expect(server.objects.size).toBe(0);
    expect(server.buckets.size).toBe(0);
  });

  it('uses an existing bucket without removing it, and skips multipart on NotImplemented', async () => {
    server = await startMemoryS3();
    server.buckets.add('mine');
    const result = await runBench(options(server.url, { bucket: 'mine', mix: { multipart: 1 } }));
    expect(result.skipped).toMatch(/NotImplemented/);
    expect(result.notes.join('\n')).toMatch(/multipart: the endpoint answered NotImplemented/);
    expect([...server.buckets]).toEqual(['mine']);
    expect(server.objects.size).toBe(0);
  });
});
