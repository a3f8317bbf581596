// The exchange a request to a logged bucket answers through: the first call that starts the answer
// journals the request's record (journal.ts), with a DeleteObjects' per-object records, before
// passing the answer on, so that no client holds an answer whose record a crash could lose. The
// record's byte count is the body the answer sends, its total time runs to the moment the answer
// starts.

import type { ChunkedWriter, Exchange, ResponseHeaders } from '../../http/exchange.js';
import type { LogLine } from '../../log/log-line.js';
import type { LifecycleAction, S3AccessLogging, S3RequestSummary } from '../context.js';
import type { S3Bucket } from '../object-attrs.js';
import type { Accounts } from '../../identity/accounts.js';
import { AccessLogJournal } from './journal.js';
import { batchDeleteRecords, formatLogRecord, lifecycleRecord, LOG_OPERATION_NAMES, unclassifiedOperationName, type LogRecordFields } from './record.js';
import { newRequestIds } from '../respond.js';
import type { S3Operation } from '../operations.js';

/** Presigned URLs carry their signature in the query: a log reader must not be able to replay them. */
const SIGNATURE_PARAM = /(^|&)(X-Amz-Signature|Signature)=[^&]*/gi;

const byteLength = (body: Buffer | string | undefined): number =>
  body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;

function header(headers: ResponseHeaders, name: string): string | undefined {
  for (const [n, v] of headers) if (n.toLowerCase() === name) return v;
  return undefined;
}

/** The whole object's size an answer tells of: Content-Range's total, else Content-Length. */
function objectSizeOf(headers: ResponseHeaders, bytes: number): number | undefined {
  const range = header(headers, 'content-range');
  const total = range && /\/(\d+)$/.exec(range)?.[1];
  if (total) return Number(total);
  const length = header(headers, 'content-length');
  return length !== undefined ? Number(length) : bytes || undefined;
}

interface Watched {
  bucket: S3Bucket;
  key: string | undefined;
  summary: S3RequestSummary;
  hostId: string;
  remoteIp: string | undefined;
  /** ms since the epoch */
  time: number;
}

/** Server access logging for one thread: its journal, and who an access key is. */
export class ServerAccessLogging implements S3AccessLogging {
  private failures = 0;

  constructor(
    private readonly journal: AccessLogJournal,
    private readonly requesterOf: (accessKeyId: string) => string | undefined,
    private readonly log: LogLine,
  ) {}

  watch(ex: Exchange, bucket: S3Bucket, key: string | undefined, summary: S3RequestSummary, hostId: string): Exchange {
    return new LoggedExchange(ex, this, { bucket, key, summary, hostId, remoteIp: ex.head.remoteAddress?.(), time: Date.now() });
  }

  /** Journals the record of `w`'s answer; a journal that cannot be written is logged, and the answer goes out. */
  record(ex: Exchange, w: Watched, status: number, headers: ResponseHeaders, bytesSent: number): void {
    const { summary, bucket } = w;
    const h = ex.head.headers;
    const query = ex.head.rawQuery.replace(SIGNATURE_PARAM, '$1$2=-');
    const uploadOrPut = ex.head.method === 'PUT' || ex.head.method === 'POST';
    const fields: LogRecordFields = {
      bucketOwner: bucket.owner,
      bucket: bucket.name,
      time: w.time,
      remoteIp: w.remoteIp,
      requester: summary.accessKeyId === undefined ? undefined : this.requesterOf(summary.accessKeyId),
      requestId: summary.requestId,
      operation: LOG_OPERATION_NAMES[summary.operation as S3Operation] ?? unclassifiedOperationName(ex.head.method),
      key: w.key,
      requestUri: `${ex.head.method} ${ex.head.rawPath}${query ? `?${query}` : ''} HTTP/1.1`,
      status,
      errorCode: summary.errorCode,
      bytesSent,
      objectSize: uploadOrPut && w.key !== undefined ? ex.received || undefined : objectSizeOf(headers, bytesSent),
      totalTimeMs: performance.now() - summary.startedAt,
      turnAroundTimeMs: performance.now() - summary.startedAt,
      referer: h['referer'],
      userAgent: h['user-agent'],
      versionId: header(headers, 'x-amz-version-id'),
      hostId: w.hostId,
      signatureVersion: summary.signatureVersion,
      authType: summary.authType,
      hostHeader: h['host'],
      tlsVersion: undefined,
      aclRequired: summary.aclRequired,
    };
    this.append(bucket, w.time, [formatLogRecord(fields), ...batchDeleteRecords(fields, summary.batchDeleted ?? [])]);
  }

  /** Journals the record of what lifecycle did to a logged bucket, once the engine committed it (record.ts lifecycleRecord). */
  lifecycle(bucket: S3Bucket, action: LifecycleAction): void {
    if (!bucket.logging) return;
    const time = Date.now();
    this.append(bucket, time, [lifecycleRecord(bucket, action, time, newRequestIds())]);
  }

  /** A journal that cannot be written is logged (once per thousand failures), and the caller goes on. */
  private append(bucket: S3Bucket, time: number, lines: string[]): void {
    const logging = bucket.logging!;
    try {
      for (const line of lines) {
        this.journal.append({
          t: logging.targetBucket,
          p: logging.targetPrefix,
          ...(logging.partitioned ? { d: logging.partitioned.dateSource } : {}),
          s: bucket.name,
          o: bucket.owner,
          e: time,
          l: line,
        });
      }
    } catch (e) {
      if (this.failures++ % 1000 === 0) {
        this.log(`server access log: a record of ${bucket.name} could not be journaled (${(e as Error).message}); ${this.failures} so far`, 'error');
      }
    }
  }
}

/** This thread's journal and the logging that writes it; `onReady` hears of each file ready for delivery. */
export function startServerAccessLogging(dataDir: string, flushMs: number, accounts: Accounts, log: LogLine, onReady?: () => void) {
  const journal = new AccessLogJournal(dataDir, flushMs, onReady);
  const logging = new ServerAccessLogging(journal, (keyId) => accounts.lookup(keyId)?.account.canonicalId, log);
  return { journal, logging };
}

class LoggedExchange implements Exchange {
  private recorded = false;

  constructor(
    private readonly inner: Exchange,
    private readonly logging: ServerAccessLogging,
    private readonly w: Watched,
  ) {}

  get head() { return this.inner.head; }
  get aborted() { return this.inner.aborted; }
  get responded() { return this.inner.responded; }
  get status() { return this.inner.status; }
  get bytesSent() { return this.inner.bytesSent; }
  get bodyEnded() { return this.inner.bodyEnded; }
  get received() { return this.inner.received; }
  onAbort(listener: () => void): void { this.inner.onAbort(listener); }
  discardSmallBody(maxBytes: number, timeoutMs: number): Promise<void> { return this.inner.discardSmallBody(maxBytes, timeoutMs); }
  nextBodyChunk(): Promise<Buffer | null> { return this.inner.nextBodyChunk(); }
  close(): void { this.inner.close(); }

  private record(status: number, headers: ResponseHeaders, bytes: number): void {
    if (this.recorded || this.inner.aborted) return;
    this.recorded = true;
    this.logging.record(this.inner, this.w, status, headers, bytes);
  }

  send(status: number, headers: ResponseHeaders, body?: Buffer | string, close?: boolean): void {
    this.record(status, headers, byteLength(body));
    this.inner.send(status, headers, body, close);
  }

  sendHead(status: number, headers: ResponseHeaders, contentLength: number | undefined, close?: boolean): void {
    this.record(status, headers, 0);
    this.inner.sendHead(status, headers, contentLength, close);
  }

  stream(status: number, headers: ResponseHeaders, total: number, read: (maxBytes: number) => Promise<Buffer | null>): Promise<void> {
    this.record(status, headers, total);
    return this.inner.stream(status, headers, total, read);
  }

  beginChunked(status: number, headers: ResponseHeaders): ChunkedWriter {
    const chunked = this.inner.beginChunked(status, headers);
    let bytes = 0;
    return {
      write: (data) => {
        bytes += Buffer.byteLength(data);
        return chunked.write(data);
      },
      // the answer is complete only with its last chunk: the record goes first
      end: (data) => {
        this.record(status, headers, bytes + Buffer.byteLength(data));
        chunked.end(data);
      },
    };
  }
}
