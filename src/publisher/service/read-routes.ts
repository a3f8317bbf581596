// The aggregator's read routes (walrus.md §11): blobs whole, by range or streamed, quilt patches,
// concatenations, and the small fixed answers (status, API document, tip config).

import { createHash } from 'node:crypto';
import type { Exchange, ResponseHeaders } from '../../http/exchange.js';
import { AdmissionLimiter } from './admission.js';
import { openBlob, parseBlobId, type OpenedBlob } from './aggregator.js';
import { parseByteRange } from './byte-range.js';
import { CORS_HEADERS, PREFLIGHT_HEADERS } from './cors.js';
import type { BlobReadContext, Logger } from './context.js';
import { PublisherError } from './errors.js';
import { readBody } from './request-body.js';
import { parseByteRangeQuery, parseConcatBody, parseConcatQuery, parseReadQuery, type ByteRangeQuery, type ConcatRequest } from './read-query.js';
import type { ConsistencyCheck } from '../rs2/rs2-native.js';
import { listPatches, patchHeaders, readPatchById, readPatchByIdentifier, type PatchRead } from './quilt-service.js';
import { TIP_CONFIG } from './upload-relay.js';
import { openApiDocument } from './openapi.js';
import { EndpointKeys, type PublisherRoute } from './routes.js';
import { answer, JSON_HEADERS, TEXT_HEADERS } from './answers.js';

const API_DOCUMENT = JSON.stringify(openApiDocument('1'));

export interface ReadHandler {
  reads: BlobReadContext;
  keys: EndpointKeys;
  /** stores without a key are routed for JWT authentication */
  jwtRoutes: boolean;
  readLimit: AdmissionLimiter;
  log: Logger;
}

const STREAM_CHUNK = 1 << 19;

/** A concatenation's JSON body: ids are 43 to 66 characters each. */
const CONCAT_BODY_LIMIT = 1 << 20;

/** The routes of READ_OPS; throws what the caller answers. */
export async function serveRead(h: ReadHandler, ex: Exchange, route: PublisherRoute): Promise<void> {
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

/** A blob read: the whole blob, one `Range` of it (206), or with `byteRange` the byte-range route's
 * slice (200, so CDNs cache it; walrus.md §11). */
export async function handleRead(h: ReadHandler, ex: Exchange, blobIdText: string, { byteRange, check }: { byteRange?: ByteRangeQuery; check?: ConsistencyCheck }): Promise<void> {
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
export async function handleConcat(h: ReadHandler, ex: Exchange, blobIdOf: (id: string) => Promise<string>, parsed?: ConcatRequest): Promise<void> {
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
export function blobsOnlyConcat(rawQuery: string): ConcatRequest | undefined {
  try {
    const parsed = parseConcatQuery(rawQuery);
    for (const id of parsed.ids) parseBlobId(id);
    return parsed.ids.length > 0 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** walrus.md §11: the type the request names in `Accept` (when it names one, without `*`), else
 * its own `Content-Type`, else bytes. */
export function readContentType(headers: Record<string, string | undefined>, fallback = 'application/octet-stream'): string {
  const accept = headers.accept?.trim();
  if (accept && !accept.includes('*')) return accept;
  return headers['content-type']?.trim() || fallback;
}
