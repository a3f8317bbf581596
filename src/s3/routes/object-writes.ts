// CopyObject's, UploadPart's and UploadPartCopy's parameters (s3.md §3.18, §3.21–3.22), checked in
// S3's order. The upload (uploadId) and the copy source are looked up by the handlers: S3 answers
// NoSuchUpload, NoSuchBucket or NoSuchKey after these checks.

import { CHECKSUM_ALGORITHMS } from '../checksums.js';
import { normalizeEtag } from '../conditionals.js';
import { S3Error } from '../errors/errors.js';
import type { ChecksumAlgorithm } from '../object-attrs.js';
import { parsePartNumber } from '../part-number.js';
import type { WriteCondition } from '../../store/types.js';
import type { RequestInput } from './input.js';

type Headers = Readonly<Record<string, string>>;
export type Directive = 'COPY' | 'REPLACE';

export interface CopyObjectParams {
  /** x-amz-metadata-directive */
  metadata: Directive;
  /** x-amz-tagging-directive */
  tagging: Directive;
  /** x-amz-checksum-algorithm */
  checksumAlgorithm?: ChecksumAlgorithm;
  condition?: WriteCondition;
}

export interface UploadPartParams {
  partNumber: number;
  /** never refused here: see uploads.ts */
  uploadId: string;
}

/** A copy (CopyObject, UploadPartCopy) takes its bytes from its source: a request body is refused, as S3 does. */
export function refuseCopyBody(headers: Headers): void {
  const length = Number(headers['x-amz-decoded-content-length'] ?? headers['content-length'] ?? '0');
  if (length > 0) {
    throw new S3Error('InvalidRequest', {}, { message: 'The request included a body. Requests of this type must not include a non-empty body.' });
  }
}

export function parseUploadPart({ query }: RequestInput): UploadPartParams {
  return { partNumber: parsePartNumber(query.get('partNumber') ?? ''), uploadId: query.get('uploadId') ?? '' };
}

/** The body is refused before a bad part number. */
export function parseUploadPartCopy(input: RequestInput): UploadPartParams {
  refuseCopyBody(input.headers);
  return parseUploadPart(input);
}

/** If-None-Match: * and If-Match of a write, checked by the engine in its commit (style.md §7). */
export function writeCondition(headers: Headers): WriteCondition | undefined {
  const inm = headers['if-none-match'];
  const im = headers['if-match'];
  if (inm === undefined && im === undefined) return undefined;
  const cond: WriteCondition = {};
  if (inm !== undefined) {
    if (inm.trim() !== '*') throw new S3Error('NotImplemented', { Header: 'If-None-Match' });
    cond.ifNoneMatchStar = true;
  }
  if (im !== undefined) cond.ifMatch = normalizeEtag(im);
  return cond;
}

function directiveOf(headers: Headers, header: string, what: string): Directive {
  const v = headers[header];
  if (v === undefined) return 'COPY';
  const d = v.trim().toUpperCase();
  if (d !== 'COPY' && d !== 'REPLACE') {
    throw new S3Error('InvalidArgument', { ArgumentName: header, ArgumentValue: v }, { message: `Unknown ${what} directive.` });
  }
  return d;
}

function checksumAlgorithmOf(headers: Headers): ChecksumAlgorithm | undefined {
  const v = headers['x-amz-checksum-algorithm'];
  if (v === undefined) return undefined;
  const alg = CHECKSUM_ALGORITHMS.find((a) => a === v.trim().toUpperCase());
  if (!alg) throw new S3Error('InvalidRequest', {}, { message: 'Value for x-amz-checksum-algorithm header is invalid.' });
  return alg;
}

/** The body first, then the metadata and tagging directives, the checksum algorithm, the write condition. */
export function parseCopyObject({ headers }: RequestInput): CopyObjectParams {
  refuseCopyBody(headers);
  const metadata = directiveOf(headers, 'x-amz-metadata-directive', 'metadata');
  const tagging = directiveOf(headers, 'x-amz-tagging-directive', 'tagging');
  const checksumAlgorithm = checksumAlgorithmOf(headers);
  return { metadata, tagging, checksumAlgorithm, condition: writeCondition(headers) };
}
