// GetObjectAttributes (`GET /<key>?attributes`, AWS GetObjectAttributes): the attributes named by
// `x-amz-object-attributes` — ETag, Checksum, ObjectParts, StorageClass, ObjectSize — in AWS's order
// (the parts' count is the element PartsCount, as the SDK's model names it for TotalPartsCount).

import { bucketOf, type S3Context } from '../context.js';
import { objectDamaged } from '../store-errors.js';
import type { S3Object } from '../object-attrs.js';
import { sendXml } from '../respond.js';
import { dataKeyForRead, objectSize } from '../sse/sse.js';
import { doc, el, httpDate } from '../xml.js';
import { readableVersion, versionHeader } from './object-version.js';
import type { GetObjectAttributesParams, ObjectAttribute } from '../routes/object-subresources.js';

export function renderGetObjectAttributesResponse(
  version: S3Object,
  want: ReadonlySet<ObjectAttribute>,
  partNumberMarker: number,
  maxParts: number,
): string {
  const a = version.attrs;
  let xml = '';
  if (want.has('ETag')) xml += el('ETag', version.etag);
  if (want.has('Checksum') && a.checksum) {
    xml += `<Checksum>${el(`Checksum${a.checksum.algorithm}`, a.checksum.value)}${el('ChecksumType', a.checksum.type)}</Checksum>`;
  }
  if (want.has('ObjectParts') && a.parts) {
    const page = a.parts.map((p, i) => ({ ...p, n: i + 1 })).filter((p) => p.n > partNumberMarker);
    const shown = page.slice(0, maxParts);
    const truncated = page.length > shown.length;
    xml += `<ObjectParts>${el('PartsCount', a.parts.length)}${el('PartNumberMarker', partNumberMarker)}`;
    xml += `${el('NextPartNumberMarker', shown.at(-1)?.n ?? partNumberMarker)}${el('MaxParts', maxParts)}${el('IsTruncated', truncated)}`;
    for (const p of shown) {
      xml += `<Part>${el('PartNumber', p.n)}${el('Size', p.size)}`;
      if (p.checksum && a.checksum) xml += el(`Checksum${a.checksum.algorithm}`, p.checksum);
      xml += '</Part>';
    }
    xml += '</ObjectParts>';
  }
  if (want.has('StorageClass')) xml += el('StorageClass', a.storageClass);
  if (want.has('ObjectSize')) xml += el('ObjectSize', objectSize(version));
  return doc('GetObjectAttributesResponse', xml);
}

export async function handleGetObjectAttributes(ctx: S3Context, params: GetObjectAttributesParams): Promise<void> {
  const version = readableVersion(ctx, bucketOf(ctx), params.versionId);
  if (version.damaged) throw objectDamaged(version.key);
  // an SSE-C object's attributes need its key, as its body does
  await dataKeyForRead(ctx, version);
  sendXml(ctx, renderGetObjectAttributesResponse(version, params.attributes, params.partNumberMarker, params.maxParts), [
    ['Last-Modified', httpDate(version.lastModified)],
    ...versionHeader(version),
  ]);
}
