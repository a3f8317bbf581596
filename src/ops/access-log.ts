// One access-log line and one metrics sample per answered request, for both faces. Lines carry the
// access key id at most: never a secret, a signature or the query string (presigned URLs carry
// their signature there).

import type { Exchange } from '../http/exchange.js';
import type { PublisherRequestObserver } from '../publisher/service/context.js';
import type { S3RequestObserver, S3RequestSummary } from '../s3/context.js';
import { isoTimeField, jsonLineSink, type Logger } from '../log/logger.js';
import type { Metrics } from './metrics.js';

/** nginx's code for a request the client closed before the answer */
const CLIENT_CLOSED = 499;

function statusOf(ex: Exchange): number {
  return ex.status ?? (ex.aborted ? CLIENT_CLOSED : 0);
}

/** What both faces log and count of an answered request: plain data, so that it can come from another thread. */
interface AccessRecord {
  method: string;
  status: number;
  bytesIn: number;
  bytesOut: number;
  durationMs: number;
  aborted: boolean;
}

function accessRecord(ex: Exchange, startedAt: number): AccessRecord {
  return {
    method: ex.head.method,
    status: statusOf(ex),
    bytesIn: ex.received,
    bytesOut: ex.bytesSent,
    durationMs: performance.now() - startedAt,
    aborted: ex.aborted,
  };
}

export interface S3AccessRecord extends AccessRecord {
  summary: Omit<S3RequestSummary, 'startedAt'>;
  /** Date.now() when it was answered */
  time: number;
}

export function s3AccessRecord(ex: Exchange, s: S3RequestSummary): S3AccessRecord {
  const { startedAt, ...summary } = s;
  return { summary, ...accessRecord(ex, startedAt), time: Date.now() };
}

/** Logs and counts S3 access records (this thread's requests, and those front-end threads relay). */
export function s3AccessRecorder(logger: Logger | undefined, metrics: Metrics | undefined): ((r: S3AccessRecord, relayed?: boolean) => void) | undefined {
  const sink = logger && jsonLineSink(logger, 'info');
  const log = !sink && logger?.isLevelEnabled('info') ? logger.child({ face: 's3' }) : undefined;
  if (!sink && !log && !metrics) return undefined;
  return (r, relayed = false) => {
    const s = r.summary;
    if (relayed) metrics?.requests.started('s3');
    metrics?.requests.finished({ face: 's3', operation: s.operation, status: r.status, bytesIn: r.bytesIn, bytesOut: r.bytesOut, durationMs: r.durationMs });
    if (sink) sink.writeRecord(r, s3AccessLine);
    else log?.info(s3AccessFields(r), 'request');
  };
}

export function s3AccessFields(r: S3AccessRecord): Record<string, unknown> {
  const s = r.summary;
  return {
    reqId: s.requestId,
    op: s.operation,
    method: r.method,
    bucket: s.bucket,
    key: s.key,
    status: r.status,
    error: s.errorCode,
    bytesIn: r.bytesIn,
    bytesOut: r.bytesOut,
    ms: Math.round(r.durationMs * 1000) / 1000,
    accessKeyId: s.accessKeyId,
    aborted: r.aborted || undefined,
  };
}

const json = JSON.stringify;

/**
 * The line pino writes for `logger.child({ face: 's3' }).info(s3AccessFields(r), 'request')`, built
 * directly: pino's generic serialization was ~7% of a 4 KiB GET's CPU.
 */
export function s3AccessLine(r: S3AccessRecord): string {
  const s = r.summary;
  let line = `{"level":30${isoTimeField(r.time)},"pid":${process.pid},"face":"s3","reqId":${json(s.requestId)},"op":${json(s.operation)},"method":${json(r.method)}`;
  if (s.bucket !== undefined) line += `,"bucket":${json(s.bucket)}`;
  if (s.key !== undefined) line += `,"key":${json(s.key)}`;
  line += `,"status":${r.status}`;
  if (s.errorCode !== undefined) line += `,"error":${json(s.errorCode)}`;
  line += `,"bytesIn":${r.bytesIn},"bytesOut":${r.bytesOut},"ms":${Math.round(r.durationMs * 1000) / 1000}`;
  if (s.accessKeyId !== undefined) line += `,"accessKeyId":${json(s.accessKeyId)}`;
  if (r.aborted) line += ',"aborted":true';
  return `${line},"msg":"request"}\n`;
}

export function s3AccessObserver(logger: Logger | undefined, metrics: Metrics | undefined): S3RequestObserver | undefined {
  const record = s3AccessRecorder(logger, metrics);
  if (!record) return undefined;
  return {
    started: () => metrics?.requests.started('s3'),
    finished: (ex, s) => record(s3AccessRecord(ex, s)),
  };
}

export interface PublisherAccessRecord extends AccessRecord {
  /** the route's name, 'unrouted' when refused before routing */
  op: string;
}

export function publisherAccessRecord(ex: Exchange, op: string, startedAt: number): PublisherAccessRecord {
  return { op, ...accessRecord(ex, startedAt) };
}

/** Logs and counts publisher access records (this thread's requests, and those front-end threads relay). */
export function publisherAccessRecorder(logger: Logger | undefined, metrics: Metrics | undefined): ((r: PublisherAccessRecord, relayed?: boolean) => void) | undefined {
  const log = logger?.isLevelEnabled('info') ? logger.child({ face: 'publisher' }) : undefined;
  if (!log && !metrics) return undefined;
  return (r, relayed = false) => {
    if (relayed) metrics?.requests.started('publisher');
    metrics?.requests.finished({ face: 'publisher', operation: r.op, status: r.status, bytesIn: r.bytesIn, bytesOut: r.bytesOut, durationMs: r.durationMs });
    // the path of a store carries the endpoint key: only the route is logged
    log?.info(
      {
        op: r.op,
        method: r.method,
        status: r.status,
        bytesIn: r.bytesIn,
        bytesOut: r.bytesOut,
        ms: Math.round(r.durationMs * 1000) / 1000,
        aborted: r.aborted || undefined,
      },
      'request',
    );
  };
}

export function publisherAccessObserver(logger: Logger | undefined, metrics: Metrics | undefined): PublisherRequestObserver | undefined {
  const record = publisherAccessRecorder(logger, metrics);
  if (!record) return undefined;
  return {
    started: () => metrics?.requests.started('publisher'),
    finished: (ex, op, startedAt) => record(publisherAccessRecord(ex, op, startedAt)),
  };
}
