import { summarize, type LatencySummary, type OpStats } from './stats.js';
import type { IntervalResult } from './timeline.js';

/** The JSON shape of one run (`--json`), read back by `tusk bench compare`. */
export const RESULT_FORMAT = 'tusk-bench/1';

export interface OpResult {
  ok: number;
  errors: Record<string, number>;
  errorCount: number;
  bytes: number;
  /** Keys listed (LIST only). */
  items: number;
  objPerSec: number;
  mibPerSec: number;
  itemsPerSec: number;
  latencyMs: LatencySummary | null;
  /** Time to first body byte (GET and LIST). */
  ttfbMs: LatencySummary | null;
}

export interface CpuUse {
  userMs: number;
  systemMs: number;
  /** (user + system) / wall time of the measured phase; 100 = one core busy. */
  percentOfOneCore: number;
  cores: number;
}

export interface BenchResult {
  format: typeof RESULT_FORMAT;
  label: string;
  endpoint: string;
  startedAt: string;
  config: {
    mix: Record<string, number>;
    sizes: string;
    concurrency: number;
    durationMs: number | null;
    count: number | null;
    warmupMs: number;
    rate: number | null;
    objects: number;
    payload: string;
    /** absent in files from before --sse existed */
    sse?: string | null;
    /** absent in files from before --storage-class existed */
    storageClass?: string | null;
    addressing: string;
    seed: number;
  };
  measuredSeconds: number;
  /** one entry per second of the measured phase (absent in files from before it existed) */
  timeline?: IntervalResult[];
  ops: Record<string, OpResult>;
  total: OpResult;
  cpu: CpuUse;
  /** the server's CPU time during the measured phase, when the run was given a probe for it (options.serverCpuMs) */
  serverCpuMs?: number;
  notes: string[];
  /** Set when nothing could be measured (e.g. multipart on an endpoint that answers NotImplemented). */
  skipped: string | null;
}

export function opResult(stats: OpStats, seconds: number): OpResult {
  const perSec = (n: number) => (seconds > 0 ? n / seconds : 0);
  return {
    ok: stats.ok,
    errors: Object.fromEntries([...stats.errors].sort((a, b) => b[1] - a[1])),
    errorCount: stats.errorCount,
    bytes: stats.bytes,
    items: stats.items,
    objPerSec: perSec(stats.ok),
    mibPerSec: perSec(stats.bytes / 1024 / 1024),
    itemsPerSec: perSec(stats.items),
    latencyMs: summarize(stats.latencyMs),
    ttfbMs: summarize(stats.ttfbMs),
  };
}
