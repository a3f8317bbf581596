import { readFile } from 'node:fs/promises';
import { RESULT_FORMAT, type BenchResult, type OpResult } from './result.js';
import { fixed, ms, textTable } from './table.js';

/** `tusk bench compare a.json b.json`: two runs side by side, ratio = B / A. */
export interface ComparisonRow {
  op: string;
  metric: string;
  a: number | null;
  b: number | null;
  /** b / a, null when either side is missing or a is 0. */
  ratio: number | null;
}

const METRICS: { name: string; pick: (r: OpResult) => number | null | undefined; latency: boolean }[] = [
  { name: 'obj/s', pick: (r) => r.objPerSec, latency: false },
  { name: 'MiB/s', pick: (r) => r.mibPerSec, latency: false },
  { name: 'p50 ms', pick: (r) => r.latencyMs?.p50, latency: true },
  { name: 'p90 ms', pick: (r) => r.latencyMs?.p90, latency: true },
  { name: 'p99 ms', pick: (r) => r.latencyMs?.p99, latency: true },
  { name: 'p99.9 ms', pick: (r) => r.latencyMs?.p999, latency: true },
  { name: 'max ms', pick: (r) => r.latencyMs?.max, latency: true },
  { name: 'ttfb p50 ms', pick: (r) => r.ttfbMs?.p50, latency: true },
  { name: 'errors', pick: (r) => r.errorCount, latency: false },
];

export function compareResults(a: BenchResult, b: BenchResult): ComparisonRow[] {
  const ops = [...new Set([...Object.keys(a.ops), ...Object.keys(b.ops)])];
  const rows: ComparisonRow[] = [];
  for (const op of ops) {
    for (const metric of METRICS) {
      const va = a.ops[op] ? (metric.pick(a.ops[op]) ?? null) : null;
      const vb = b.ops[op] ? (metric.pick(b.ops[op]) ?? null) : null;
      if (va === null && vb === null) continue;
      if (metric.name === 'MiB/s' && !va && !vb) continue; // head/delete/list move no bytes
      const ratio = va !== null && vb !== null && va !== 0 ? vb / va : null;
      rows.push({ op, metric: metric.name, a: va, b: vb, ratio });
    }
  }
  return rows;
}

export function formatComparison(a: BenchResult, b: BenchResult): string {
  const rows = compareResults(a, b).map((r) => {
    const latency = METRICS.find((m) => m.name === r.metric)!.latency;
    const show = (v: number | null) => (latency ? ms(v) : r.metric === 'errors' ? fixed(v, 0) : fixed(v, 2));
    return [r.op, r.metric, show(r.a), show(r.b), r.ratio === null ? '-' : `${r.ratio.toFixed(2)}x`];
  });
  return [
    `A: ${a.label} (${a.config.sizes}, concurrency ${a.config.concurrency}, ${a.startedAt})`,
    `B: ${b.label} (${b.config.sizes}, concurrency ${b.config.concurrency}, ${b.startedAt})`,
    'ratio = B / A (for latency, below 1 means B is faster)',
    '',
    textTable(['op', 'metric', 'A', 'B', 'B/A'], rows),
  ].join('\n');
}

export async function readResult(path: string): Promise<BenchResult> {
  const parsed = JSON.parse(await readFile(path, 'utf8')) as BenchResult;
  if (parsed.format !== RESULT_FORMAT) throw new Error(`${path} is not a tusk bench result (format ${RESULT_FORMAT})`);
  return parsed;
}
