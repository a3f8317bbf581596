// The measured phase cut into intervals (one per progress tick): rates and latency per interval,
// for the live progress line and for plotting a run from its JSON.

import { OpStats, percentile } from './stats.js';

export interface IntervalResult {
  /** end of the interval, seconds since the measured phase began */
  t: number;
  seconds: number;
  ok: number;
  errors: number;
  okPerSec: number;
  mibPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export class Timeline {
  readonly intervals: IntervalResult[] = [];
  current = new OpStats();
  private startedAt = 0;

  /** Ends the current interval at `t` seconds and starts the next. */
  close(t: number): IntervalResult {
    const c = this.current;
    const seconds = Math.max(t - this.startedAt, 1e-9);
    const sorted = c.latencyMs.sorted();
    const interval: IntervalResult = {
      t,
      seconds,
      ok: c.ok,
      errors: c.errorCount,
      okPerSec: c.ok / seconds,
      mibPerSec: c.bytes / 1024 / 1024 / seconds,
      p50Ms: sorted.length ? percentile(sorted, 50) : null,
      p99Ms: sorted.length ? percentile(sorted, 99) : null,
    };
    this.intervals.push(interval);
    this.current = new OpStats();
    this.startedAt = t;
    return interval;
  }
}
