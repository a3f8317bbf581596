// ListParts and ListMultipartUploads (s3.md §3.25–3.26, XML §4.17–4.18).

import { bucketOf, type S3Context } from '../context.js';
import type { S3Bucket, S3ObjectAttrs, S3PartAttrs } from '../object-attrs.js';
import { ownerNamed } from '../access.js';
import { objectOwner } from '../authz/authorize.js';
import { sendXml } from '../respond.js';
import { doc, el, etagEl, isoSeconds, ownerXml, type OwnerXml } from '../xml.js';
import { urlEncodeListing } from './list-objects.js';
import { parseListParts, type ListMultipartUploadsParams } from '../routes/listings.js';
import { partSize, uploadOf } from './multipart.js';
import type { UploadIdParams } from '../routes/uploads.js';
import type { ListUploadsResult, Part, Upload } from '../../store/types.js';

/** An upload's `<Initiator>` and `<Owner>`: who began it and who will own the object (AWS *ListParts*). */
export interface UploadPeople {
  initiator: OwnerXml;
  owner: OwnerXml;
}

function peopleOf(ctx: S3Context, bucket: S3Bucket): (u: Upload<S3ObjectAttrs>) => UploadPeople {
  // uploads begun before Tusk kept an initiator name the bucket owner, as they did then
  return (u) => ({ initiator: ownerNamed(ctx, u.attrs.initiator ?? bucket.owner), owner: ownerNamed(ctx, objectOwner(bucket, u.attrs)) });
}


export interface ListPartsPage {
  bucket: string;
  upload: Upload<S3ObjectAttrs>;
  people: UploadPeople;
  marker: number;
  maxParts: number;
  parts: Part<S3PartAttrs>[];
  isTruncated: boolean;
}

export function renderListPartsResult(p: ListPartsPage): string {
  const a = p.upload.attrs;
  let xml = el('Bucket', p.bucket) + el('Key', p.upload.key) + el('UploadId', p.upload.uploadId);
  xml += ownerXml(p.people.initiator, 'Initiator') + ownerXml(p.people.owner) + el('StorageClass', a.storageClass);
  xml += el('PartNumberMarker', p.marker);
  xml += el('NextPartNumberMarker', p.parts.at(-1)?.partNumber ?? 0);
  xml += el('MaxParts', p.maxParts) + el('IsTruncated', p.isTruncated);
  if (a.uploadChecksum) xml += el('ChecksumAlgorithm', a.uploadChecksum.algorithm) + el('ChecksumType', a.uploadChecksum.type);
  for (const part of p.parts) {
    xml += `<Part>${el('PartNumber', part.partNumber)}${el('LastModified', isoSeconds(part.lastModified))}`;
    xml += `${etagEl(part.etag)}${el('Size', partSize(part))}`;
    const c = part.attrs.checksum;
    if (c && a.uploadChecksum?.algorithm === c.algorithm) xml += el(`Checksum${c.algorithm}`, c.value);
    xml += '</Part>';
  }
  return doc('ListPartsResult', xml);
}

export async function handleListParts(ctx: S3Context, { uploadId }: UploadIdParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const upload = uploadOf(ctx, bucket, uploadId);
  // parsed after the upload's lookup and access check, which S3 answers first
  const { partNumberMarker: marker, maxParts } = parseListParts(ctx);
  const { parts, isTruncated } = ctx.services.store.listParts(upload.uploadId, marker, maxParts);
  sendXml(ctx, renderListPartsResult({ bucket: bucket.name, upload, people: peopleOf(ctx, bucket)(upload), marker, maxParts, parts, isTruncated }));
}

export interface ListUploadsPage {
  bucket: string;
  people: (u: Upload<S3ObjectAttrs>) => UploadPeople;
  keyMarker: string;
  uploadIdMarker: string;
  prefix: string;
  delimiter: string;
  maxUploads: number;
  url: boolean;
  result: ListUploadsResult<S3ObjectAttrs>;
}

export function renderListMultipartUploadsResult(p: ListUploadsPage): string {
  const enc = p.url ? urlEncodeListing : (s: string) => s;
  const last = p.result.items.at(-1);
  // the last upload listed, truncated or not, as S3 answers (empty only when nothing is listed)
  let nextKey = '';
  let nextId = '';
  if (last) {
    if (last.kind === 'upload') {
      nextKey = last.upload.key;
      nextId = last.upload.uploadId;
    } else nextKey = last.prefix;
  }
  let xml = el('Bucket', p.bucket) + el('KeyMarker', enc(p.keyMarker)) + el('UploadIdMarker', p.uploadIdMarker);
  xml += el('NextKeyMarker', enc(nextKey)) + el('NextUploadIdMarker', nextId);
  if (p.delimiter) xml += el('Delimiter', enc(p.delimiter));
  xml += el('Prefix', enc(p.prefix));
  if (p.url) xml += el('EncodingType', 'url');
  xml += el('MaxUploads', p.maxUploads) + el('IsTruncated', p.result.isTruncated);
  for (const item of p.result.items) {
    if (item.kind !== 'upload') continue;
    const u = item.upload;
    const people = p.people(u);
    xml += `<Upload>${el('Key', enc(u.key))}${el('UploadId', u.uploadId)}${ownerXml(people.initiator, 'Initiator')}${ownerXml(people.owner)}`;
    xml += `${el('StorageClass', u.attrs.storageClass)}${el('Initiated', isoSeconds(u.initiated))}`;
    if (u.attrs.uploadChecksum) xml += el('ChecksumAlgorithm', u.attrs.uploadChecksum.algorithm);
    xml += '</Upload>';
  }
  for (const item of p.result.items) if (item.kind === 'prefix') xml += `<CommonPrefixes>${el('Prefix', enc(item.prefix))}</CommonPrefixes>`;
  return doc('ListMultipartUploadsResult', xml);
}

export async function handleListMultipartUploads(ctx: S3Context, p: ListMultipartUploadsParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const { prefix, delimiter, keyMarker, uploadIdMarker, maxUploads, url } = p;
  const result = ctx.services.store.listUploads(bucket.name, { prefix, delimiter, keyMarker, uploadIdMarker, maxUploads });
  sendXml(ctx, renderListMultipartUploadsResult({
    bucket: bucket.name, people: peopleOf(ctx, bucket), keyMarker, uploadIdMarker, prefix, delimiter, maxUploads, url, result,
  }));
}
