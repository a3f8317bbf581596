// Per-request metrics kept in plain counters: a request costs one Map look-up and a few additions
// (prom-client's labelled metrics hash their labels on every update, several µs a request: most
// of the 5% budget at 4 KiB); the registry reads them when scraped, in its text format.

import type { Registry } from 'prom-client';

/** What a request contributes: `face` is s3 or publisher; `operation` the S3 operation or publisher route. */
export interface RequestSample {
  face: string;
  operation: string;
  status: number;
  bytesIn: number;
  bytesOut: number;
  durationMs: number;
}

/** S3 latency spans sub-millisecond small GETs to multi-second large PUTs. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Series {
  face: string;
  operation: string;
  status: string;
  count: number;
  seconds: number;
  /** per bucket, not cumulative */
  buckets: Float64Array;
  bytesIn: number;
  bytesOut: number;
}

type Labels = Record<string, string | number>;
type Value = { value: number; labels: Labels; metricName?: string };

export class RequestMetrics {
  private readonly series = new Map<string, Series>();
  private readonly inFlight = new Map<string, number>();

  started(face: string): void {
    this.inFlight.set(face, (this.inFlight.get(face) ?? 0) + 1);
  }

  finished(s: RequestSample): void {
    this.inFlight.set(s.face, (this.inFlight.get(s.face) ?? 1) - 1);
    const id = `${s.face} ${s.operation} ${s.status}`;
    let series = this.series.get(id);
    if (!series) {
      series = { face: s.face, operation: s.operation, status: String(s.status), count: 0, seconds: 0, buckets: new Float64Array(LATENCY_BUCKETS.length), bytesIn: 0, bytesOut: 0 };
      this.series.set(id, series);
    }
    const seconds = s.durationMs / 1000;
    series.count++;
    series.seconds += seconds;
    series.bytesIn += s.bytesIn;
    series.bytesOut += s.bytesOut;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]!) {
        series.buckets[i]!++;
        break;
      }
    }
  }

  /** Adds the request metrics to `registry` (read when scraped). */
  register(registry: Registry): void {
    const add = (name: string, help: string, type: 'counter' | 'gauge' | 'histogram', values: () => Value[]) =>
      registry.registerMetric({
        name,
        help,
        type,
        aggregator: 'sum',
        get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      } as unknown as Parameters<Registry['registerMetric']>[0]);
    const labels = (s: Series) => ({ face: s.face, operation: s.operation, status: s.status });
    add('tusk_requests_total', 'Requests answered, by face, operation and status', 'counter', () =>
      [...this.series.values()].map((s) => ({ value: s.count, labels: labels(s) })),
    );
    add('tusk_request_duration_seconds', 'Time from the request head to the last response byte', 'histogram', () =>
      [...this.series.values()].flatMap((s) => histogramValues('tusk_request_duration_seconds', s, labels(s))),
    );
    add('tusk_received_bytes_total', 'Request body bytes received', 'counter', () => this.bytes((s) => s.bytesIn));
    add('tusk_sent_bytes_total', 'Response body bytes sent', 'counter', () => this.bytes((s) => s.bytesOut));
    add('tusk_requests_in_flight', 'Requests being answered', 'gauge', () =>
      [...this.inFlight].map(([face, n]) => ({ value: n, labels: { face } })),
    );
  }

  /** Bytes by face and operation, over all statuses. */
  private bytes(pick: (s: Series) => number): Value[] {
    const sums = new Map<string, Value>();
    for (const s of this.series.values()) {
      const id = `${s.face} ${s.operation}`;
      const v = sums.get(id) ?? { value: 0, labels: { face: s.face, operation: s.operation } };
      v.value += pick(s);
      sums.set(id, v);
    }
    return [...sums.values()];
  }
}

function histogramValues(name: string, s: Series, labels: Labels): Value[] {
  const out: Value[] = [];
  let cumulative = 0;
  for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
    cumulative += s.buckets[i]!;
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: LATENCY_BUCKETS[i]! }, value: cumulative });
  }
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: s.count });
  out.push({ metricName: `${name}_sum`, labels, value: s.seconds });
  out.push({ metricName: `${name}_count`, labels, value: s.count });
  return out;
}
