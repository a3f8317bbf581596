// The listings' parameters (s3.md §3.6–3.8, §3.25–3.26), parsed and checked in S3's order; the
// handlers in handlers/list-*.ts receive them typed.

import { S3Error } from '../errors/errors.js';
import { decodeToken } from './continuation-token.js';
import type { RequestInput } from './input.js';

/** S3's page cap, also the default page size */
export const MAX_LISTED = 1000;

/** What every object listing shares. */
export interface ListingParams {
  prefix: string;
  delimiter: string;
  maxKeys: number;
  /** encoding-type=url */
  url: boolean;
}

export interface ListObjectsParams extends ListingParams {
  marker: string;
  /** the first media range of Accept is application/json: the seed's JSON shape (§3.7.1) */
  json: boolean;
}

export interface ListObjectsV2Params extends ListingParams {
  /** as sent (echoed); undefined when absent */
  continuationToken?: string;
  /** where the page starts: the token's item, else start-after, else '' */
  start: string;
  /** as sent (echoed); undefined when absent */
  startAfter?: string;
  fetchOwner: boolean;
  json: boolean;
}

export interface ListObjectVersionsParams extends ListingParams {
  keyMarker: string;
  versionIdMarker: string;
}

export interface ListMultipartUploadsParams {
  prefix: string;
  delimiter: string;
  keyMarker: string;
  uploadIdMarker: string;
  maxUploads: number;
  url: boolean;
}

export interface ListPartsParams {
  partNumberMarker: number;
  maxParts: number;
}

export function parseMaxKeys(q: Map<string, string>): number {
  const raw = q.get('max-keys');
  if (raw === undefined) return MAX_LISTED;
  if (!/^\d+$/.test(raw)) throw new S3Error('InvalidArgument', { ArgumentName: 'max-keys', ArgumentValue: raw }, {
    message: 'Provided max-keys not an integer or within integer range',
  });
  return Math.min(Number(raw), MAX_LISTED);
}

export function parseEncodingType(q: Map<string, string>): boolean {
  const v = q.get('encoding-type');
  if (v === undefined) return false;
  if (v !== 'url') {
    throw new S3Error('InvalidArgument', { ArgumentName: 'encoding-type', ArgumentValue: v }, {
      message: 'Invalid Encoding Method specified in Request',
    });
  }
  return true;
}

/** max-parts / max-uploads / part-number-marker: a non-negative integer, listing counts capped at 1000 (s3.md §6). */
function countParam(q: Map<string, string>, name: string, fallback: number, cap = Number.MAX_SAFE_INTEGER): number {
  const raw = q.get(name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,10}$/.test(raw)) {
    throw new S3Error('InvalidArgument', { ArgumentName: name, ArgumentValue: raw }, {
      message: `Provided ${name} not an integer or within integer range`,
    });
  }
  return Math.min(Number(raw), cap);
}

function wantsJson(headers: Readonly<Record<string, string>>): boolean {
  const accept = headers['accept'];
  if (!accept) return false;
  return accept.split(',')[0]!.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** prefix, delimiter, then max-keys before encoding-type, as S3 checks them. */
function listingParams(q: Map<string, string>): ListingParams {
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxKeys = parseMaxKeys(q);
  return { prefix, delimiter, maxKeys, url: parseEncodingType(q) };
}

export function parseListObjects({ query: q, headers }: RequestInput): ListObjectsParams {
  if (q.has('start-after')) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'start-after', ArgumentValue: q.get('start-after') }, {
      message: 'startAfter only supported in REST.GET.BUCKET with list-type=2',
    });
  }
  const marker = q.get('marker') ?? '';
  return { ...listingParams(q), marker, json: wantsJson(headers) };
}

export function parseListObjectsV2({ query: q, headers }: RequestInput): ListObjectsV2Params {
  const continuationToken = q.get('continuation-token');
  const startAfter = q.get('start-after');
  // start-after is ignored (but echoed) when a token is present (s3.md §3.6); an empty token is
  // none (it is echoed, as S3 does)
  const start = continuationToken ? decodeToken(continuationToken) : (startAfter ?? '');
  return {
    ...listingParams(q), continuationToken, start, startAfter, fetchOwner: q.get('fetch-owner') === 'true', json: wantsJson(headers),
  };
}

export function parseListObjectVersions({ query: q }: RequestInput): ListObjectVersionsParams {
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const keyMarker = q.get('key-marker') ?? '';
  const versionIdMarker = q.get('version-id-marker') ?? '';
  if (versionIdMarker && !keyMarker) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'version-id-marker', ArgumentValue: versionIdMarker }, {
      message: 'A version-id marker cannot be specified without a key marker.',
    });
  }
  return { prefix, delimiter, keyMarker, versionIdMarker, maxKeys: parseMaxKeys(q), url: parseEncodingType(q) };
}

export function parseListMultipartUploads({ query: q }: RequestInput): ListMultipartUploadsParams {
  const keyMarker = q.get('key-marker') ?? '';
  // upload-id-marker without key-marker is ignored (s3.md §3.26)
  const uploadIdMarker = keyMarker ? q.get('upload-id-marker') ?? '' : '';
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxUploads = countParam(q, 'max-uploads', MAX_LISTED, MAX_LISTED);
  return { prefix, delimiter, keyMarker, uploadIdMarker, maxUploads, url: parseEncodingType(q) };
}

export function parseListParts({ query: q }: RequestInput): ListPartsParams {
  const partNumberMarker = countParam(q, 'part-number-marker', 0);
  return { partNumberMarker, maxParts: countParam(q, 'max-parts', MAX_LISTED, MAX_LISTED) };
}
