// The parameters of requests on an object's sub-resources: tagging and ACL name a version
// (s3.md §3.0.7); GetObjectAttributes (AWS GetObjectAttributes) also names the attributes wanted
// and a page of parts, checked before the version id as the handler did. Whether that version
// exists stays in the handlers.

import { S3Error } from '../errors/errors.js';
import type { RequestInput } from './input.js';
import { requestedVersionId } from './version-id.js';

/** GetObjectTagging, DeleteObjectTagging, GetObjectAcl, PutObjectAcl. */
export interface VersionedParams {
  versionId?: string;
}

export function parseVersioned(input: RequestInput): VersionedParams {
  return { versionId: requestedVersionId(input) };
}

export const OBJECT_ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
export type ObjectAttribute = (typeof OBJECT_ATTRIBUTES)[number];
const MAX_PARTS = 1000;

export interface GetObjectAttributesParams extends VersionedParams {
  attributes: ReadonlySet<ObjectAttribute>;
  /** at most 1000 (x-amz-max-parts above it is capped, not refused) */
  maxParts: number;
  partNumberMarker: number;
}

function requestedAttributes(raw: string | undefined): Set<ObjectAttribute> {
  if (raw === undefined || raw.trim() === '') {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-object-attributes' }, {
      message: 'Missing required header for this request: x-amz-object-attributes',
    });
  }
  const out = new Set<ObjectAttribute>();
  for (const name of raw.split(',').map((s) => s.trim())) {
    const a = OBJECT_ATTRIBUTES.find((x) => x === name);
    if (!a) throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-object-attributes', ArgumentValue: name }, { message: 'Invalid attribute name specified.' });
    out.add(a);
  }
  return out;
}

function intHeader(headers: RequestInput['headers'], name: string, fallback: number): number {
  const raw = headers[name];
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) throw new S3Error('InvalidArgument', { ArgumentName: name, ArgumentValue: raw });
  return Number(raw.trim());
}

export function parseGetObjectAttributes(input: RequestInput): GetObjectAttributesParams {
  const attributes = requestedAttributes(input.headers['x-amz-object-attributes']);
  const maxParts = Math.min(intHeader(input.headers, 'x-amz-max-parts', MAX_PARTS), MAX_PARTS);
  const partNumberMarker = intHeader(input.headers, 'x-amz-part-number-marker', 0);
  return { attributes, maxParts, partNumberMarker, versionId: requestedVersionId(input) };
}
