// The publisher face's HTTP listener (walrus.md §10–11, seed interface B): store under
// /<endpoint_key>/v1/blobs, aggregator reads, ledger look-ups and status, each request checked
// in the order query → size → admission → body → encode, so a refusal costs no encoding.

import { listen, listenForThreads } from '../../http/engine.js';
import { framingProblem } from '../../http/framing.js';
import { type Exchange } from '../../http/exchange.js';
import { REFUSAL_REASONS, refusalSummary, type RefusalAnswer, type RequestRefusal, type TlsFiles } from '../../http/listener.js';
import type { BlobCodec } from '../rs2/codec-types.js';
import { parseLedgerRoute, runLedgerQuery } from '../ledger/index.js';
import { AdmissionLimiter } from './admission.js';
import { parseBlobId } from './aggregator.js';
import type { BlobBackend } from './backend.js';
import type { BlobReadContext, Logger, PublisherContext, PublisherRequestObserver } from './context.js';
import { EmbeddedBackend } from './embedded-backend.js';
import { PublisherError, renderError } from './errors.js';
import { KeyedLock } from './keyed-lock.js';
import { startReclaimer, type Reclaimer } from './reclaim.js';
import { checkDeclaredLength, declaredLength, readBody } from './request-body.js';
import { parseReadQuery } from './read-query.js';
import { parseQuiltForm, storeQuilt } from './quilt-service.js';
import { parseRelayQuery, relayBlob } from './upload-relay.js';
import { JwtAuthenticator, type JwtConfig } from './jwt-auth.js';
import { classifyPublisherRequest, EndpointKeys, type PublisherRoute } from './routes.js';
import { checkEncodable, storeBlob } from './store-blob.js';
import { parseStoreQuery } from './store-query.js';
import { answer, answerError, JSON_HEADERS } from './answers.js';
import { blobsOnlyConcat, handleConcat, handleRead, serveRead, type ReadHandler } from './read-routes.js';

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

/** The listener's answer to a request its HTTP engine refused before any route saw it. */
export function publisherRefusal(refusal: RequestRefusal): RefusalAnswer {
  const { status, detail } = refusalSummary(refusal);
  const rendered = renderError(new PublisherError(REFUSAL_REASONS[status], detail));
  return { status: rendered.httpStatus, headers: JSON_HEADERS, body: rendered.body };
}

/** Served at GET /v1/api; built once. */

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

