// ListObjectsV2 and ListObjects (V1), as XML (s3.md §4.3–4.4) or, when the first media range of
// Accept is application/json, as the seed's JSON shape (§3.7.1).

import { bucketOf, type S3Context } from '../context.js';
import { encodeToken } from '../routes/continuation-token.js';
import type { ListingParams, ListObjectsParams, ListObjectsV2Params } from '../routes/listings.js';
import { send, sendXml } from '../respond.js';
import { objectSize } from '../sse/sse.js';
import { doc, el, etagEl, isoSeconds, ownerXml } from '../xml.js';
import { ownerNamed } from '../access.js';
import { objectOwner } from '../authz/authorize.js';
import type { ListResult } from '../../store/types.js';
import type { S3Bucket } from '../object-attrs.js';
import type { S3Object } from '../object-attrs.js';

/** Every byte but A-Z a-z 0-9 - _ . ~ / as %XX; '+' must be encoded, botocore decodes with unquote_plus (§3.0.8). */
export function urlEncodeListing(s: string): string {
  return encodeURIComponent(s)
    .replace(/%2F/g, '/')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
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

interface Listing extends ListingParams {
  bucket: S3Bucket;
  result: ListResult<S3Object['attrs']>;
  enc: (s: string) => string;
  objects: S3Object[];
  prefixes: string[];
}

function runListing(ctx: S3Context, p: ListingParams, startAfter: string): Listing {
  const bucket = bucketOf(ctx);
  const { prefix, delimiter, maxKeys, url } = p;
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

export async function handleListObjectsV2(ctx: S3Context, p: ListObjectsV2Params): Promise<void> {
  const token = p.continuationToken;
  const L = runListing(ctx, p, p.start);
  const owner = p.fetchOwner ? ownerOf(ctx, L.bucket) : undefined;
  const next = L.result.isTruncated ? encodeToken(lastItemName(L.result)) : undefined;
  const startAfter = p.startAfter !== undefined ? L.enc(p.startAfter) : undefined;
  if (p.json) {
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

export async function handleListObjects(ctx: S3Context, p: ListObjectsParams): Promise<void> {
  const { marker } = p;
  const L = runListing(ctx, p, marker);
  const owner = ownerOf(ctx, L.bucket);
  // NextMarker only with a delimiter and a truncated page (s3.md §3.7)
  const nextMarker = L.delimiter && L.result.isTruncated ? L.enc(lastItemName(L.result)) : undefined;
  if (p.json) return sendJson(ctx, L, owner, { Marker: L.enc(marker), NextMarker: nextMarker });
  let xml = el('Name', L.bucket.name) + el('Prefix', L.enc(L.prefix)) + el('Marker', L.enc(marker));
  if (nextMarker !== undefined) xml += el('NextMarker', nextMarker);
  xml += el('MaxKeys', L.maxKeys) + xmlItems(L, owner);
  sendXml(ctx, doc('ListBucketResult', xml));
}
