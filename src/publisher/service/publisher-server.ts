// The publisher face's HTTP listener (walrus.md §10–11, seed interface B): store under
// /<endpoint_key>/v1/blobs, aggregator reads, ledger look-ups and status, each request checked
// in the order query → size → admission → body → encode, so a refusal costs no encoding.

import type { WalrusBlobs } from '../../base/walrus-blobs.js';
import { objectBlobs } from './object-blobs.js';
import { createHash } from 'node:crypto';
import { listen, listenForThreads } from '../../http/engine.js';
import { framingProblem } from '../../http/framing.js';
import { AbortedError, type Exchange, type ResponseHeaders } from '../../http/exchange.js';
import { REFUSAL_REASONS, refusalSummary, type RefusalAnswer, type RequestRefusal, type TlsFiles } from '../../http/listener.js';
import type { BlobCodec } from '../rs2/codec-types.js';
import { parseLedgerRoute, runLedgerQuery } from '../ledger/index.js';
import { AdmissionLimiter } from './admission.js';
import { openBlob, parseBlobId, type OpenedBlob } from './aggregator.js';
import { parseByteRange } from './byte-range.js';
import { CORS_HEADERS, PREFLIGHT_HEADERS } from './cors.js';
import type { BlobBackend } from './backend.js';
import type { BlobReadContext, Logger, PublisherContext, PublisherRequestObserver } from './context.js';
import { EmbeddedBackend } from './embedded-backend.js';
import { PublisherError, renderError } from './errors.js';
import { KeyedLock } from './keyed-lock.js';
import { startReclaimer, type Reclaimer } from './reclaim.js';
import { checkDeclaredLength, declaredLength, drainBody, readBody } from './request-body.js';
import { parseByteRangeQuery, parseConcatBody, parseConcatQuery, parseReadQuery, type ByteRangeQuery, type ConcatRequest } from './read-query.js';
import type { ConsistencyCheck } from '../rs2/rs2-native.js';
import { listPatches, parseQuiltForm, patchHeaders, readPatchById, readPatchByIdentifier, storeQuilt, type PatchRead } from './quilt-service.js';
import { parseRelayQuery, relayBlob, TIP_CONFIG } from './upload-relay.js';
import { JwtAuthenticator, type JwtConfig } from './jwt-auth.js';
import { openApiDocument } from './openapi.js';
import { classifyPublisherRequest, EndpointKeys, loggablePath, type PublisherRoute } from './routes.js';
import { checkEncodable, storeBlob } from './store-blob.js';
import { parseStoreQuery } from './store-query.js';
import { isOutOfSpace, storageErrno } from '../../base/storage-failures.js';

/** walrus.md §10.4: 10 MiB, the Walrus publisher's default `--max-body-size`. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** walrus.md §10.4: the Walrus publisher's default `--max-quilt-body-size`, 100 MiB. */
export const DEFAULT_MAX_QUILT_BODY_BYTES = 100 * 1024 * 1024;
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
/** A concatenation's JSON body: ids are 43 to 66 characters each. */
const CONCAT_BODY_LIMIT = 1 << 20;

const JSON_HEADERS: ResponseHeaders = [
  ['content-type', 'application/json'],
  ['server', 'Tusk'],
  ...CORS_HEADERS,
];
const TEXT_HEADERS: ResponseHeaders = [
  ['content-type', 'text/plain; charset=utf-8'],
  ['server', 'Tusk'],
  ...CORS_HEADERS,
];
/** The listener's answer to a request its HTTP engine refused before any route saw it. */
export function publisherRefusal(refusal: RequestRefusal): RefusalAnswer {
  const { status, detail } = refusalSummary(refusal);
  const rendered = renderError(new PublisherError(REFUSAL_REASONS[status], detail));
  return { status: rendered.httpStatus, headers: JSON_HEADERS, body: rendered.body };
}

/** Served at GET /v1/api; built once. */
const API_DOCUMENT = JSON.stringify(openApiDocument('1'));

export interface PublisherOptions {
  host: string;
  port: number;
  endpointKeys: string[];
  nShards: number;
  maxBodyBytes: number;
  /** default DEFAULT_MAX_QUILT_BODY_BYTES */
  maxQuiltBodyBytes?: number;
  backend: BlobBackend;
  codec: BlobCodec;
  maxConcurrent?: number;
  queue?: number;
  reclaimIntervalMs?: number;
  /** JWT authentication of stores at /v1/blobs, alongside the endpoint keys (walrus.md §10.5) */
  jwt?: JwtConfig;
  log?: Logger;
  observer?: PublisherRequestObserver;
  tls?: TlsFiles;
  /** the listener shares its port with front-end threads (threads/front-publisher.ts); this counts the requests of all of them */
  threadsInFlight?: Int32Array;
}

export interface RunningPublisher {
  port: number;
  /** The whole face's handler, for requests front-end threads forward (observed as this listener's own). */
  serve(ex: Exchange): Promise<void>;
  /** Switches new TLS handshakes to these checked files (SIGHUP; http/tls-snapshots.ts). */
  reloadTls(files: TlsFiles): void;
  /** Runs one reclaim pass now (tests and operators); on Walrus the network reclaims, and this does nothing. */
  reclaimNow(): ReturnType<Reclaimer['runNow']>;
  /** S3 objects of storage class WALRUS store and read their blobs here (object-blobs.ts) */
  blobs: WalrusBlobs;
  /** Stops listening, waits for in-flight requests (at most `graceMs`) and the reclaimer. Does not close the backend or the codec. */
  close(graceMs?: number): Promise<void>;
}

export async function startPublisher(opts: PublisherOptions): Promise<RunningPublisher> {
  if (opts.backend.nShards !== opts.nShards) throw new RangeError(`the storage network serves ${opts.backend.nShards} shards, the publisher is configured for ${opts.nShards}`);
  if (!Number.isSafeInteger(opts.maxBodyBytes) || opts.maxBodyBytes < 0) throw new RangeError(`maxBodyBytes must be a non-negative integer, got ${opts.maxBodyBytes}`);
  const ctx: PublisherContext = {
    backend: opts.backend,
    codec: opts.codec,
    nShards: opts.nShards,
    blobLocks: new KeyedLock(),
    log: opts.log ?? ((line) => console.log(line)),
  };
  const jwt = opts.jwt ? new JwtAuthenticator(opts.jwt) : undefined;
  const handler: Handler = {
    ...readHandler(opts.endpointKeys, jwt !== undefined, ctx, ctx.log),
    ctx,
    jwt,
    stores: new AdmissionLimiter(opts.maxConcurrent ?? DEFAULT_MAX_CONCURRENT, opts.queue ?? DEFAULT_QUEUE),
    maxBodyBytes: opts.maxBodyBytes,
    maxQuiltBodyBytes: opts.maxQuiltBodyBytes ?? DEFAULT_MAX_QUILT_BODY_BYTES,
  };
  const reclaimer = opts.backend instanceof EmbeddedBackend ? startReclaimer(ctx, opts.backend, opts.reclaimIntervalMs ?? DEFAULT_RECLAIM_INTERVAL_MS) : undefined;

  const observer = opts.observer;
  const serve = observer ? (ex: Exchange) => observed(ex, observer, (routed) => handle(handler, ex, routed)) : (ex: Exchange) => handle(handler, ex);
  const server = opts.threadsInFlight
    ? await listenForThreads(opts.host, opts.port, serve, opts.threadsInFlight, opts.tls, { refuse: publisherRefusal })
    : await listen(opts.host, opts.port, serve, opts.tls, { refuse: publisherRefusal });
  let closed = false;
  return {
    port: server.port,
    serve,
    blobs: objectBlobs(ctx, opts.maxBodyBytes),
    reclaimNow: async () => (reclaimer ? reclaimer.runNow() : { reclaimed: [], deletedBlobIds: [], keptBlobIds: [], retryBlobIds: [] }),
    reloadTls: (files) => server.reloadTls(files),
    async close(graceMs = 10_000) {
      if (closed) return;
      closed = true;
      await server.close(graceMs);
      await reclaimer?.stop();
    },
  };
}

/** Routes answered from reads alone: a front-end thread serves these itself, and forwards the others. */
const READ_OPS: ReadonlySet<PublisherRoute['op']> = new Set([
  'preflight',
  'status',
  'api',
  'tipConfig',
  'readBlob',
  'readBlobRange',
  'streamBlob',
  'readQuiltPatch',
  'readQuiltPatchByIdentifier',
  'listQuiltPatches',
]);

export interface PublisherReaderOptions {
  endpointKeys: readonly string[];
  /** stores may authenticate with a JWT instead of an endpoint key (routing differs) */
  jwt: boolean;
  reads: BlobReadContext;
  log: Logger;
  observer?: PublisherRequestObserver;
  /** called once a request is known to be served here, before it reads anything (a view's refresh) */
  beforeRead?: () => void;
}

/**
 * The read routes over a read-only view of the network, for a front-end thread: returns the
 * request's handling when it is a read route, undefined when the request must go to the thread
 * that serves the whole face (stores, the relay, the ledger, and every refusal, which that thread
 * answers and logs).
 */
export function publisherReader(o: PublisherReaderOptions): (ex: Exchange) => Promise<void> | undefined {
  const h = readHandler(o.endpointKeys, o.jwt, o.reads, o.log);
  const observer = o.observer;
  return (ex) => {
    // broken framing is refused by the thread that serves the whole face
    if (framingProblem(ex.head)) return undefined;
    let route: PublisherRoute;
    try {
      route = classifyPublisherRequest(ex.head.method, ex.head.rawPath, h.keys, h.jwtRoutes);
    } catch {
      return undefined;
    }
    // a concatenation of blob ids only needs no ledger: served here too (object ids go to the ledger's thread)
    const localConcat = route.op === 'concatBlobs' && ex.head.method !== 'POST' ? blobsOnlyConcat(ex.head.rawQuery) : undefined;
    if (!READ_OPS.has(route.op) && !localConcat) return undefined;
    o.beforeRead?.();
    const run = async (): Promise<void> => {
      try {
        if (localConcat) await handleConcat(h, ex, async (id) => id, localConcat);
        else await serveRead(h, ex, route);
      } catch (e) {
        await answerError(h.log, ex, e);
      }
    };
    if (!observer) return run();
    return observed(ex, observer, (routed) => {
      routed.op = route.op;
      return run();
    });
  };
}

interface ReadHandler {
  reads: BlobReadContext;
  keys: EndpointKeys;
  /** stores without a key are routed for JWT authentication */
  jwtRoutes: boolean;
  readLimit: AdmissionLimiter;
  log: Logger;
}

interface Handler extends ReadHandler {
  ctx: PublisherContext;
  jwt: JwtAuthenticator | undefined;
  stores: AdmissionLimiter;
  maxBodyBytes: number;
  maxQuiltBodyBytes: number;
}

function readHandler(endpointKeys: readonly string[], jwtRoutes: boolean, reads: BlobReadContext, log: Logger): ReadHandler {
  return { reads, keys: new EndpointKeys(endpointKeys), jwtRoutes, readLimit: new AdmissionLimiter(AGGREGATOR_MAX_CONCURRENT, AGGREGATOR_QUEUE), log };
}

async function observed(ex: Exchange, observer: PublisherRequestObserver, run: (routed: { op: string }) => Promise<void>): Promise<void> {
  const startedAt = performance.now();
  const routed = { op: 'unrouted' };
  observer.started(ex);
  try {
    await run(routed);
  } finally {
    observer.finished(ex, routed.op, startedAt);
  }
}

async function handle(h: Handler, ex: Exchange, routed?: { op: string }): Promise<void> {
  try {
    // where the body ends is unknown (http/framing.ts): refused before anything reads it
    const framing = framingProblem(ex.head);
    if (framing) throw new PublisherError('MALFORMED_REQUEST', `${framing.header}: ${framing.reason}`);
    const route = classifyPublisherRequest(ex.head.method, ex.head.rawPath, h.keys, h.jwtRoutes);
    if (routed) routed.op = route.op;
    if (READ_OPS.has(route.op)) return await serveRead(h, ex, route);
    switch (route.op) {
      case 'storeBlob':
      case 'storeQuilt':
        return await handleStore(h, ex, route.jwt === true, route.op === 'storeQuilt');
      case 'readBlobByObject':
        return await handleRead(h, ex, await h.ctx.backend.blobIdOfObject(route.objectId), { check: parseReadQuery(ex.head.rawQuery) });
      case 'uploadRelay':
        return await handleRelay(h, ex);
      case 'concatBlobs':
        return await handleConcat(h, ex, (id) => concatBlobId(h, id));
      case 'ledger': {
        const query = parseLedgerRoute(route.rest);
        const ledger = h.ctx.backend.ledger;
        if (!query) throw new PublisherError('ROUTE_NOT_FOUND', `GET /v1/ledger/${route.rest}`);
        // On Walrus the chain is the ledger: Sui's explorers and RPC answer these questions.
        if (!ledger) throw new PublisherError('ROUTE_NOT_FOUND', `GET /v1/ledger/${route.rest}: the ${h.ctx.backend.name} network's ledger is Sui`);
        answer(ex, 200, JSON_HEADERS, JSON.stringify(await runLedgerQuery(ledger, query)));
        return;
      }
    }
  } catch (e) {
    await answerError(h.log, ex, e);
  }
}

/** The routes of READ_OPS; throws what the caller answers. */
async function serveRead(h: ReadHandler, ex: Exchange, route: PublisherRoute): Promise<void> {
  switch (route.op) {
    case 'preflight':
      ex.send(200, PREFLIGHT_HEADERS);
      return;
    case 'status':
      answer(ex, 200, TEXT_HEADERS, 'OK');
      return;
    case 'api':
      answer(ex, 200, JSON_HEADERS, API_DOCUMENT);
      return;
    case 'tipConfig':
      answer(ex, 200, JSON_HEADERS, JSON.stringify(TIP_CONFIG));
      return;
    case 'readBlob':
      return handleRead(h, ex, route.blobId, { check: parseReadQuery(ex.head.rawQuery) });
    case 'readBlobRange':
      return handleRead(h, ex, route.blobId, { byteRange: parseByteRangeQuery(ex.head.rawQuery) });
    case 'streamBlob':
      return handleStream(h, ex, route.blobId);
    case 'readQuiltPatch': {
      const check = parseReadQuery(ex.head.rawQuery);
      return handlePatchRead(h, ex, async () => {
        const patch = await readPatchById(h.reads, route.patchId, check);
        return { ...patch, etag: patch.quiltId };
      });
    }
    case 'readQuiltPatchByIdentifier': {
      const check = parseReadQuery(ex.head.rawQuery);
      return handlePatchRead(h, ex, async () => ({ ...(await readPatchByIdentifier(h.reads, route.quiltId, route.identifier, check)), etag: route.quiltId }));
    }
    case 'listQuiltPatches': {
      const check = parseReadQuery(ex.head.rawQuery);
      const release = await h.readLimit.admit();
      try {
        answer(ex, 200, JSON_HEADERS, JSON.stringify(await listPatches(h.reads, route.quiltId, check)));
      } finally {
        release();
      }
      return;
    }
    default:
      throw new Error(`${route.op} is not a read route`);
  }
}

/** PUT /v1/blobs (the body is the blob) or PUT /v1/quilts (the body is a multipart form of files). */
async function handleStore(h: Handler, ex: Exchange, jwt: boolean, quilt: boolean): Promise<void> {
  // Everything a request can get wrong is checked before its body is read or encoded.
  const query = parseStoreQuery(ex.head.rawQuery, h.ctx.backend.maxEpochsAhead);
  const maxBytes = quilt ? h.maxQuiltBodyBytes : h.maxBodyBytes;
  checkDeclaredLength(ex, maxBytes);
  const declared = declaredLength(ex);
  // As the daemon's auth layer: after the query parses, before the body is read.
  const checkBodyLength = jwt
    ? await h.jwt!.authorize(ex.head.headers.authorization, { epochs: query.epochs, sendObjectTo: query.sendObjectTo, size: declared })
    : undefined;
  if (declared !== undefined && !quilt) checkEncodable(declared, h.ctx.nShards);
  const release = await h.stores.admit();
  try {
    if (ex.aborted) return;
    const body = await readBody(ex, maxBytes);
    checkBodyLength?.(body.length);
    const result = quilt
      ? await storeQuilt(h.ctx, await parseQuiltForm(body, ex.head.headers['content-type']), query)
      : await storeBlob(h.ctx, body, query);
    ex.send(200, JSON_HEADERS, JSON.stringify(result));
  } finally {
    release();
  }
}

/** POST /v1/blob-upload-relay: checked like a store (query, size) before the body is read. */
async function handleRelay(h: Handler, ex: Exchange): Promise<void> {
  const query = parseRelayQuery(ex.head.rawQuery);
  checkDeclaredLength(ex, h.maxBodyBytes);
  const declared = declaredLength(ex);
  if (declared !== undefined) checkEncodable(declared, h.ctx.nShards);
  const release = await h.stores.admit();
  try {
    if (ex.aborted) return;
    const body = await readBody(ex, h.maxBodyBytes);
    ex.send(200, JSON_HEADERS, JSON.stringify(await relayBlob(h.ctx, body, query)));
  } finally {
    release();
  }
}

/** A blob read: the whole blob, one `Range` of it (206), or with `byteRange` the byte-range route's
 * slice (200, so CDNs cache it; walrus.md §11). */
async function handleRead(h: ReadHandler, ex: Exchange, blobIdText: string, { byteRange, check }: { byteRange?: ByteRangeQuery; check?: ConsistencyCheck }): Promise<void> {
  const release = await h.readLimit.admit();
  let body: Buffer;
  let status = 200;
  let etag = blobIdText;
  const extra: Array<readonly [string, string]> = [];
  try {
    const blob = await openBlob(h.reads, blobIdText);
    if (byteRange) {
      const { start, length } = byteRange;
      // walrus-sdk byte_range_read_client.rs: the whole range must lie inside the blob (400, not a short body).
      if (start + length > blob.size) throw new PublisherError('INVALID_BYTE_RANGE_QUERY', `bytes ${start}..${start + length} are not inside the blob's ${blob.size} bytes`);
      body = await blob.range(start, start + length);
      etag = `${blobIdText}-${start}-${length}`;
    } else {
      const range = parseByteRange(ex.head.headers.range, blob.size);
      if (range) {
        status = 206;
        body = await blob.range(range.start, range.end + 1);
        extra.push(['content-range', `bytes ${range.start}-${range.end}/${blob.size}`]);
      } else {
        body = await blob.whole(check);
      }
    }
  } finally {
    release();
  }
  await sendBytes(ex, status, body, etag, extra);
}

/** A quilt patch read (walrus daemon routes.rs build_quilt_patch_response): the file's bytes, the
 * quilt id as ETag, and its identifier in X-Quilt-Patch-Identifier. */
async function handlePatchRead(h: ReadHandler, ex: Exchange, read: () => Promise<PatchRead & { etag: string }>): Promise<void> {
  const release = await h.readLimit.admit();
  let patch: PatchRead & { etag: string };
  try {
    patch = await read();
  } finally {
    release();
  }
  const { contentType, headers } = patchHeaders(patch);
  await sendBytes(ex, 200, patch.contents, patch.etag, headers, contentType);
}

/** `fallbackType`: the type when the request names none (a quilt patch's `content-type` tag). */
async function sendBytes(ex: Exchange, status: number, body: Buffer, etag: string, extra: ResponseHeaders, fallbackType?: string): Promise<void> {
  await sendChunks(ex, status, blobHeaders(ex, etag, extra, fallbackType), body.length, [body].values());
}

/** The head of a blob answer (walrus.md §11): ETag as the code sets it (unquoted), caching as the Walrus aggregator. */
function blobHeaders(ex: Exchange, etag: string, extra: ResponseHeaders, fallbackType?: string): ResponseHeaders {
  return [
    ['content-type', readContentType(ex.head.headers, fallbackType)],
    ['etag', etag],
    ['cache-control', 'public, max-age=86400, stale-while-revalidate=3600'],
    ['x-content-type-options', 'nosniff'],
    ['server', 'Tusk'],
    ...CORS_HEADERS,
    ...extra,
  ];
}

/**
 * Sends `total` bytes as `chunks` yields them; HEAD gets the head only, as axum answers HEAD on
 * `get` routes. The first chunk is read before the head goes out, so that a failure there is
 * still answered as an error; a later one cuts the connection (the body cannot be taken back).
 */
async function sendChunks(ex: Exchange, status: number, headers: ResponseHeaders, total: number, chunks: Iterator<Buffer> | AsyncIterator<Buffer>): Promise<void> {
  if (ex.head.method === 'HEAD') {
    ex.sendHead(status, headers, total);
    return;
  }
  const first = await chunks.next();
  let current: Buffer = first.done ? Buffer.alloc(0) : first.value;
  let at = 0;
  await ex.stream(status, headers, total, async (max) => {
    while (at >= current.length) {
      const next = await chunks.next();
      if (next.done) return null;
      current = next.value;
      at = 0;
    }
    const chunk = current.subarray(at, at + Math.min(max, STREAM_CHUNK));
    at += chunk.length;
    return chunk;
  });
}

/**
 * GET /v1alpha/blobs/{id}/stream: the blob as its rows are read, the first bytes before the last
 * rows (walrus daemon routes.rs stream_blob). The admission slot is held while the blob is opened,
 * not while its body goes out, as the daemon's concurrency limit holds its permit until its
 * response starts: a slow reader does not keep one.
 */
async function handleStream(h: ReadHandler, ex: Exchange, blobIdText: string): Promise<void> {
  const release = await h.readLimit.admit();
  let blob: OpenedBlob;
  try {
    blob = await openBlob(h.reads, blobIdText);
  } finally {
    release();
  }
  await sendChunks(ex, 200, blobHeaders(ex, blobIdText, [['x-walrus-streaming', 'true']]), blob.size, blob.stream());
}

/**
 * GET /v1alpha/blobs/concat?ids=… or POST with {"ids": […]}: the blobs one after another, each
 * read whole in turn (walrus daemon routes.rs concat_blobs_impl). Every id is resolved and every
 * blob's metadata read before the answer starts, so an unknown one is a 404, not a cut body.
 * `parsed`: the request's ids and options when the caller has parsed them already.
 */
async function handleConcat(h: ReadHandler, ex: Exchange, blobIdOf: (id: string) => Promise<string>, parsed?: ConcatRequest): Promise<void> {
  const { ids, check } =
    parsed ?? (ex.head.method === 'POST' ? parseConcatBody(await readBody(ex, CONCAT_BODY_LIMIT)) : parseConcatQuery(ex.head.rawQuery));
  if (ids.length === 0) throw new PublisherError('MALFORMED_REQUEST', 'at least one blob ID or object ID must be provided');
  // the slot while the blobs are opened, as handleStream
  const release = await h.readLimit.admit();
  const blobs: OpenedBlob[] = [];
  try {
    for (const id of ids) blobs.push(await openBlob(h.reads, await blobIdOf(id)));
  } finally {
    release();
  }
  // the ids as the request gave them (walrus daemon: the same blobs named otherwise are another ETag)
  const etag = createHash('sha256').update(ids.join(',')).digest('base64url');
  const total = blobs.reduce((sum, b) => sum + b.size, 0);
  async function* each(): AsyncGenerator<Buffer> {
    for (const blob of blobs) yield await blob.whole(check);
  }
  await sendChunks(ex, 200, blobHeaders(ex, etag, []), total, each());
}

/** A GET concatenation's query when it is valid and names blob ids only (no ledger needed), else undefined. */
function blobsOnlyConcat(rawQuery: string): ConcatRequest | undefined {
  try {
    const parsed = parseConcatQuery(rawQuery);
    for (const id of parsed.ids) parseBlobId(id);
    return parsed.ids.length > 0 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A blob id as it is, or the blob id of the Blob object an object id names (walrus daemon parse_and_resolve_id). */
async function concatBlobId(h: Handler, id: string): Promise<string> {
  try {
    parseBlobId(id);
    return id;
  } catch {
    // not a blob id: an object id?
  }
  const hex = /^0x([0-9a-fA-F]{1,64})$/.exec(id)?.[1];
  if (hex === undefined) throw new PublisherError('INVALID_ID_FORMAT', `got '${id.slice(0, 80)}'`);
  const objectId = `0x${hex.toLowerCase().padStart(64, '0')}`;
  try {
    return await h.ctx.backend.blobIdOfObject(objectId);
  } catch (e) {
    throw new PublisherError('OBJECT_ID_RESOLUTION_FAILED', `${objectId}: ${(e as Error).message}`);
  }
}

/** walrus.md §11: the type the request names in `Accept` (when it names one, without `*`), else
 * its own `Content-Type`, else bytes. */
export function readContentType(headers: Record<string, string | undefined>, fallback = 'application/octet-stream'): string {
  const accept = headers.accept?.trim();
  if (accept && !accept.includes('*')) return accept;
  return headers['content-type']?.trim() || fallback;
}

/** A small complete answer; HEAD gets the headers and the length only. */
function answer(ex: Exchange, status: number, headers: ResponseHeaders, body: string, close = false): void {
  if (ex.head.method === 'HEAD') ex.sendHead(status, headers, Buffer.byteLength(body), close);
  else ex.send(status, headers, body, close);
}

/** Renders the error; an unread body is drained if small so the connection stays usable, else the connection closes. */
async function answerError(log: Logger, ex: Exchange, error: unknown): Promise<void> {
  // the client went away: nobody to answer
  if (error instanceof AbortedError || ex.aborted) return;
  const outOfSpace = await isOutOfSpace(await storageErrno(error));
  const rendered = renderError(outOfSpace ? new PublisherError('STORAGE_FULL') : error);
  if (rendered.incidentId) log(`publisher: incident ${rendered.incidentId}: ${ex.head.method} ${loggablePath(ex.head.rawPath)}: ${(error as Error)?.stack ?? error}`, 'error');
  else if (outOfSpace || (error instanceof PublisherError && error.code === 'STORAGE_FULL')) log(`publisher: ${ex.head.method} ${loggablePath(ex.head.rawPath)}: ${(error as Error).message}`, 'warn');
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
  const headers: ResponseHeaders =
    rendered.allow !== undefined
      ? [['allow', rendered.allow]]
      : rendered.httpStatus === 416
        ? [...JSON_HEADERS, ['content-range', `bytes */${(error as PublisherError).metadata?.size ?? '*'}`] as const]
        : JSON_HEADERS;
  answer(ex, rendered.httpStatus, headers, rendered.body, close);
}
