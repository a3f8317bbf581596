// The `uploadId` of the requests on one multipart upload (s3.md §3.0.8). It is never refused here:
// a malformed id names no upload, so the handler's lookup answers NoSuchUpload for it, after the
// access check S3 makes first.

import type { RequestInput } from './input.js';
import { writeCondition } from './object-writes.js';
import type { WriteCondition } from '../../store/types.js';

/** AbortMultipartUpload, ListParts; '' when the query has none. */
export interface UploadIdParams {
  uploadId: string;
}

export interface CompleteMultipartUploadParams extends UploadIdParams {
  condition?: WriteCondition;
}

export function parseUploadId({ query }: RequestInput): UploadIdParams {
  return { uploadId: query.get('uploadId') ?? '' };
}

/** The write condition (If-Match / If-None-Match) is refused first, as the handler did. */
export function parseCompleteMultipartUpload(input: RequestInput): CompleteMultipartUploadParams {
  const condition = writeCondition(input.headers);
  return { condition, ...parseUploadId(input) };
}
