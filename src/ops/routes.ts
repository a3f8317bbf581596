// Operator endpoints on the S3 listener, answered before any S3 processing: health probes (no
// signature, as MinIO's /minio/health/*), Prometheus metrics (optional bearer token) and the admin
// API (root SigV4, src/admin). The bucket name `tusk` is reserved for them (see CreateBucket).

import { timingSafeEqual } from 'node:crypto';
import { framingProblem } from '../http/framing.js';
import type { Exchange, ResponseHeaders } from '../http/exchange.js';
import type { Health } from './health.js';
import type { Metrics } from './metrics.js';
import { consoleCorsHeaders } from '../s3/cors.js';

export const HEALTH_LIVE_PATH = '/tusk/health/live';
export const HEALTH_READY_PATH = '/tusk/health/ready';
export const METRICS_PATH = '/tusk/metrics';
export const ADMIN_PREFIX = '/tusk/admin/';

export interface OpsRouteOptions {
  health: Health;
  metrics?: Metrics;
  /** bearer token /tusk/metrics requires; none = open */
  metricsToken?: string;
  serverHeader: string;
  /** the admin API, once the server is up */
  admin?(): ((ex: Exchange) => Promise<void>) | undefined;
  /** true for a request addressed to a bucket by its host name: its /tusk/... path is an object key */
  isBucketHost?(ex: Exchange): boolean;
  /** the web console's origins, which may read the probes and the metrics and call the admin API (src/console/origins.ts) */
  consoleOrigins?(): readonly string[];
}

export type OpsHandler = (ex: Exchange) => Promise<void> | undefined;

/** The handler for an operator path, or undefined for everything else (S3). */
export function opsRoutes(options: OpsRouteOptions): OpsHandler {
  /** The console's Monitoring and Identity pages call these paths from its own origin. */
  const cors = (ex: Exchange): ResponseHeaders => {
    const origin = ex.head.headers['origin'];
    return origin !== undefined && options.consoleOrigins?.().includes(origin) ? consoleCorsHeaders(origin, ex.head.headers['access-control-request-headers']) : [];
  };
  const json = (ex: Exchange, status: number, body: unknown, extra: ResponseHeaders = []) => {
    const headers: ResponseHeaders = [['Content-Type', 'application/json'], ['Cache-Control', 'no-store'], ['Server', options.serverHeader], ...cors(ex), ...extra];
    const text = JSON.stringify(body);
    if (ex.head.method === 'HEAD') ex.sendHead(status, headers, Buffer.byteLength(text));
    else ex.send(status, headers, text);
  };
  const getOnly = (ex: Exchange) => {
    if (ex.head.method === 'GET' || ex.head.method === 'HEAD') return true;
    json(ex, 405, { error: 'MethodNotAllowed', message: 'use GET or HEAD' }, [['Allow', 'GET, HEAD']]);
    return false;
  };
  return (ex) => {
    const path = ex.head.rawPath;
    // a request with broken framing gets the S3 face's refusal, before anything reads its body
    if (!path.startsWith('/tusk/') || options.isBucketHost?.(ex) || framingProblem(ex.head)) return undefined;
    const preflight = ex.head.method === 'OPTIONS' && (path === HEALTH_LIVE_PATH || path === HEALTH_READY_PATH || path === METRICS_PATH || path.startsWith(ADMIN_PREFIX));
    if (preflight && cors(ex).length > 0) {
      ex.send(204, [['Server', options.serverHeader], ...cors(ex)]);
      return Promise.resolve();
    }
    switch (path) {
      case HEALTH_LIVE_PATH:
        if (getOnly(ex)) json(ex, 200, { status: 'live', uptimeSeconds: Math.round((Date.now() - options.health.startedAt) / 1000) });
        return Promise.resolve();
      case HEALTH_READY_PATH:
        return getOnly(ex) ? ready(ex) : Promise.resolve();
      case METRICS_PATH:
        return getOnly(ex) ? metrics(ex) : Promise.resolve();
    }
    if (path.startsWith(ADMIN_PREFIX)) {
      const admin = options.admin?.();
      if (admin) return admin(ex);
      json(ex, 503, { error: 'ServiceUnavailable', message: 'the server is starting' });
      return Promise.resolve();
    }
    return undefined;
  };

  async function ready(ex: Exchange): Promise<void> {
    const r = await options.health.readiness();
    json(ex, r.ready ? 200 : 503, { status: !r.ready ? 'not ready' : r.degraded.length > 0 ? 'degraded' : 'ready', ...r });
  }

  async function metrics(ex: Exchange): Promise<void> {
    const m = options.metrics;
    if (!m) {
      json(ex, 404, { error: 'NotFound', message: 'metrics are off (--metrics off)' });
      return;
    }
    if (options.metricsToken !== undefined && !bearerMatches(ex.head.headers.authorization, options.metricsToken)) {
      json(ex, 401, { error: 'Unauthorized', message: 'a bearer token is required (--metrics-token)' }, [['WWW-Authenticate', 'Bearer realm="tusk-metrics"']]);
      return;
    }
    const text = await m.exposition();
    const headers: ResponseHeaders = [['Content-Type', m.contentType], ['Server', options.serverHeader], ...cors(ex)];
    if (ex.head.method === 'HEAD') ex.sendHead(200, headers, Buffer.byteLength(text));
    else ex.send(200, headers, text);
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}
