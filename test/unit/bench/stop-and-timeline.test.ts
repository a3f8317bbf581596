import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FatalBenchError } from '../../../src/bench/fatal.js';
import type { BenchOptions } from '../../../src/bench/options.js';
import { runBench } from '../../../src/bench/scenario.js';
import { parseSizeDistribution } from '../../../src/bench/sizes.js';
import { startMemoryS3, type MemoryS3 } from './memory-s3.js';

function options(endpoint: string, overrides: Partial<BenchOptions> = {}): BenchOptions {
  return {
    endpoint, accessKeyId: 'ak', secretAccessKey: 'sk', region: 'us-east-1', addressing: 'path',
    mix: { put: 1 }, sizes: parseSizeDistribution('1KiB'), concurrency: 4, durationMs: 3000,
    warmupMs: 0, partSize: 8 << 20, listMaxKeys: 1000, seed: 1, payload: 'unsigned',
    timeoutMs: 5000, keep: false, ...overrides,
  };
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('bench stops at once', () => {
  let server: MemoryS3 | undefined;
  let other: http.Server | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await new Promise<void>((r) => (other ? other.close(() => r()) : r()));
    other = undefined;
  });

  it('when the endpoint refuses connections', async () => {
    const started = Date.now();
    const err = await runBench(options(`http://127.0.0.1:${await freePort()}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FatalBenchError);
    expect((err as FatalBenchError).kind).toBe('unreachable');
    expect((err as Error).message).toMatch(/refuses connections \(ECONNREFUSED\)/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('when the endpoint goes away during the run, without thousands of failed requests', async () => {
    server = await startMemoryS3();
    const closing = server;
    setTimeout(() => void closing.close(), 500);
    const started = Date.now();
    const err = await runBench(options(server.url)).catch((e: unknown) => e);
    server = undefined;
    expect((err as FatalBenchError).kind).toBe('unreachable');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('when the endpoint rejects the credentials', async () => {
    let requests = 0;
    other = http.createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        if (req.method === 'HEAD') res.writeHead(404).end();
        else if (req.url!.split('/').length === 2) res.writeHead(200).end();
        else res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>InvalidAccessKeyId</Code></Error>');
      });
    });
    await new Promise<void>((r) => other!.listen(0, '127.0.0.1', r));
    const err = await runBench(options(`http://127.0.0.1:${(other.address() as AddressInfo).port}`)).catch((e: unknown) => e);
    expect((err as FatalBenchError).kind).toBe('credentials');
    expect((err as Error).message).toMatch(/rejects the credentials \(InvalidAccessKeyId\).*--access-key/);
    expect(requests).toBeLessThan(10);
  });
});

describe('bench result', () => {
  let server: MemoryS3 | undefined;
  afterEach(async () => server?.close());

  it('has p99.9 and a per-second time series that adds up to the totals', async () => {
    server = await startMemoryS3();
    const lines: string[] = [];
    const result = await runBench(options(server.url, { durationMs: 2200, concurrency: 2 }), () => {}, (l) => l !== null && lines.push(l));
    const put = result.ops['put']!;
    expect(put.latencyMs!.p999).toBeGreaterThanOrEqual(put.latencyMs!.p99);
    expect(put.latencyMs!.max).toBeGreaterThanOrEqual(put.latencyMs!.p999);
    const timeline = result.timeline!;
    expect(timeline.length).toBeGreaterThanOrEqual(3);
    expect(timeline.reduce((n, i) => n + i.ok, 0)).toBe(put.ok);
    for (const i of timeline.slice(0, -1)) {
      expect(i.okPerSec).toBeGreaterThan(0);
      expect(i.mibPerSec).toBeCloseTo((i.ok * 1024) / 1024 / 1024 / i.seconds, 5);
      expect(i.p99Ms).not.toBeNull();
    }
    expect(lines.some((l) => /ops\/s, [\d.]+ MiB\/s, p99 [\d.]+ ms/.test(l))).toBe(true);
  });
});
