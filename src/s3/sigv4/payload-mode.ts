// x-amz-content-sha256 → payload mode (s3.md §2.6), and the payload-hash mismatch error.

import { S3Error } from '../errors/errors.js';
import {
  H_AMZ_CONTENT_SHA256,
  MSG_INVALID_CONTENT_SHA256,
  MSG_UNSUPPORTED_MECHANISM,
  STREAMING_ECDSA_PAYLOAD,
  STREAMING_ECDSA_PAYLOAD_TRAILER,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  UNSIGNED_PAYLOAD,
} from './constants.js';
import { isHex } from './signing-key.js';
import type { PayloadMode } from './types.js';

const UNSIGNED: PayloadMode = Object.freeze({ kind: 'unsigned' });
const STREAMING_SIGNED: PayloadMode = Object.freeze({ kind: 'streaming-signed', trailer: false });
const STREAMING_SIGNED_TRAILER: PayloadMode = Object.freeze({ kind: 'streaming-signed', trailer: true });
const STREAMING_UNSIGNED_TRAILER: PayloadMode = Object.freeze({ kind: 'streaming-unsigned-trailer' });

/** Payload mode of a present `x-amz-content-sha256` value; throws InvalidRequest / InvalidArgument. */
export function classifyContentSha256(value: string): PayloadMode {
  if (value.length === 64 && isHex(value, 64)) return { kind: 'sha256', expectedHex: value.toLowerCase() };
  switch (value) {
    case UNSIGNED_PAYLOAD:
      return UNSIGNED;
    case STREAMING_SIGNED_PAYLOAD:
      return STREAMING_SIGNED;
    case STREAMING_SIGNED_PAYLOAD_TRAILER:
      return STREAMING_SIGNED_TRAILER;
    case STREAMING_UNSIGNED_PAYLOAD_TRAILER:
      return STREAMING_UNSIGNED_TRAILER;
    case STREAMING_ECDSA_PAYLOAD:
    case STREAMING_ECDSA_PAYLOAD_TRAILER:
      // SigV4a streaming is not supported (s3.md §2.6).
      throw new S3Error('InvalidRequest', {}, { message: MSG_UNSUPPORTED_MECHANISM });
    default:
      throw new S3Error(
        'InvalidArgument',
        { ArgumentName: H_AMZ_CONTENT_SHA256, ArgumentValue: value },
        { message: MSG_INVALID_CONTENT_SHA256 },
      );
  }
}

export function isStreaming(mode: PayloadMode): boolean {
  return mode.kind === 'streaming-signed' || mode.kind === 'streaming-unsigned-trailer';
}

/**
 * The error the PUT pipeline throws when the received body's SHA-256 differs from the signed
 * `x-amz-content-sha256` (s3.md §2.6); the body has been read, so the connection may stay open.
 */
export function contentSha256MismatchError(clientHex: string, computedHex: string): S3Error {
  return new S3Error('XAmzContentSHA256Mismatch', {
    ClientComputedContentSHA256: clientHex,
    S3ComputedContentSHA256: computedHex,
  });
}
