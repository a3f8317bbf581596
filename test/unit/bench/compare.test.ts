import { describe, expect, it } from 'vitest';
import { compareResults, formatComparison } from '../../../src/bench/compare.js';
import { RESULT_FORMAT, type BenchResult, type OpResult } from '../../../src/bench/result.js';

function op(objPerSec: number, p50: number, errors = 0): OpResult {
  return {
    ok: 100, errors: errors ? { InternalError: errors } : {}, errorCount: errors, bytes: 1 << 20, items: 0,
    objPerSec, mibPerSec: objPerSec / 256, itemsPerSec: 0,
    latencyMs: { p50, p90: p50 * 2, p99: p50 * 4, p999: p50 * 6, max: p50 * 10, mean: p50 },
    ttfbMs: null,
  };
}

function result(label: string, ops: Record<string, OpResult>): BenchResult {
  return {
    format: RESULT_FORMAT, label, endpoint: 'http://127.0.0.1:1', startedAt: '2025-01-01T00:00:00.000Z',
    config: {
      mix: { get: 1 }, sizes: '4 KiB', concurrency: 8, durationMs: 1000, count: null, warmupMs: 0, rate: null,
      objects: 10, payload: 'unsigned', addressing: 'path', seed: 1,
    },
    measuredSeconds: 1, ops, total: Object.values(ops)[0]!,
    cpu: { userMs: 1, systemMs: 1, percentOfOneCore: 1, cores: 2 }, notes: [], skipped: null,
  };
}

describe('compare', () => {
  const a = result('tusk', { get: op(1000, 2), put: op(400, 5) });
  const b = result('s3rver', { get: op(250, 8, 3), list: op(10, 40) });

  it('computes B/A for every metric of every operation on either side', () => {
    const rows = compareResults(a, b);
    const row = (o: string, metric: string) => rows.find((r) => r.op === o && r.metric === metric)!;
    expect(row('get', 'obj/s')).toEqual({ op: 'get', metric: 'obj/s', a: 1000, b: 250, ratio: 0.25 });
    expect(row('get', 'p50 ms').ratio).toBe(4);
    expect(row('get', 'p99 ms')).toMatchObject({ a: 8, b: 32, ratio: 4 });
    expect(row('get', 'errors')).toMatchObject({ a: 0, b: 3, ratio: null });
    expect(row('put', 'obj/s')).toMatchObject({ a: 400, b: null, ratio: null });
    expect(row('list', 'obj/s')).toMatchObject({ a: null, b: 10, ratio: null });
    expect(rows.some((r) => r.metric === 'ttfb p50 ms')).toBe(false);
  });

  it('renders a table with labels and ratios', () => {
    const text = formatComparison(a, b);
    expect(text).toContain('A: tusk');
    expect(text).toContain('B: s3rver');
    expect(text).toMatch(/get\s+obj\/s\s+1000\.00\s+250\.00\s+0\.25x/);
    expect(text).toMatch(/get\s+p50 ms\s+2\.00\s+8\.00\s+4\.00x/);
  });
});
