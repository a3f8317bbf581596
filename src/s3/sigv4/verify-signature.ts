// Canonical request → string to sign → signature, compared in constant time (s3.md §2.3).

import { S3Error } from '../errors/errors.js';
import { SIGV4_ALGORITHM } from './constants.js';
import { canonicalHeaders, canonicalUri, joinCanonicalRequest } from './canonical-request.js';
import { hmacHex, sha256Hex, signaturesEqual } from './signing-key.js';

export interface SignatureCheck {
  accessKeyId: string;
  method: string;
  rawPath: string;
  /** already built: differs between header auth and presigned (X-Amz-Signature dropped) */
  canonicalQuery: string;
  headerList: ReadonlyArray<readonly [string, string]>;
  /** the SignedHeaders text, verbatim */
  signedHeaders: string;
  signedNames: readonly string[];
  hashedPayload: string;
  /** basic ISO */
  requestTime: string;
  scope: string;
  signingKey: Buffer;
  providedSignature: string;
}

/** The string to sign but its last line, the canonical request's hash. */
function stringToSignHead(requestTime: string, scope: string): string {
  return `${SIGV4_ALGORITHM}\n${requestTime}\n${scope}\n`;
}

export function stringToSign(requestTime: string, scope: string, canonicalRequest: string): string {
  return stringToSignHead(requestTime, scope) + sha256Hex(canonicalRequest);
}

/** Returns the verified signature (lower-case hex); throws SignatureDoesNotMatch. */
export function verifySignature(c: SignatureCheck): string {
  const headers = canonicalHeaders(c.headerList, c.signedNames);
  if ('missing' in headers) {
    // A signed header the request lacks can never verify (s3.md §2.3).
    throw new S3Error('SignatureDoesNotMatch', {
      AWSAccessKeyId: c.accessKeyId,
      SignatureProvided: c.providedSignature,
    });
  }
  const canonicalRequest = joinCanonicalRequest(
    c.method,
    canonicalUri(c.rawPath),
    c.canonicalQuery,
    headers.text,
    c.signedHeaders,
    c.hashedPayload,
  );
  // the hash and the HMAC in one native call; the string to sign is spelled out only for the error
  const expected = hmacHex(c.signingKey, stringToSignHead(c.requestTime, c.scope), canonicalRequest);
  const provided = c.providedSignature.toLowerCase();
  if (!signaturesEqual(expected, provided)) {
    throw new S3Error('SignatureDoesNotMatch', {
      AWSAccessKeyId: c.accessKeyId,
      StringToSign: stringToSign(c.requestTime, c.scope, canonicalRequest),
      SignatureProvided: c.providedSignature,
      CanonicalRequest: canonicalRequest,
    });
  }
  return expected;
}
