import { afterEach, describe, expect, it } from 'vitest';
import { parseBenchArgs, type BenchOptions } from '../../../src/bench/options.js';
import { runBench } from '../../../src/bench/scenario.js';
import { parseSizeDistribution } from '../../../src/bench/sizes.js';
import { startMemoryS3, type MemoryS3 } from './memory-s3.js';

function options(endpoint: string, overrides: Partial<BenchOptions> = {}): BenchOptions {
  return {
    endpoint, accessKeyId: 'ak', secretAccessKey: 'sk', region: 'us-east-1', addressing: 'path',
    mix: { put: 1 }, sizes: parseSizeDistribution('4KiB'), concurrency: 2, durationMs: 1000, count: 10,
    warmupMs: 0, partSize: 8 << 20, listMaxKeys: 1000, seed: 1, payload: 'unsigned',
    timeoutMs: 5000, keep: true, ...overrides,
  };
}

describe('--storage-class', () => {
  let server: MemoryS3 | undefined;
  afterEach(async () => server?.close());

  it('every PUT asks for the storage class, and the result records it', async () => {
    server = await startMemoryS3();
    const result = await runBench(options(server.url, { storageClass: 'WALRUS' }));
    expect(result.ops['put']!.ok).toBe(10);
    expect(server.storageClasses.size).toBe(server.objects.size);
    expect(new Set(server.storageClasses.values())).toEqual(new Set(['WALRUS']));
    expect(result.config.storageClass).toBe('WALRUS');
  });

  it('without it no PUT names a class (the check can fail)', async () => {
    server = await startMemoryS3();
    const result = await runBench(options(server.url));
    expect(server.objects.size).toBeGreaterThan(0);
    expect(server.storageClasses.size).toBe(0);
    expect(result.config.storageClass).toBeNull();
  });

  it('is parsed from the command line', () => {
    const base = ['--endpoint', 'http://127.0.0.1:1', '--access-key', 'a', '--secret-key', 's'];
    expect(parseBenchArgs([...base, '--storage-class', 'WALRUS']).options.storageClass).toBe('WALRUS');
    expect(parseBenchArgs(base).options.storageClass).toBeUndefined();
  });
});
