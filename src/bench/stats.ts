/** Latency samples and per-operation counters; percentiles are exact (nearest rank over all samples). */

export class SampleBuffer {
  private data = new Float64Array(1024);
  private count = 0;

  push(value: number): void {
    if (this.count === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.count++] = value;
  }

  get length(): number {
    return this.count;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.count).sort();
  }
}

/** Nearest-rank percentile: the smallest sample with at least p% of samples <= it. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

export function summarize(samples: SampleBuffer): LatencySummary | null {
  if (samples.length === 0) return null;
  const sorted = samples.sorted();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted[sorted.length - 1]!,
    mean: sum / sorted.length,
  };
}

export class OpStats {
  ok = 0;
  bytes = 0;
  /** Keys returned by LIST pages. */
  items = 0;
  readonly errors = new Map<string, number>();
  readonly latencyMs = new SampleBuffer();
  readonly ttfbMs = new SampleBuffer();

  recordOk(latencyMs: number, bytes: number, ttfbMs?: number, items = 0): void {
    this.ok++;
    this.bytes += bytes;
    this.items += items;
    this.latencyMs.push(latencyMs);
    if (ttfbMs !== undefined) this.ttfbMs.push(ttfbMs);
  }

  recordError(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  get errorCount(): number {
    let n = 0;
    for (const c of this.errors.values()) n += c;
    return n;
  }
}
