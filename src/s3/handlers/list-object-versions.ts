// ListObjectVersions (s3.md §3.8, §4.5): key ascending, newest first per key, Version and
// DeleteMarker interleaved in that order.

import { bucketOf, type S3Context } from '../context.js';
import { sendXml } from '../respond.js';
import { doc, el, etagEl, isoSeconds, ownerXml } from '../xml.js';
import { ownerNamed } from '../access.js';
import { objectOwner } from '../authz/authorize.js';
import type { S3Object } from '../object-attrs.js';
import { urlEncodeListing } from './list-objects.js';
import type { ListObjectVersionsParams } from '../routes/listings.js';

/** One `<Version>` or `<DeleteMarker>`; `owner` is its `<Owner>` element. */
function versionXml(v: S3Object, isLatest: boolean, owner: string, enc: (s: string) => string): string {
  // flags, dates and sizes need no escaping
  const common = `${el('Key', enc(v.key))}${el('VersionId', v.versionId)}<IsLatest>${isLatest}</IsLatest><LastModified>${isoSeconds(v.lastModified)}</LastModified>`;
  if (v.deleteMarker) return `<DeleteMarker>${common}${owner}</DeleteMarker>`;
  return `<Version>${common}${etagEl(v.etag)}<Size>${v.size}</Size>${owner}${el('StorageClass', v.attrs.storageClass)}</Version>`;
}

export async function handleListObjectVersions(ctx: S3Context, p: ListObjectVersionsParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const { prefix, delimiter, keyMarker, versionIdMarker, maxKeys, url } = p;
  const enc = url ? urlEncodeListing : (s: string) => s;
  const result = ctx.services.store.listVersions(bucket.name, { prefix, delimiter, keyMarker, versionIdMarker, maxKeys });
  let xml = el('Name', bucket.name) + el('Prefix', enc(prefix)) + el('KeyMarker', enc(keyMarker)) + el('VersionIdMarker', versionIdMarker);
  if (result.isTruncated) {
    xml += el('NextKeyMarker', enc(result.nextKeyMarker ?? ''));
    if (result.nextVersionIdMarker !== undefined) xml += el('NextVersionIdMarker', result.nextVersionIdMarker);
  }
  xml += el('MaxKeys', maxKeys);
  if (delimiter) xml += el('Delimiter', enc(delimiter));
  xml += el('IsTruncated', result.isTruncated);
  let prefixes = '';
  for (const item of result.items) {
    if (item.kind === 'version') {
      // a delete marker is the bucket owner's: Tusk does not record who deleted
      const owner = item.version.deleteMarker ? bucket.owner : objectOwner(bucket, item.version.attrs);
      xml += versionXml(item.version, item.isLatest, ownerXml(ownerNamed(ctx, owner)), enc);
    }
    else prefixes += `<CommonPrefixes>${el('Prefix', enc(item.prefix))}</CommonPrefixes>`;
  }
  xml += prefixes;
  if (url) xml += el('EncodingType', 'url');
  sendXml(ctx, doc('ListVersionsResult', xml));
}
