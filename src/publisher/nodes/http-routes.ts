// The storage-node REST routes (walrus.md §12.2, the subset Tusk uses, plus Tusk's reclaim route):
// the router only classifies a request; http-server.ts acts on it. http-client.ts builds the same paths.

import { StorageNodeError } from './errors.js';
import { blobIdFromText, blobIdToText, objectIdToBytes } from './identifiers.js';
import type { BlobType, SliverAxis } from './types.js';

export type NodeRoute =
  | { op: 'health' }
  | { op: 'putMetadata'; blobId: Buffer }
  | { op: 'getMetadata'; blobId: Buffer }
  | { op: 'putSliver'; blobId: Buffer; pairIndex: number; axis: SliverAxis }
  | { op: 'getSliver'; blobId: Buffer; pairIndex: number; axis: SliverAxis }
  | { op: 'getConfirmation'; blobId: Buffer; blobType: BlobType; epoch: number }
  | { op: 'deleteBlob'; blobId: Buffer };

export const HEALTH_PATH = '/v1/health';
const BLOBS = '/v1/blobs/';

/** Path and query of a route (the inverse of classifyNodeRequest). */
export function routeTarget(route: NodeRoute): string {
  if (route.op === 'health') return HEALTH_PATH;
  const base = `${BLOBS}${blobIdToText(route.blobId)}`;
  switch (route.op) {
    case 'putMetadata':
    case 'getMetadata':
      return `${base}/metadata`;
    case 'putSliver':
    case 'getSliver':
      return `${base}/slivers/${route.pairIndex}/${route.axis}`;
    case 'getConfirmation':
      return route.blobType.kind === 'permanent'
        ? `${base}/confirmation/permanent?epoch=${route.epoch}`
        : `${base}/confirmation/deletable/${route.blobType.objectId}?epoch=${route.epoch}`;
    case 'deleteBlob':
      return base;
  }
}

export function classifyNodeRequest(method: string, rawPath: string, rawQuery: string): NodeRoute {
  if (rawPath === HEALTH_PATH && method === 'GET') return { op: 'health' };
  if (!rawPath.startsWith(BLOBS)) throw notFound(method, rawPath);
  const parts = rawPath.slice(BLOBS.length).split('/');
  const blobId = blobIdFromText(parts[0]!);
  const rest = parts.slice(1);
  if (rest.length === 0 && method === 'DELETE') return { op: 'deleteBlob', blobId };
  if (rest.length === 1 && rest[0] === 'metadata') {
    if (method === 'PUT') return { op: 'putMetadata', blobId };
    if (method === 'GET') return { op: 'getMetadata', blobId };
  }
  if (rest.length === 3 && rest[0] === 'slivers' && (rest[2] === 'primary' || rest[2] === 'secondary')) {
    const pairIndex = parsePairIndex(rest[1]!);
    if (method === 'PUT') return { op: 'putSliver', blobId, pairIndex, axis: rest[2] };
    if (method === 'GET') return { op: 'getSliver', blobId, pairIndex, axis: rest[2] };
  }
  if (method === 'GET' && rest[0] === 'confirmation') {
    if (rest.length === 2 && rest[1] === 'permanent') {
      return { op: 'getConfirmation', blobId, blobType: { kind: 'permanent' }, epoch: parseEpoch(rawQuery) };
    }
    if (rest.length === 3 && rest[1] === 'deletable') {
      const objectId = rest[2]!;
      objectIdToBytes(objectId); // validates
      return { op: 'getConfirmation', blobId, blobType: { kind: 'deletable', objectId: objectId.toLowerCase() }, epoch: parseEpoch(rawQuery) };
    }
  }
  throw notFound(method, rawPath);
}

function notFound(method: string, rawPath: string): StorageNodeError {
  return new StorageNodeError('ROUTE_NOT_FOUND', `${method} ${rawPath.slice(0, 200)}`);
}

function parsePairIndex(text: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new StorageNodeError('INVALID_PAIR_INDEX', JSON.stringify(text));
  return Number(text);
}

/** Tusk's confirmations name the epoch they are for (the ledger's clock), as `?epoch=`. */
function parseEpoch(rawQuery: string): number {
  const text = new URLSearchParams(rawQuery).get('epoch');
  if (text === null || !/^\d{1,10}$/.test(text) || Number(text) > 0xffff_ffff) {
    throw new StorageNodeError('INVALID_EPOCH', text === null ? 'missing ?epoch=' : JSON.stringify(text));
  }
  return Number(text);
}
