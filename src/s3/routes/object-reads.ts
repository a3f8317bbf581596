// GetObject's and HeadObject's parameters (s3.md §3.14–3.15), checked in S3's order: response-*
// names, version id, partNumber (and its clash with Range). Checks S3 makes only once the object
// is found (anonymous overrides, control characters in them) stay in handlers/get-object.ts, on
// these parameters.

import { S3Error } from '../errors/errors.js';
import { parsePartNumber } from '../part-number.js';
import type { RequestInput } from './input.js';
import { requestedVersionId } from './version-id.js';

/** The response-* query parameters S3 knows, and the header each one sets. */
export const RESPONSE_OVERRIDES: ReadonlyArray<readonly [string, string]> = [
  ['response-content-type', 'Content-Type'],
  ['response-content-language', 'Content-Language'],
  ['response-expires', 'Expires'],
  ['response-cache-control', 'Cache-Control'],
  ['response-content-disposition', 'Content-Disposition'],
  ['response-content-encoding', 'Content-Encoding'],
];

/** One response-* parameter given: its name, the header it sets, its value (unchecked yet). */
export interface ResponseOverride {
  param: string;
  header: string;
  value: string;
}

export interface GetObjectParams {
  versionId?: string;
  partNumber?: number;
  /** the Range header as sent, parsed against the object's size once it is found */
  range?: string;
  /** in RESPONSE_OVERRIDES' order */
  overrides: ResponseOverride[];
  /** x-amz-checksum-mode: ENABLED (any case) */
  checksumMode: boolean;
}

/** A `response-*` parameter S3 does not know is refused, not ignored. */
function checkResponseOverrideNames(q: Map<string, string>): void {
  for (const [param, value] of q) {
    if (param.startsWith('response-') && !RESPONSE_OVERRIDES.some(([p]) => p === param)) {
      throw new S3Error('InvalidArgument', { ArgumentName: param, ArgumentValue: value }, {
        message: `${param} is not in the set of overridable response headers. Please refer to the S3 API documentation: Complete list of overridable response headers.`,
      });
    }
  }
}

function requestedPartNumber({ query, headers }: RequestInput): number | undefined {
  const raw = query.get('partNumber');
  if (raw === undefined) return undefined;
  const n = parsePartNumber(raw);
  if (headers['range'] !== undefined) {
    throw new S3Error('InvalidRequest', {}, { message: 'Cannot specify both Range header and partNumber query parameter' });
  }
  return n;
}

export function parseGetObject(input: RequestInput): GetObjectParams {
  const { query: q, headers } = input;
  checkResponseOverrideNames(q);
  const versionId = requestedVersionId(input);
  const partNumber = requestedPartNumber(input);
  const overrides: ResponseOverride[] = [];
  for (const [param, header] of RESPONSE_OVERRIDES) {
    const value = q.get(param);
    if (value !== undefined) overrides.push({ param, header, value });
  }
  return {
    versionId,
    partNumber,
    range: headers['range'],
    overrides,
    checksumMode: (headers['x-amz-checksum-mode'] ?? '').toUpperCase() === 'ENABLED',
  };
}
