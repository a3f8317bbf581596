// GetObjectAttributes (`GET /<key>?attributes`, AWS GetObjectAttributes): the attributes named by
// `x-amz-object-attributes` — ETag, Checksum, ObjectParts, StorageClass, ObjectSize — in AWS's order
// (the parts' count is the element PartsCount, as the SDK's model names it for TotalPartsCount).

import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { objectDamaged } from '../store-errors.js';
import type { S3Object } from '../object-attrs.js';
import { sendXml } from '../respond.js';
import { dataKeyForRead, objectSize } from '../sse/sse.js';
import { doc, el, httpDate } from '../xml.js';
import { readableVersion, versionHeader } from './object-version.js';

const ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
type Attribute = (typeof ATTRIBUTES)[number];
const MAX_PARTS = 1000;

function requestedAttributes(ctx: S3Context): Set<Attribute> {
  const raw = ctx.headers['x-amz-object-attributes'];
  if (raw === undefined || raw.trim() === '') {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-object-attributes' }, {
      message: 'Missing required header for this request: x-amz-object-attributes',
    });
  }
  const out = new Set<Attribute>();
  for (const name of raw.split(',').map((s) => s.trim())) {
    const a = ATTRIBUTES.find((x) => x === name);
    if (!a) throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-object-attributes', ArgumentValue: name }, { message: 'Invalid attribute name specified.' });
    out.add(a);
  }
  return out;
}

function intHeader(ctx: S3Context, name: string, fallback: number): number {
  const raw = ctx.headers[name];
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) throw new S3Error('InvalidArgument', { ArgumentName: name, ArgumentValue: raw });
  return Number(raw.trim());
}

export function renderGetObjectAttributesResponse(
  version: S3Object,
  want: ReadonlySet<Attribute>,
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

export async function handleGetObjectAttributes(ctx: S3Context): Promise<void> {
  const want = requestedAttributes(ctx);
  const maxParts = Math.min(intHeader(ctx, 'x-amz-max-parts', MAX_PARTS), MAX_PARTS);
  const marker = intHeader(ctx, 'x-amz-part-number-marker', 0);
  const version = readableVersion(ctx, bucketOf(ctx));
  if (version.damaged) throw objectDamaged(version.key);
  // an SSE-C object's attributes need its key, as its body does
  await dataKeyForRead(ctx, version);
  sendXml(ctx, renderGetObjectAttributesResponse(version, want, marker, maxParts), [
    ['Last-Modified', httpDate(version.lastModified)],
    ...versionHeader(version),
  ]);
}
