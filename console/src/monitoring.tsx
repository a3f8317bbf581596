// Monitoring: readiness (/tusk/health/ready) and requests per second from the Prometheus counter
// tusk_requests_total (/tusk/metrics), read every REFRESH_MS and drawn over the last minutes.

import { useEffect, useState } from 'preact/hooks';
import type { S3 } from './s3.js';
import { formatBytes, message, Notice } from './ui.js';

const REFRESH_MS = 2000;
const POINTS = 90;

/** The sum of every sample of `name` (all label sets) in a Prometheus text exposition. */
export function sumSamples(exposition: string, name: string): number | undefined {
  let total: number | undefined;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}

interface Sample {
  at: number;
  rate: number;
}

function Chart({ samples }: { samples: Sample[] }) {
  const w = 600;
  const h = 160;
  const max = Math.max(1, ...samples.map((s) => s.rate));
  const points = samples.map((s, i) => `${(i / (POINTS - 1)) * w},${h - (s.rate / max) * (h - 10)}`).join(' ');
  const last = samples.at(-1)?.rate ?? 0;
  return (
    <figure>
      <svg viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`Requests per second, last ${samples.length} readings; now ${last.toFixed(1)}, peak ${max.toFixed(1)}`} class="chart">
        <line x1="0" y1={h} x2={w} y2={h} class="axis" />
        <polyline points={points} class="series" />
      </svg>
      <figcaption>
        Requests per second (every face, every operation): now <output aria-label="Requests per second now">{last.toFixed(1)}</output>, peak {max.toFixed(1)}
      </figcaption>
    </figure>
  );
}

export function MonitoringPage({ s3 }: { s3: S3 }) {
  const [ready, setReady] = useState<{ status?: string; detail?: string; error?: string }>({});
  const [samples, setSamples] = useState<Sample[]>([]);
  const [gauges, setGauges] = useState<{ diskFree?: number; uptime?: number }>({});
  const [metricsError, setMetricsError] = useState<string>();
  useEffect(() => {
    let previous: { at: number; total: number } | undefined;
    let live = true;
    const tick = async () => {
      try {
        const r = await s3.operator('/tusk/health/ready');
        const body = (await r.json()) as { status?: string; degraded?: string[]; reasons?: string[] };
        if (live) setReady({ status: body.status, detail: [...(body.degraded ?? []), ...(body.reasons ?? [])].join('; ') });
      } catch (e) {
        if (live) setReady({ error: message(e) });
      }
      try {
        const r = await s3.operator('/tusk/metrics');
        if (!r.ok) throw new Error(r.status === 401 ? 'the metrics need a bearer token (--metrics-token): not shown here' : `HTTP ${r.status}`);
        const text = await r.text();
        const total = sumSamples(text, 'tusk_requests_total') ?? 0;
        const at = performance.now();
        if (live && previous) {
          const rate = Math.max(0, ((total - previous.total) * 1000) / (at - previous.at));
          setSamples((all) => [...all, { at, rate }].slice(-POINTS));
        }
        previous = { at, total };
        if (live) {
          setGauges({ diskFree: sumSamples(text, 'tusk_disk_free_bytes'), uptime: sumSamples(text, 'tusk_uptime_seconds') });
          setMetricsError(undefined);
        }
      } catch (e) {
        if (live) setMetricsError(message(e));
      }
    };
    void tick();
    const timer = setInterval(() => void tick(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [s3]);
  return (
    <>
      <h1>Monitoring</h1>
      <section aria-labelledby="health">
        <h2 id="health">Health</h2>
        {ready.error ? <Notice error>{ready.error}</Notice> : <p>Readiness: <strong>{ready.status ?? '…'}</strong>{ready.detail ? ` (${ready.detail})` : ''}</p>}
        <dl>
          <dt>Free disk</dt>
          <dd>{gauges.diskFree === undefined ? '…' : formatBytes(gauges.diskFree)}</dd>
          <dt>Up for</dt>
          <dd>{gauges.uptime === undefined ? '…' : `${Math.round(gauges.uptime)} s`}</dd>
        </dl>
      </section>
      <section aria-labelledby="traffic">
        <h2 id="traffic">Traffic</h2>
        {metricsError && <Notice error>{metricsError}</Notice>}
        <Chart samples={samples} />
      </section>
    </>
  );
}
