// Serves one storage node over HTTP (walrus.md §12.2) on the server's HTTP engine (src/http/engine.ts).

import { listen, listenForThreads } from '../../http/engine.js';
import type { Exchange, ResponseHeaders } from '../../http/exchange.js';
import { REFUSAL_REASONS, refusalSummary, type RefusalAnswer, type RequestRefusal } from '../../http/listener.js';
import { metadataLength, ulebLength } from './bcs.js';
import { encodingParams, MAX_SYMBOL_SIZE } from './encoding-params.js';
import { errorBody, StorageNodeError } from './errors.js';
import { classifyNodeRequest, type NodeRoute } from './http-routes.js';
import type { PutOutcome, StorageNodeClient } from './types.js';

export interface StorageNodeServer {
  port: number;
  /** http://host:port */
  url: string;
  /** Stops listening and waits (at most `graceMs`) for in-flight requests. */
  close(graceMs?: number): Promise<void>;
}

const JSON_HEADERS: ResponseHeaders = [
  ['content-type', 'application/json'],
  ['server', 'Tusk'],
];
const BINARY_HEADERS: ResponseHeaders = [
  ['content-type', 'application/octet-stream'],
  ['server', 'Tusk'],
];

/** A node's answer to a request its HTTP engine refused before any route saw it. */
export function nodeRefusal(refusal: RequestRefusal): RefusalAnswer {
  const { status, detail } = refusalSummary(refusal);
  return { status, headers: JSON_HEADERS, body: errorBody(new StorageNodeError(REFUSAL_REASONS[status], detail)) };
}

/** Largest valid bodies for n shards: metadata is a fixed size; a sliver is at most n_secondary · 65534 data bytes. */
export function bodyLimits(nShards: number): { metadata: number; sliver: number } {
  const maxData = encodingParams(nShards).nSecondary * MAX_SYMBOL_SIZE;
  return { metadata: metadataLength(nShards), sliver: ulebLength(maxData) + maxData + 4 };
}

export async function serveStorageNode(
  node: StorageNodeClient,
  host: string,
  port: number,
  /** the listener shares its port with other threads of this process (node-threads.ts); this counts the requests of all of them */
  threadsInFlight?: Int32Array,
): Promise<StorageNodeServer & { handler: (ex: Exchange) => Promise<void> }> {
  const handler = nodeHandler(node, bodyLimits((await node.info()).nShards));
  const server = threadsInFlight
    ? await listenForThreads(host, port, handler, threadsInFlight, undefined, { refuse: nodeRefusal })
    : await listen(host, port, handler, undefined, { refuse: nodeRefusal });
  const hostText = host.includes(':') ? `[${host}]` : host;
  return {
    port: server.port,
    url: `http://${hostText}:${server.port}`,
    handler,
    close: (graceMs = 10_000) => server.close(graceMs),
  };
}

/** Every route of `node`, answered and logged as the node's own listener does. */
export function nodeHandler(node: StorageNodeClient, limits: { metadata: number; sliver: number }): (ex: Exchange) => Promise<void> {
  return (ex) => serve(node, limits, ex, () => classifyNodeRequest(ex.head.method, ex.head.rawPath, ex.head.rawQuery));
}

/** Routes that only read: another thread's read-only view of the node answers these. */
const READ_ROUTES: ReadonlySet<NodeRoute['op']> = new Set(['getMetadata', 'getSliver', 'getConfirmation']);

/**
 * The read routes over a read-only view of the node (another thread's: node-worker.ts): the
 * request's handling when it only reads, undefined when the node's own thread must answer it
 * (writes, health, and requests that do not route).
 */
export function nodeReadHandler(reader: StorageNodeClient, nShards: number): (ex: Exchange) => Promise<void> | undefined {
  const limits = bodyLimits(nShards);
  return (ex) => {
    let route: NodeRoute;
    try {
      route = classifyNodeRequest(ex.head.method, ex.head.rawPath, ex.head.rawQuery);
    } catch {
      return undefined;
    }
    return READ_ROUTES.has(route.op) ? serve(reader, limits, ex, () => route) : undefined;
  };
}

/** `route` is called inside the error handling, so that a request that does not route is answered as a refusal. */
function serve(node: StorageNodeClient, limits: { metadata: number; sliver: number }, ex: Exchange, route: () => NodeRoute): Promise<void> {
  return handle(node, limits, ex, route).catch((e) => {
    if (ex.aborted) return; // the client went away mid-request: nothing to answer, nothing stored
    console.error(`storage-node: ${ex.head.method} ${ex.head.rawPath}: ${(e as Error).stack ?? e}`);
    if (!ex.responded) ex.send(500, JSON_HEADERS, errorBody(new StorageNodeError('INTERNAL_ERROR')), true);
  });
}

async function handle(node: StorageNodeClient, limits: { metadata: number; sliver: number }, ex: Exchange, route: () => NodeRoute): Promise<void> {
  try {
    await dispatch(node, limits, route(), ex);
  } catch (e) {
    if (!(e instanceof StorageNodeError)) throw e;
    // Answering before the body was read: close the connection rather than drain an unwanted body.
    ex.send(e.status, JSON_HEADERS, errorBody(e), !ex.bodyEnded);
  }
}

async function dispatch(node: StorageNodeClient, limits: { metadata: number; sliver: number }, route: NodeRoute, ex: Exchange): Promise<void> {
  switch (route.op) {
    case 'health':
      return sendSuccess(ex, 200, await node.health());
    case 'putMetadata': {
      const body = await readBody(ex, limits.metadata);
      return sendPut(ex, await node.putMetadata(route.blobId, body), 'metadata');
    }
    case 'getMetadata': {
      const metadata = await node.getMetadata(route.blobId);
      if (!metadata) throw new StorageNodeError('METADATA_NOT_FOUND');
      return ex.send(200, BINARY_HEADERS, metadata);
    }
    case 'putSliver': {
      const body = await readBody(ex, limits.sliver);
      return sendPut(ex, await node.putSliver(route.blobId, route.pairIndex, route.axis, body), 'sliver');
    }
    case 'getSliver': {
      const sliver = await node.getSliver(route.blobId, route.pairIndex, route.axis);
      if (!sliver) throw new StorageNodeError('SLIVER_NOT_FOUND', `pair ${route.pairIndex} ${route.axis}`);
      return ex.send(200, BINARY_HEADERS, sliver);
    }
    case 'getConfirmation':
      return sendSuccess(ex, 200, { signed: await node.getConfirmation(route.blobId, route.blobType, route.epoch) });
    case 'deleteBlob':
      return sendSuccess(ex, 200, { removed: await node.deleteBlob(route.blobId) });
  }
}

/** Walrus wraps successful JSON answers as {"success": {"code", "data"}}. */
function sendSuccess(ex: Exchange, code: number, data: unknown): void {
  ex.send(code, JSON_HEADERS, JSON.stringify({ success: { code, data } }));
}

function sendPut(ex: Exchange, outcome: PutOutcome, what: string): void {
  if (outcome === 'stored') sendSuccess(ex, 201, `${what} successfully stored`);
  else sendSuccess(ex, 200, `${what} was already stored`);
}

/** The whole body in one buffer of its declared size: nodes must see a sliver whole to verify it. */
async function readBody(ex: Exchange, limit: number): Promise<Buffer> {
  const declared = ex.head.headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared)) throw new StorageNodeError('CONTENT_LENGTH_REQUIRED');
  const length = Number(declared);
  if (length > limit) throw new StorageNodeError('BODY_TOO_LARGE', `${length} bytes, at most ${limit}`);
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (let chunk = await ex.nextBodyChunk(); chunk; chunk = await ex.nextBodyChunk()) {
    if (at + chunk.length > length) throw new StorageNodeError('BODY_TOO_LARGE', 'more bytes than Content-Length');
    at += chunk.copy(body, at);
  }
  if (at !== length) throw new StorageNodeError('INCOMPLETE_BODY', `${at} of ${length} bytes`);
  return body;
}
