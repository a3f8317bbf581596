// One access-log line and one metrics sample per answered request, for both faces. Lines carry the
// access key id at most: never a secret, a signature or the query string (presigned URLs carry
// their signature there).

import type { Exchange } from '../http/uws.js';
import type { PublisherRequestObserver } from '../publisher/service/context.js';
import type { S3RequestObserver, S3RequestSummary } from '../s3/context.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/** nginx's code for a request the client closed before the answer */
const CLIENT_CLOSED = 499;

function statusOf(ex: Exchange): number {
  return ex.status ?? (ex.aborted ? CLIENT_CLOSED : 0);
}

export function s3AccessObserver(logger: Logger | undefined, metrics: Metrics | undefined): S3RequestObserver | undefined {
  const log = logger?.isLevelEnabled('info') ? logger.child({ face: 's3' }) : undefined;
  if (!log && !metrics) return undefined;
  return {
    started: () => metrics?.requests.started('s3'),
    finished(ex: Exchange, s: S3RequestSummary) {
      const durationMs = performance.now() - s.startedAt;
      const status = statusOf(ex);
      metrics?.requests.finished({ face: 's3', operation: s.operation, status, bytesIn: ex.received, bytesOut: ex.bytesSent, durationMs });
      log?.info(
        {
          reqId: s.requestId,
          op: s.operation,
          method: ex.head.method,
          bucket: s.bucket,
          key: s.key,
          status,
          error: s.errorCode,
          bytesIn: ex.received,
          bytesOut: ex.bytesSent,
          ms: Math.round(durationMs * 1000) / 1000,
          accessKeyId: s.accessKeyId,
          aborted: ex.aborted || undefined,
        },
        'request',
      );
    },
  };
}

export function publisherAccessObserver(logger: Logger | undefined, metrics: Metrics | undefined): PublisherRequestObserver | undefined {
  const log = logger?.isLevelEnabled('info') ? logger.child({ face: 'publisher' }) : undefined;
  if (!log && !metrics) return undefined;
  return {
    started: () => metrics?.requests.started('publisher'),
    finished(ex, route, startedAt) {
      const durationMs = performance.now() - startedAt;
      const status = statusOf(ex);
      metrics?.requests.finished({ face: 'publisher', operation: route, status, bytesIn: ex.received, bytesOut: ex.bytesSent, durationMs });
      log?.info(
        {
          op: route,
          method: ex.head.method,
          // the path of a store carries the endpoint key: only the route is logged
          status,
          bytesIn: ex.received,
          bytesOut: ex.bytesSent,
          ms: Math.round(durationMs * 1000) / 1000,
          aborted: ex.aborted || undefined,
        },
        'request',
      );
    },
  };
}
