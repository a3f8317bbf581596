// The publisher face's HTTP listener (walrus.md §10–11, seed interface B): store under
// /<endpoint_key>/v1/blobs, aggregator reads, ledger look-ups and status, each request checked
// in the order query → size → admission → body → encode, so a refusal costs no encoding.

import { AbortedError, listen, type Exchange, type ResponseHeaders, type TlsFiles } from '../../http/uws.js';
import type { BlobCodec } from '../codec-types.js';
import { isObjectId, parseLedgerRoute, runLedgerQuery, type Ledger } from '../ledger/index.js';
import type { StorageNetwork } from '../nodes/network.js';
import { AdmissionLimiter } from './admission.js';
import { openBlob } from './aggregator.js';
import { parseByteRange } from './byte-range.js';
import type { Logger, PublisherContext, PublisherRequestObserver } from './context.js';
import { PublisherError, renderError } from './errors.js';
import { KeyedLock } from './keyed-lock.js';
import { startReclaimer, type Reclaimer } from './reclaim.js';
import { checkDeclaredLength, declaredLength, drainBody, readBody } from './request-body.js';
import { parseByteRangeQuery, parseReadQuery, type ByteRangeQuery } from './read-query.js';
import { classifyPublisherRequest, EndpointKeys } from './routes.js';
import { checkEncodable, storeBlob } from './store-blob.js';
import { parseStoreQuery } from './store-query.js';

/** walrus.md §10.4: 10 MiB, the Walrus publisher's default `--max-body-size`. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** walrus.md §10.4: 8 in flight and 8 buffered per route. */
export const DEFAULT_MAX_CONCURRENT = 8;
export const DEFAULT_QUEUE = 8;
/** walrus.md §11: the aggregator's 256 in flight + 320 buffered. */
const AGGREGATOR_MAX_CONCURRENT = 256;
const AGGREGATOR_QUEUE = 320;
export const DEFAULT_RECLAIM_INTERVAL_MS = 60_000;
/** An early error answer reads (and drops) at most this much of the body to keep the connection; past it, it closes. */
const DRAIN_LIMIT = 1 << 20;
const STREAM_CHUNK = 1 << 19;

const JSON_HEADERS: ResponseHeaders = [
  ['content-type', 'application/json'],
  ['server', 'Tusk'],
];

export interface PublisherOptions {
  host: string;
  port: number;
  endpointKeys: string[];
  nShards: number;
  maxBodyBytes: number;
  ledger: Ledger;
  network: StorageNetwork;
  codec: BlobCodec;
  maxConcurrent?: number;
  queue?: number;
  reclaimIntervalMs?: number;
  log?: Logger;
  observer?: PublisherRequestObserver;
  tls?: TlsFiles;
}

export interface RunningPublisher {
  port: number;
  /** Loads the TLS files again (SIGHUP). */
  reloadTls(): Promise<void>;
  /** Runs one reclaim pass now (tests and operators). */
  reclaimNow(): ReturnType<Reclaimer['runNow']>;
  /** Stops listening, waits for in-flight requests (at most `graceMs`) and the reclaimer. Does not close ledger, network or codec. */
  close(graceMs?: number): Promise<void>;
}

export async function startPublisher(opts: PublisherOptions): Promise<RunningPublisher> {
  if (opts.network.nShards !== opts.nShards) throw new RangeError(`the storage network serves ${opts.network.nShards} shards, the publisher is configured for ${opts.nShards}`);
  if (!Number.isSafeInteger(opts.maxBodyBytes) || opts.maxBodyBytes < 0) throw new RangeError(`maxBodyBytes must be a non-negative integer, got ${opts.maxBodyBytes}`);
  const keys = new EndpointKeys(opts.endpointKeys);
  const ctx: PublisherContext = {
    ledger: opts.ledger,
    network: opts.network,
    codec: opts.codec,
    nShards: opts.nShards,
    blobLocks: new KeyedLock(),
    log: opts.log ?? ((line) => console.log(line)),
  };
  const stores = new AdmissionLimiter(opts.maxConcurrent ?? DEFAULT_MAX_CONCURRENT, opts.queue ?? DEFAULT_QUEUE);
  const reads = new AdmissionLimiter(AGGREGATOR_MAX_CONCURRENT, AGGREGATOR_QUEUE);
  const handler: Handler = { ctx, keys, stores, reads, maxBodyBytes: opts.maxBodyBytes };
  const reclaimer = startReclaimer(ctx, opts.reclaimIntervalMs ?? DEFAULT_RECLAIM_INTERVAL_MS);

  const observer = opts.observer;
  const server = await listen(opts.host, opts.port, observer ? (ex) => observed(handler, ex, observer) : (ex) => handle(handler, ex), opts.tls);
  let closed = false;
  return {
    port: server.port,
    reclaimNow: () => reclaimer.runNow(),
    reloadTls: () => server.reloadTls(),
    async close(graceMs = 10_000) {
      if (closed) return;
      closed = true;
      await server.close(graceMs);
      await reclaimer.stop();
    },
  };
}

interface Handler {
  ctx: PublisherContext;
  keys: EndpointKeys;
  stores: AdmissionLimiter;
  reads: AdmissionLimiter;
  maxBodyBytes: number;
}

async function observed(h: Handler, ex: Exchange, observer: PublisherRequestObserver): Promise<void> {
  const startedAt = performance.now();
  const routed = { op: 'unrouted' };
  observer.started(ex);
  try {
    await handle(h, ex, routed);
  } finally {
    observer.finished(ex, routed.op, startedAt);
  }
}

async function handle(h: Handler, ex: Exchange, routed?: { op: string }): Promise<void> {
  try {
    const route = classifyPublisherRequest(ex.head.method, ex.head.rawPath, h.keys);
    if (routed) routed.op = route.op;
    switch (route.op) {
      case 'status':
        ex.send(200, [['content-type', 'text/plain; charset=utf-8'], ['server', 'Tusk']], 'OK');
        return;
      case 'storeBlob':
        return await handleStore(h, ex);
      case 'readBlob':
        parseReadQuery(ex.head.rawQuery);
        return await handleRead(h, ex, route.blobId);
      case 'readBlobRange':
        return await handleRead(h, ex, route.blobId, parseByteRangeQuery(ex.head.rawQuery));
      case 'readBlobByObject':
        parseReadQuery(ex.head.rawQuery);
        return await handleRead(h, ex, blobIdOfObject(h.ctx.ledger, route.objectId));
      case 'ledger': {
        const query = parseLedgerRoute(route.rest);
        if (!query) throw new PublisherError('ROUTE_NOT_FOUND', `GET /v1/ledger/${route.rest}`);
        ex.send(200, JSON_HEADERS, JSON.stringify(await runLedgerQuery(h.ctx.ledger, query)));
        return;
      }
    }
  } catch (e) {
    if (e instanceof AbortedError || ex.aborted) return;
    await answerError(h.ctx, ex, e);
  }
}

async function handleStore(h: Handler, ex: Exchange): Promise<void> {
  // Everything a request can get wrong is checked before its body is read or encoded.
  const query = parseStoreQuery(ex.head.rawQuery, h.ctx.ledger.maxEpochsAhead);
  checkDeclaredLength(ex, h.maxBodyBytes);
  const declared = declaredLength(ex);
  if (declared !== undefined) checkEncodable(declared, h.ctx.nShards);
  const release = await h.stores.admit();
  try {
    if (ex.aborted) return;
    const body = await readBody(ex, h.maxBodyBytes);
    const result = await storeBlob(h.ctx, body, query);
    ex.send(200, JSON_HEADERS, JSON.stringify(result));
  } finally {
    release();
  }
}

/** A blob read: the whole blob, one `Range` of it (206), or with `byteRange` the byte-range route's
 * slice (200, so CDNs cache it; walrus.md §11). */
async function handleRead(h: Handler, ex: Exchange, blobIdText: string, byteRange?: ByteRangeQuery): Promise<void> {
  const release = await h.reads.admit();
  let body: Buffer;
  let status = 200;
  let etag = blobIdText;
  const extra: Array<readonly [string, string]> = [];
  try {
    const blob = await openBlob(h.ctx, blobIdText);
    if (byteRange) {
      const { start, length } = byteRange;
      if (start >= blob.size) throw new PublisherError('INVALID_BYTE_RANGE_QUERY', `start ${start} is not inside the blob's ${blob.size} bytes`);
      body = await blob.range(start, Math.min(start + length, blob.size));
      etag = `${blobIdText}-${start}-${length}`;
    } else {
      const range = parseByteRange(ex.head.headers.range, blob.size);
      if (range) {
        status = 206;
        body = await blob.range(range.start, range.end + 1);
        extra.push(['content-range', `bytes ${range.start}-${range.end}/${blob.size}`]);
      } else {
        body = await blob.whole();
      }
    }
  } finally {
    release();
  }
  // walrus.md §11: ETag is the blob id as the code sets it (unquoted); caching as the Walrus aggregator.
  const headers: Array<readonly [string, string]> = [
    ['content-type', readContentType(ex.head.headers)],
    ['etag', etag],
    ['cache-control', 'public, max-age=86400, stale-while-revalidate=3600'],
    ['x-content-type-options', 'nosniff'],
    ['server', 'Tusk'],
    ...extra,
  ];
  let at = 0;
  await ex.stream(status, headers, body.length, async (max) => {
    const chunk = body.subarray(at, at + Math.min(max, STREAM_CHUNK));
    at += chunk.length;
    return chunk;
  });
}

/** walrus.md §11: the type the request names in `Accept` (when it names one, without `*`), else
 * its own `Content-Type`, else bytes. */
export function readContentType(headers: Record<string, string | undefined>): string {
  const accept = headers.accept?.trim();
  if (accept && !accept.includes('*')) return accept;
  return headers['content-type']?.trim() || 'application/octet-stream';
}

/** The blob id a live Blob object on the ledger stands for (`/v1/blobs/by-object-id/{id}`). */
function blobIdOfObject(ledger: Ledger, objectId: string): string {
  if (!isObjectId(objectId)) throw new PublisherError('INVALID_OBJECT_ID', `got '${objectId.slice(0, 80)}'`);
  const view = ledger.getObject(objectId);
  if (view?.type !== 'Blob' || view.deleted || view.reclaimedEpoch !== null) {
    throw new PublisherError('BLOB_NOT_FOUND', `no live Blob object ${objectId.toLowerCase()} on the ledger`);
  }
  return view.object.blobId;
}

/** Renders the error; an unread body is drained if small so the connection stays usable, else the connection closes. */
async function answerError(ctx: PublisherContext, ex: Exchange, error: unknown): Promise<void> {
  const rendered = renderError(error);
  if (rendered.incidentId) ctx.log(`publisher: incident ${rendered.incidentId}: ${ex.head.method} ${ex.head.rawPath}: ${(error as Error)?.stack ?? error}`);
  if (ex.responded) {
    ex.close();
    return;
  }
  let close = false;
  if (!ex.bodyEnded) {
    let remaining: number | undefined;
    try {
      remaining = declaredLength(ex);
    } catch {
      remaining = undefined;
    }
    close = remaining === undefined || remaining - ex.received > DRAIN_LIMIT || !(await drainBody(ex, DRAIN_LIMIT).catch(() => false));
  }
  const headers = rendered.httpStatus === 416 ? [...JSON_HEADERS, ['content-range', `bytes */${(error as PublisherError).metadata?.size ?? '*'}`] as const] : JSON_HEADERS;
  ex.send(rendered.httpStatus, headers, rendered.body, close);
}
