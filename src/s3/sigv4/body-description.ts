// Which body format a request carries and how long its payload is (s3.md §2.7, §2.8).

import { S3Error } from '../errors/errors.js';
import type { RequestHead } from '../../http/request-head.js';
import {
  AWS_CHUNKED_ENCODING,
  H_AMZ_CONTENT_SHA256,
  H_AMZ_DECODED_CONTENT_LENGTH,
  H_AMZ_TRAILER,
  H_CONTENT_ENCODING,
  H_CONTENT_LENGTH,
  MSG_AWS_CHUNKED_NOT_STREAMING,
  MSG_STREAMING_ANONYMOUS,
} from './constants.js';
import { classifyContentSha256, isStreaming } from './payload-mode.js';
import type { AuthResult, BodyDescription, PayloadMode } from './types.js';

function parseLength(value: string): number {
  if (value.length === 0 || value.length > 16) return NaN;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return NaN;
  }
  return Number(value);
}

/** Payload mode of an anonymous request: only unsigned forms can be honoured. */
function anonymousPayload(head: RequestHead): PayloadMode {
  const value = head.headers[H_AMZ_CONTENT_SHA256];
  if (value === undefined) return { kind: 'unsigned' };
  const mode = classifyContentSha256(value);
  if (mode.kind === 'streaming-signed') throw new S3Error('InvalidRequest', {}, { message: MSG_STREAMING_ANONYMOUS });
  return mode;
}

/**
 * `Content-Encoding` without the `aws-chunked` token, or undefined when nothing remains
 * (the stored value, s3.md §2.7); a list without that token is stored as it came.
 */
export function storedContentEncoding(contentEncoding: string | undefined): string | undefined {
  if (contentEncoding === undefined) return undefined;
  if (!hasAwsChunkedToken(contentEncoding)) return contentEncoding.trim() === '' ? undefined : contentEncoding;
  const kept: string[] = [];
  for (const token of contentEncoding.split(',')) {
    const t = token.trim();
    if (t.length > 0 && t.toLowerCase() !== AWS_CHUNKED_ENCODING) kept.push(t);
  }
  return kept.length === 0 ? undefined : kept.join(',');
}

function hasAwsChunkedToken(contentEncoding: string | undefined): boolean {
  if (contentEncoding === undefined) return false;
  for (const token of contentEncoding.split(',')) if (token.trim().toLowerCase() === AWS_CHUNKED_ENCODING) return true;
  return false;
}

/**
 * For requests that carry a body (PutObject, UploadPart, POST bodies). Throws 411
 * MissingContentLength when the payload length is unknown, InvalidRequest for
 * `Content-Encoding: aws-chunked` without a `STREAMING-` payload hash (s3.md §2.7).
 * Whether the decoded length is within the operation's limit is the caller's check.
 */
export function describeBody(head: RequestHead, auth: AuthResult): BodyDescription {
  const mode = auth.kind === 'signed' ? auth.payload : anonymousPayload(head);
  const contentEncoding = head.headers[H_CONTENT_ENCODING];
  const stored = storedContentEncoding(contentEncoding);

  if (!isStreaming(mode)) {
    if (hasAwsChunkedToken(contentEncoding)) {
      throw new S3Error('InvalidRequest', {}, { message: MSG_AWS_CHUNKED_NOT_STREAMING });
    }
    const cl = head.headers[H_CONTENT_LENGTH];
    if (cl === undefined) throw new S3Error('MissingContentLength');
    const length = parseLength(cl);
    if (Number.isNaN(length)) throw new S3Error('MissingContentLength');
    return { encoding: 'raw', decodedLength: length, storedContentEncoding: stored };
  }

  // aws-chunked: Content-Encoding normally lists aws-chunked, but its absence is accepted (s3.md §2.7).
  const decoded = head.headers[H_AMZ_DECODED_CONTENT_LENGTH];
  if (decoded === undefined) throw new S3Error('MissingContentLength');
  const decodedLength = parseLength(decoded);
  if (Number.isNaN(decodedLength)) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_AMZ_DECODED_CONTENT_LENGTH, ArgumentValue: decoded });
  }
  const hasTrailer = mode.kind === 'streaming-unsigned-trailer' || (mode.kind === 'streaming-signed' && mode.trailer);
  const trailerHeader = head.headers[H_AMZ_TRAILER];
  const declaredTrailer = hasTrailer && trailerHeader !== undefined ? trailerHeader.trim().toLowerCase() : undefined;
  return { encoding: 'aws-chunked', decodedLength, declaredTrailer, storedContentEncoding: stored };
}
