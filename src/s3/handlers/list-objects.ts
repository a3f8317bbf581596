// ListObjectsV2 and ListObjects (V1), as XML (s3.md §4.3–4.4) or, when the first media range of
// Accept is application/json, as the seed's JSON shape (§3.7.1).

import { createHash } from 'node:crypto';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { send, sendXml } from '../respond.js';
import { objectSize } from '../sse/sse.js';
import { doc, el, etagEl, isoSeconds, ownerXml } from '../xml.js';
import { ownerNamed } from '../access.js';
import { objectOwner } from '../authz/authorize.js';
import type { ListResult } from '../../store/types.js';
import type { S3Bucket } from '../object-attrs.js';
import type { S3Object } from '../object-attrs.js';

const MAX_KEYS = 1000;
const MAX_TOKEN_BYTES = 2048;
/** format byte leading every continuation token, so that a later format can be told apart */
const TOKEN_FORMAT = 2;
/** bytes of the check that ends a token: a token cut short or altered is refused, as S3's are */
const TOKEN_CHECK_BYTES = 4;

export function parseMaxKeys(q: Map<string, string>): number {
  const raw = q.get('max-keys');
  if (raw === undefined) return MAX_KEYS;
  if (!/^\d+$/.test(raw)) throw new S3Error('InvalidArgument', { ArgumentName: 'max-keys', ArgumentValue: raw }, {
    message: 'Provided max-keys not an integer or within integer range',
  });
  return Math.min(Number(raw), MAX_KEYS);
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

/** Every byte but A-Z a-z 0-9 - _ . ~ / as %XX; '+' must be encoded, botocore decodes with unquote_plus (§3.0.8). */
export function urlEncodeListing(s: string): string {
  return encodeURIComponent(s)
    .replace(/%2F/g, '/')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function tokenCheck(body: Buffer): Buffer {
  return createHash('sha256').update(body).digest().subarray(0, TOKEN_CHECK_BYTES);
}

/** An opaque token naming where the next page starts: format byte, the last item, a check of both. */
export function encodeToken(lastItem: string): string {
  const body = Buffer.concat([Buffer.from([TOKEN_FORMAT]), Buffer.from(lastItem)]);
  return Buffer.concat([body, tokenCheck(body)]).toString('base64url');
}

export function decodeToken(token: string): string {
  const bytes = Buffer.from(token, 'base64url');
  const body = bytes.subarray(0, bytes.length - TOKEN_CHECK_BYTES);
  const valid = token.length <= MAX_TOKEN_BYTES && bytes.length > TOKEN_CHECK_BYTES && bytes[0] === TOKEN_FORMAT &&
    bytes.toString('base64url') === token.replace(/=+$/, '') && tokenCheck(body).equals(bytes.subarray(body.length));
  if (!valid) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'continuation-token' }, {
      message: 'The continuation token provided is incorrect',
    });
  }
  return body.subarray(1).toString('utf8');
}

function wantsJson(ctx: S3Context): boolean {
  const accept = ctx.headers['accept'];
  if (!accept) return false;
  return accept.split(',')[0]!.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function lastItemName(result: ListResult<unknown>): string {
  const last = result.items.at(-1)!;
  return last.kind === 'object' ? last.record.key : last.prefix;
}

interface Owner {
  ID: string;
  DisplayName: string;
}

/** Each listed object's owner (s3.md §2.11, set by the bucket's ownership controls when it was written). */
type OwnerOf = (r: S3Object) => Owner;

function ownerOf(ctx: S3Context, bucket: S3Bucket): OwnerOf {
  return (r) => {
    const { id, displayName } = ownerNamed(ctx, objectOwner(bucket, r.attrs));
    return { ID: id, DisplayName: displayName };
  };
}

/** One `<Contents>`; `owned` is its `<Owner>` element, or empty. */
function contentsXml(r: S3Object, enc: (s: string) => string, owned: string): string {
  // dates and sizes need no escaping
  return (
    `<Contents>${el('Key', enc(r.key))}<LastModified>${isoSeconds(r.lastModified)}</LastModified>${etagEl(r.etag)}` +
    `<Size>${objectSize(r)}</Size>${owned}${el('StorageClass', r.attrs.storageClass)}</Contents>`
  );
}

function contentsJson(r: S3Object, enc: (s: string) => string, owner: OwnerOf | undefined): Record<string, unknown> {
  return {
    Key: enc(r.key),
    LastModified: isoSeconds(r.lastModified),
    ETag: `"${r.etag}"`,
    Size: objectSize(r),
    StorageClass: r.attrs.storageClass,
    ...(owner ? { Owner: owner(r) } : {}),
  };
}

interface Listing {
  bucket: S3Bucket;
  prefix: string;
  delimiter: string;
  maxKeys: number;
  url: boolean;
  result: ListResult<S3Object['attrs']>;
  enc: (s: string) => string;
  objects: S3Object[];
  prefixes: string[];
}

function runListing(ctx: S3Context, startAfter: string): Listing {
  const bucket = bucketOf(ctx);
  const q = ctx.query;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxKeys = parseMaxKeys(q);
  const url = parseEncodingType(q);
  const result = ctx.services.store.list(bucket.name, { prefix, delimiter, startAfter, maxKeys });
  const objects: S3Object[] = [];
  const prefixes: string[] = [];
  for (const i of result.items) {
    if (i.kind === 'object') objects.push(i.record);
    else prefixes.push(i.prefix);
  }
  return { bucket, prefix, delimiter, maxKeys, url, result, enc: url ? urlEncodeListing : (s: string) => s, objects, prefixes };
}

/** The seed's members first, in the seed's order (s3.md §3.7.1); `extra` members follow. */
function sendJson(ctx: S3Context, L: Listing, owner: OwnerOf | undefined, extra: Record<string, unknown>): void {
  const body: Record<string, unknown> = {
    Name: L.bucket.name,
    Prefix: L.enc(L.prefix),
    MaxKeys: L.maxKeys,
    IsTruncated: L.result.isTruncated,
    Contents: L.objects.map((r) => contentsJson(r, L.enc, owner)),
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) body[k] = v;
  if (L.delimiter) body.Delimiter = L.enc(L.delimiter);
  if (L.url) body.EncodingType = 'url';
  if (L.prefixes.length) body.CommonPrefixes = L.prefixes.map((p) => ({ Prefix: L.enc(p) }));
  send(ctx, 200, [], JSON.stringify(body), 'application/json');
}

/** `<IsTruncated>` through the end of a ListBucketResult (§4.3, §4.4 share it). */
function xmlItems(L: Listing, owner: OwnerOf | undefined): string {
  let xml = '';
  if (L.delimiter) xml += el('Delimiter', L.enc(L.delimiter));
  xml += el('IsTruncated', L.result.isTruncated);
  for (const r of L.objects) {
    const o = owner?.(r);
    xml += contentsXml(r, L.enc, o ? ownerXml({ id: o.ID, displayName: o.DisplayName }) : '');
  }
  for (const p of L.prefixes) xml += `<CommonPrefixes>${el('Prefix', L.enc(p))}</CommonPrefixes>`;
  if (L.url) xml += el('EncodingType', 'url');
  return xml;
}

export async function handleListObjectsV2(ctx: S3Context): Promise<void> {
  const q = ctx.query;
  const token = q.get('continuation-token');
  // start-after is ignored (but echoed) when a token is present (s3.md §3.6); an empty token is
  // none (it is echoed, as S3 does)
  const start = token ? decodeToken(token) : (q.get('start-after') ?? '');
  const L = runListing(ctx, start);
  const owner = q.get('fetch-owner') === 'true' ? ownerOf(ctx, L.bucket) : undefined;
  const next = L.result.isTruncated ? encodeToken(lastItemName(L.result)) : undefined;
  const startAfter = q.has('start-after') ? L.enc(q.get('start-after')!) : undefined;
  if (wantsJson(ctx)) {
    return sendJson(ctx, L, owner, {
      KeyCount: L.result.items.length,
      ContinuationToken: token,
      NextContinuationToken: next,
      StartAfter: startAfter,
    });
  }
  let xml = el('Name', L.bucket.name) + el('Prefix', L.enc(L.prefix));
  if (startAfter !== undefined) xml += el('StartAfter', startAfter);
  if (token !== undefined) xml += el('ContinuationToken', token);
  if (next) xml += el('NextContinuationToken', next);
  xml += el('KeyCount', L.result.items.length) + el('MaxKeys', L.maxKeys) + xmlItems(L, owner);
  // S3 names the bucket's region on ListObjectsV2 as on HeadBucket
  sendXml(ctx, doc('ListBucketResult', xml), [['x-amz-bucket-region', ctx.services.config.region]]);
}

export async function handleListObjects(ctx: S3Context): Promise<void> {
  if (ctx.query.has('start-after')) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'start-after', ArgumentValue: ctx.query.get('start-after') }, {
      message: 'startAfter only supported in REST.GET.BUCKET with list-type=2',
    });
  }
  const marker = ctx.query.get('marker') ?? '';
  const L = runListing(ctx, marker);
  const owner = ownerOf(ctx, L.bucket);
  // NextMarker only with a delimiter and a truncated page (s3.md §3.7)
  const nextMarker = L.delimiter && L.result.isTruncated ? L.enc(lastItemName(L.result)) : undefined;
  if (wantsJson(ctx)) return sendJson(ctx, L, owner, { Marker: L.enc(marker), NextMarker: nextMarker });
  let xml = el('Name', L.bucket.name) + el('Prefix', L.enc(L.prefix)) + el('Marker', L.enc(marker));
  if (nextMarker !== undefined) xml += el('NextMarker', nextMarker);
  xml += el('MaxKeys', L.maxKeys) + xmlItems(L, owner);
  sendXml(ctx, doc('ListBucketResult', xml));
}
