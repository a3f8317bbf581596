// ListObjectsV2 and ListObjects (V1), as XML (s3.md §4.3–4.4) or, when the first media range of
// Accept is application/json, as the seed's JSON shape (§3.7.1).

import { requireBucket } from '../access.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors.js';
import { send, sendXml } from '../respond.js';
import { doc, el, isoSeconds } from '../xml.js';
import type { BucketRecord, ListResult, ObjectRecord } from '../../store/types.js';

const MAX_KEYS = 1000;
const MAX_TOKEN_BYTES = 2048;
/** format byte leading every continuation token, so that a later format can be told apart */
const TOKEN_FORMAT = 1;

function parseMaxKeys(q: Map<string, string>): number {
  const raw = q.get('max-keys');
  if (raw === undefined) return MAX_KEYS;
  if (!/^\d+$/.test(raw)) throw new S3Error('InvalidArgument', { ArgumentName: 'max-keys', ArgumentValue: raw }, {
    message: 'Provided max-keys not an integer or within integer range',
  });
  return Math.min(Number(raw), MAX_KEYS);
}

function parseEncodingType(q: Map<string, string>): boolean {
  const v = q.get('encoding-type');
  if (v === undefined) return false;
  if (v !== 'url') {
    throw new S3Error('InvalidArgument', { ArgumentName: 'encoding-type', ArgumentValue: v }, {
      message: 'Invalid Encoding Method specified in Request',
    });
  }
  return true;
}

/** Every byte but A-Z a-z 0-9 - _ . ~ / as %XX; '+' must be encoded, botocore decodes with unquote_plus (§3.0.8). */
export function urlEncodeListing(s: string): string {
  return encodeURIComponent(s)
    .replace(/%2F/g, '/')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function encodeToken(lastItem: string): string {
  return Buffer.concat([Buffer.from([TOKEN_FORMAT]), Buffer.from(lastItem)]).toString('base64url');
}

export function decodeToken(token: string): string {
  const bytes = Buffer.from(token, 'base64url');
  if (token.length > MAX_TOKEN_BYTES || bytes.length < 1 || bytes[0] !== TOKEN_FORMAT || bytes.toString('base64url') !== token.replace(/=+$/, '')) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'continuation-token' }, {
      message: 'The continuation token provided is incorrect',
    });
  }
  return bytes.subarray(1).toString('utf8');
}

function wantsJson(ctx: S3Context): boolean {
  const accept = ctx.headers['accept'];
  if (!accept) return false;
  return accept.split(',')[0]!.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function lastItemName(result: ListResult): string {
  const last = result.items.at(-1)!;
  return last.kind === 'object' ? last.record.key : last.prefix;
}

interface Owner {
  ID: string;
  DisplayName: string;
}

function ownerOf(ctx: S3Context, bucket: BucketRecord): Owner {
  const account = ctx.services.accounts.byCanonicalId(bucket.owner);
  return { ID: bucket.owner, DisplayName: account?.displayName ?? '' };
}

function contentsXml(r: ObjectRecord, enc: (s: string) => string, owner: Owner | undefined): string {
  return (
    `<Contents>${el('Key', enc(r.key))}${el('LastModified', isoSeconds(r.lastModified))}${el('ETag', `"${r.etag}"`)}` +
    `${el('Size', r.size)}${owner ? `<Owner>${el('ID', owner.ID)}${el('DisplayName', owner.DisplayName)}</Owner>` : ''}` +
    `${el('StorageClass', r.storageClass)}</Contents>`
  );
}

function contentsJson(r: ObjectRecord, enc: (s: string) => string, owner: Owner | undefined): Record<string, unknown> {
  return {
    Key: enc(r.key),
    LastModified: isoSeconds(r.lastModified),
    ETag: `"${r.etag}"`,
    Size: r.size,
    StorageClass: r.storageClass,
    ...(owner ? { Owner: owner } : {}),
  };
}

interface Listing {
  bucket: BucketRecord;
  prefix: string;
  delimiter: string;
  maxKeys: number;
  url: boolean;
  result: ListResult;
}

function runListing(ctx: S3Context, startAfter: string): Listing {
  const bucket = bucketOf(ctx);
  requireBucket(ctx.principal, bucket, 'read');
  const q = ctx.query;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxKeys = parseMaxKeys(q);
  const url = parseEncodingType(q);
  const result = ctx.services.store.list(bucket.name, { prefix, delimiter, startAfter, maxKeys });
  return { bucket, prefix, delimiter, maxKeys, url, result };
}

export async function handleListObjectsV2(ctx: S3Context): Promise<void> {
  const q = ctx.query;
  const token = q.get('continuation-token');
  // start-after is ignored (but echoed) when a token is present (s3.md §3.6)
  const start = token !== undefined ? decodeToken(token) : (q.get('start-after') ?? '');
  const L = runListing(ctx, start);
  const enc = L.url ? urlEncodeListing : (s: string) => s;
  const owner = q.get('fetch-owner') === 'true' ? ownerOf(ctx, L.bucket) : undefined;
  const next = L.result.isTruncated ? encodeToken(lastItemName(L.result)) : undefined;
  const objects = L.result.items.flatMap((i) => (i.kind === 'object' ? [i.record] : []));
  const prefixes = L.result.items.flatMap((i) => (i.kind === 'prefix' ? [i.prefix] : []));
  if (wantsJson(ctx)) {
    const body: Record<string, unknown> = {
      Name: L.bucket.name,
      Prefix: enc(L.prefix),
      MaxKeys: L.maxKeys,
      IsTruncated: L.result.isTruncated,
      Contents: objects.map((r) => contentsJson(r, enc, owner)),
      KeyCount: L.result.items.length,
    };
    if (L.delimiter) body.Delimiter = enc(L.delimiter);
    if (L.url) body.EncodingType = 'url';
    if (token !== undefined) body.ContinuationToken = token;
    if (next) body.NextContinuationToken = next;
    if (q.has('start-after')) body.StartAfter = enc(q.get('start-after')!);
    if (prefixes.length) body.CommonPrefixes = prefixes.map((p) => ({ Prefix: enc(p) }));
    return send(ctx, 200, [], JSON.stringify(body), 'application/json');
  }
  let xml = el('Name', L.bucket.name) + el('Prefix', enc(L.prefix));
  if (q.has('start-after')) xml += el('StartAfter', enc(q.get('start-after')!));
  if (token !== undefined) xml += el('ContinuationToken', token);
  if (next) xml += el('NextContinuationToken', next);
  xml += el('KeyCount', L.result.items.length) + el('MaxKeys', L.maxKeys);
  if (L.delimiter) xml += el('Delimiter', enc(L.delimiter));
  xml += el('IsTruncated', L.result.isTruncated);
  for (const r of objects) xml += contentsXml(r, enc, owner);
  for (const p of prefixes) xml += `<CommonPrefixes>${el('Prefix', enc(p))}</CommonPrefixes>`;
  if (L.url) xml += el('EncodingType', 'url');
  sendXml(ctx, doc('ListBucketResult', xml));
}

export async function handleListObjects(ctx: S3Context): Promise<void> {
  const marker = ctx.query.get('marker') ?? '';
  const L = runListing(ctx, marker);
  const enc = L.url ? urlEncodeListing : (s: string) => s;
  const owner = ownerOf(ctx, L.bucket);
  // NextMarker only with a delimiter and a truncated page (s3.md §3.7)
  const nextMarker = L.delimiter && L.result.isTruncated ? lastItemName(L.result) : undefined;
  const objects = L.result.items.flatMap((i) => (i.kind === 'object' ? [i.record] : []));
  const prefixes = L.result.items.flatMap((i) => (i.kind === 'prefix' ? [i.prefix] : []));
  if (wantsJson(ctx)) {
    const body: Record<string, unknown> = {
      Name: L.bucket.name,
      Prefix: enc(L.prefix),
      MaxKeys: L.maxKeys,
      IsTruncated: L.result.isTruncated,
      Contents: objects.map((r) => contentsJson(r, enc, owner)),
      Marker: enc(marker),
    };
    if (nextMarker !== undefined) body.NextMarker = enc(nextMarker);
    if (L.delimiter) body.Delimiter = enc(L.delimiter);
    if (L.url) body.EncodingType = 'url';
    if (prefixes.length) body.CommonPrefixes = prefixes.map((p) => ({ Prefix: enc(p) }));
    return send(ctx, 200, [], JSON.stringify(body), 'application/json');
  }
  let xml = el('Name', L.bucket.name) + el('Prefix', enc(L.prefix)) + el('Marker', enc(marker));
  if (nextMarker !== undefined) xml += el('NextMarker', enc(nextMarker));
  xml += el('MaxKeys', L.maxKeys);
  if (L.delimiter) xml += el('Delimiter', enc(L.delimiter));
  xml += el('IsTruncated', L.result.isTruncated);
  for (const r of objects) xml += contentsXml(r, enc, owner);
  for (const p of prefixes) xml += `<CommonPrefixes>${el('Prefix', enc(p))}</CommonPrefixes>`;
  if (L.url) xml += el('EncodingType', 'url');
  sendXml(ctx, doc('ListBucketResult', xml));
}

