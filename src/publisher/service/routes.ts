// Classifies a publisher/aggregator request (walrus.md §10.1, §11; seed interface B): every route
// also answers under /<endpoint_key>/, and storing needs the key. Handlers only act on the result.

import { timingSafeEqual, createHash } from 'node:crypto';
import { percentDecode } from '../../http/query.js';
import { PublisherError } from './errors.js';

export type PublisherRoute =
  | { op: 'storeBlob'; jwt?: true }
  | { op: 'storeQuilt'; jwt?: true }
  | { op: 'readQuiltPatch'; patchId: string }
  | { op: 'readQuiltPatchByIdentifier'; quiltId: string; identifier: string }
  | { op: 'listQuiltPatches'; quiltId: string }
  | { op: 'uploadRelay' }
  | { op: 'tipConfig' }
  | { op: 'status' }
  | { op: 'api' }
  | { op: 'preflight' }
  | { op: 'readBlob'; blobId: string }
  | { op: 'readBlobRange'; blobId: string }
  | { op: 'readBlobByObject'; objectId: string }
  | { op: 'streamBlob'; blobId: string }
  | { op: 'concatBlobs' }
  | { op: 'ledger'; rest: string };

/** Every op the router can produce (the OpenAPI test checks the document names each). */
export const PUBLISHER_OPS = ['storeBlob', 'storeQuilt', 'readQuiltPatch', 'readQuiltPatchByIdentifier', 'listQuiltPatches', 'uploadRelay', 'tipConfig', 'status', 'api', 'preflight', 'readBlob', 'readBlobRange', 'readBlobByObject', 'streamBlob', 'concatBlobs', 'ledger'] as const satisfies readonly PublisherRoute['op'][];
// Compile-time: PUBLISHER_OPS lists every op of the union.
const _everyOp: Exclude<PublisherRoute['op'], (typeof PUBLISHER_OPS)[number]> extends never ? true : never = true;
void _everyOp;

/** Path segments that begin an unkeyed route, so they can never be endpoint keys. */
export const RESERVED_SEGMENTS = new Set(['v1', 'v1alpha', 'status']);

/** Endpoint keys are path segments: URL-safe characters only. */
export const ENDPOINT_KEY_PATTERN = /^[A-Za-z0-9._~-]{8,128}$/;

export function assertEndpointKey(key: string): void {
  if (!ENDPOINT_KEY_PATTERN.test(key) || RESERVED_SEGMENTS.has(key)) {
    throw new RangeError(`an endpoint key is 8 to 128 characters of A-Z a-z 0-9 . _ ~ - (and not 'v1', 'v1alpha' or 'status'), got '${key}'`);
  }
}

export class EndpointKeys {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    if (keys.length === 0) throw new RangeError('the publisher needs at least one endpoint key');
    keys.forEach(assertEndpointKey);
    this.digests = keys.map(digest);
  }

  /** Compares digests in constant time, so response timing does not reveal a key's prefix. */
  has(candidate: string): boolean {
    const d = digest(candidate);
    let found = false;
    for (const k of this.digests) found = timingSafeEqual(k, d) || found;
    return found;
  }
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * The route, or a PublisherError: 401/403 for key problems, 404 for anything unknown. With `jwt`, a
 * store without an endpoint key is routed for JWT authentication (`jwt: true`) instead of refused.
 */
export function classifyPublisherRequest(method: string, rawPath: string, keys: EndpointKeys, jwt = false): PublisherRoute {
  // The daemon's CORS layer answers every preflight before routing (walrus daemon routes.rs daemon_cors_layer).
  if (method === 'OPTIONS') return { op: 'preflight' };
  const segments = rawPath.split('/').slice(1);
  if (segments.length === 0 || segments[0] === '') segments.shift();
  const first = segments[0];
  if (first !== undefined && !RESERVED_SEGMENTS.has(first)) {
    // An unknown route is a 404 whatever the key; a known one under a wrong key is refused.
    const route = unkeyed(method, segments.slice(1), true, jwt);
    const key = percentDecode(first, false);
    if (key === undefined || !keys.has(key)) throw new PublisherError('INVALID_ENDPOINT_KEY');
    return route;
  }
  return unkeyed(method, segments, false, jwt);
}

/** `rawPath` with the endpoint key in its first segment, if any, named instead of shown (for logs). */
export function loggablePath(rawPath: string): string {
  const [, first, ...rest] = rawPath.split('/');
  return first === undefined || first === '' || RESERVED_SEGMENTS.has(first) ? rawPath : ['', '<endpoint_key>', ...rest].join('/');
}

function routes(method: string, segments: string[], jwt: boolean): boolean {
  try {
    unkeyed(method, segments, true, jwt, true);
    return true;
  } catch (e) {
    // a route that exists but refuses (a malformed identifier, say) still exists
    return !(e instanceof PublisherError && e.code === 'ROUTE_NOT_FOUND');
  }
}

/** Methods the daemon's router takes, for a 405's Allow header. */
const METHODS = ['GET', 'HEAD', 'PUT', 'POST'] as const;

function unkeyed(method: string, segments: string[], keyed: boolean, jwt: boolean, probing = false): PublisherRoute {
  const [a, b, c, ...more] = segments;
  // axum's `get` routes answer HEAD as well.
  const read = method === 'GET' || method === 'HEAD';
  if (a === 'status' && b === undefined && read) return { op: 'status' };
  if (a === 'v1' && b === 'api' && c === undefined && read) return { op: 'api' };
  // The upload relay's routes (walrus-upload-relay controller.rs): no key, as Walrus's relay asks none.
  if (a === 'v1' && b === 'blob-upload-relay' && c === undefined && method === 'POST') return { op: 'uploadRelay' };
  if (a === 'v1' && b === 'tip-config' && c === undefined && read) return { op: 'tipConfig' };
  if (a === 'v1' && (b === 'blobs' || b === 'quilts') && c === undefined && method === 'PUT') {
    const op = b === 'blobs' ? 'storeBlob' : 'storeQuilt';
    if (keyed) return { op };
    if (jwt) return { op, jwt: true };
    throw new PublisherError('MISSING_ENDPOINT_KEY');
  }
  if (a === 'v1' && b === 'quilts' && c !== undefined && more.length === 1 && more[0] === 'patches' && read) {
    return { op: 'listQuiltPatches', quiltId: c };
  }
  if (a === 'v1' && b === 'blobs') {
    if (c !== undefined && read) {
      if (more.length === 0) return { op: 'readBlob', blobId: c };
      if (c === 'by-object-id' && more.length === 1) return { op: 'readBlobByObject', objectId: more[0]! };
      if (c === 'by-quilt-patch-id' && more.length === 1) return { op: 'readQuiltPatch', patchId: more[0]! };
      if (c === 'by-quilt-id' && more.length === 2) {
        const identifier = percentDecode(more[1]!, false);
        if (identifier === undefined) throw new PublisherError('MALFORMED_REQUEST', 'invalid percent-encoding in the identifier');
        return { op: 'readQuiltPatchByIdentifier', quiltId: more[0]!, identifier };
      }
      if (more.length === 1 && more[0] === 'byte-range') return { op: 'readBlobRange', blobId: c };
    }
  }
  // The aggregator's alpha routes (walrus daemon routes.rs BLOB_STREAM_ENDPOINT, BLOB_CONCAT_ENDPOINT).
  if (a === 'v1alpha' && b === 'blobs' && c !== undefined) {
    if (c === 'concat' && more.length === 0 && (read || method === 'POST')) return { op: 'concatBlobs' };
    if (more.length === 1 && more[0] === 'stream' && read) return { op: 'streamBlob', blobId: c };
  }
  if (a === 'v1' && b === 'ledger' && read) return { op: 'ledger', rest: segments.slice(2).join('/') };
  if (!probing) {
    // a path that names a route under other methods is a 405, as the daemon's router (axum) answers
    const allow = METHODS.filter((m) => m !== method && routes(m, segments, jwt));
    if (allow.length > 0) throw new PublisherError('METHOD_NOT_ALLOWED', `${method} ${keyed ? '/<endpoint_key>' : ''}/${segments.join('/')}`, { allow: allow.join(',') });
  }
  throw new PublisherError('ROUTE_NOT_FOUND', `${method} ${keyed ? '/<endpoint_key>' : ''}/${segments.join('/')}`);
}
