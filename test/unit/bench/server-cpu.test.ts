import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../../src/bench/options.js';
import { formatReport } from '../../../src/bench/report.js';
import { runBench } from '../../../src/bench/scenario.js';
import { processCpuMs } from '../../../src/bench/server-cpu.js';
import { parseSizeDistribution } from '../../../src/bench/sizes.js';
import { startMemoryS3 } from './memory-s3.js';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('server CPU', () => {
  it('processCpuMs follows a process\'s CPU time (here: this one, against process.cpuUsage)', () => {
    const usage = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const before = [processCpuMs(process.pid), usage()];
    spin(300);
    const grew = processCpuMs(process.pid) - before[0]!;
    const reference = usage() - before[1]!;
    expect(grew).toBeGreaterThan(200);
    // /proc counts in 10 ms ticks, and other threads of this process run too
    expect(Math.abs(grew - reference)).toBeLessThan(60);
  });

  it('--server-pid takes a live process and refuses one that is not there', () => {
    const base = ['--endpoint', 'http://127.0.0.1:1', '--access-key', 'ak', '--secret-key', 'sk'];
    const { options } = parseBenchArgs([...base, '--server-pid', String(process.pid)], {});
    expect(options.serverCpuMs!()).toBeGreaterThan(0);
    expect(() => parseBenchArgs([...base, '--server-pid', '999999999'], {})).toThrow();
    expect(() => parseBenchArgs([...base, '--server-pid', 'abc'], {})).toThrow(/positive integer/);
  });

  it('a run given a probe reports the server CPU of its measured phase, per operation in the report', async () => {
    const server = await startMemoryS3();
    try {
      // the in-memory server runs in this process: its CPU is this process's
      const result = await runBench({
        endpoint: server.url, accessKeyId: 'ak', secretAccessKey: 'sk', region: 'us-east-1', addressing: 'path',
        mix: { put: 1 }, sizes: parseSizeDistribution('1KiB'), concurrency: 4, durationMs: 600, warmupMs: 200,
        partSize: 8 << 20, listMaxKeys: 1000, seed: 1, payload: 'unsigned', timeoutMs: 5000, keep: false,
        serverCpuMs: () => processCpuMs(process.pid),
      });
      expect(result.total.ok).toBeGreaterThan(0);
      expect(result.serverCpuMs).toBeGreaterThan(0);
      // not the warm-up nor the population: at most the measured phase's wall time on every core
      expect(result.serverCpuMs!).toBeLessThan((result.measuredSeconds * 1000 + 200) * result.cpu.cores);
      expect(formatReport(result)).toMatch(/server CPU: \d+ ms, [\d.]+ µs per operation/);
    } finally {
      await server.close();
    }
  });
});
