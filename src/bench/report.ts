import type { BenchResult, OpResult } from './result.js';
import { fixed, ms, textTable } from './table.js';

/** The human-readable report of one run. */
export function formatReport(result: BenchResult): string {
  const c = result.config;
  const lines: string[] = [];
  const shape = c.rate ? `open loop at ${c.rate} ops/s (latency from scheduled start)` : 'closed loop';
  const amount = c.count !== null ? `${c.count} ops` : `${((c.durationMs ?? 0) / 1000).toFixed(1)} s`;
  lines.push(`tusk bench — ${result.label}`);
  lines.push(
    `  ${Object.entries(c.mix).map(([op, w]) => `${op}=${w}`).join(',')} | size ${c.sizes} | concurrency ${c.concurrency}` +
      ` | ${amount} after ${(c.warmupMs / 1000).toFixed(1)} s warm-up | ${shape}` +
      (c.objects ? ` | ${c.objects} prepared objects` : ''),
  );
  if (result.skipped) {
    lines.push(`  skipped: ${result.skipped}`);
    return lines.join('\n');
  }
  lines.push(`  measured ${result.measuredSeconds.toFixed(2)} s`, '');
  const header = ['op', 'ok', 'errors', 'obj/s', 'MiB/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'ttfb p50', 'ttfb p99'];
  const row = (name: string, r: OpResult) => [
    name, String(r.ok), String(r.errorCount), fixed(r.objPerSec, 1), r.bytes > 0 ? fixed(r.mibPerSec, 2) : '-',
    ms(r.latencyMs?.p50), ms(r.latencyMs?.p90), ms(r.latencyMs?.p99), ms(r.latencyMs?.p999), ms(r.latencyMs?.max),
    ms(r.ttfbMs?.p50), ms(r.ttfbMs?.p99),
  ];
  const ops = Object.entries(result.ops);
  const rows = ops.map(([op, r]) => row(op, r));
  if (ops.length > 1) rows.push(row('total', result.total));
  lines.push(textTable(header, rows));
  const list = result.ops['list'];
  if (list && list.items > 0) lines.push('', `list: ${fixed(list.itemsPerSec, 0)} keys/s`);
  const errors = Object.entries(result.total.errors);
  if (errors.length > 0) {
    lines.push('', 'errors by code:');
    for (const [op, r] of ops) {
      for (const [code, n] of Object.entries(r.errors)) lines.push(`  ${op.padEnd(9)} ${code}: ${n}`);
    }
  }
  lines.push(
    '',
    `generator CPU: ${fixed(result.cpu.percentOfOneCore, 0)}% of one core (user ${fixed(result.cpu.userMs, 0)} ms,` +
      ` system ${fixed(result.cpu.systemMs, 0)} ms; ${result.cpu.cores} cores on this machine)`,
  );
  if (result.serverCpuMs !== undefined) {
    const operations = result.total.ok + result.total.errorCount;
    lines.push(`server CPU: ${fixed(result.serverCpuMs, 0)} ms, ${operations ? fixed((1000 * result.serverCpuMs) / operations, 1) : '-'} µs per operation`);
  }
  for (const note of result.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}
