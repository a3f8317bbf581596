// SigV4 query-string (presigned URL) authentication (s3.md §2.9).

import { S3Error, type ErrorExtras } from '../errors/errors.js';
import type { RequestHead } from '../../http/request-head.js';
import {
  H_AMZ_CONTENT_SHA256,
  H_AMZ_PREFIX,
  MAX_PRESIGN_EXPIRES_S,
  MSG_CREDENTIAL_DATE,
  MSG_EXPIRED,
  MSG_EXPIRES_NEGATIVE,
  MSG_EXPIRES_NOT_A_NUMBER,
  MSG_EXPIRES_TOO_LONG,
  MSG_NOT_YET_VALID,
  MSG_QUERY_ALGORITHM,
  MSG_QUERY_CREDENTIAL_PREFIX,
  MSG_QUERY_DATE,
  MSG_QUERY_PARAMS_MISSING,
  MSG_QUERY_SIGNED_HEADERS_EMPTY,
  MSG_UNSUPPORTED_MECHANISM,
  PRESIGN_AUTH_PARAMS_LOWER,
  Q_ALGORITHM,
  Q_CREDENTIAL,
  Q_DATE,
  Q_EXPIRES,
  Q_SECURITY_TOKEN,
  Q_SIGNATURE,
  Q_SIGNED_HEADERS,
  SIGV4A_ALGORITHM,
  SIGV4_ALGORITHM,
  UNSIGNED_PAYLOAD,
} from './constants.js';
import { canonicalQueryString, findQueryItem, type QueryItem } from './canonical-request.js';
import { parseCredentialScope } from './credential-scope.js';
import { lookupAccessKey, signingKeyFor } from './keys.js';
import { classifyContentSha256 } from './payload-mode.js';
import { parseAmzDate, toIsoSeconds } from './request-time.js';
import { checkSignedHeaderRequirements } from './signed-headers.js';
import { decodeQueryComponent } from './uri-encode.js';
import type { AuthContext, PayloadMode, SignedAuth } from './types.js';
import { verifySignature } from './verify-signature.js';

function queryError(message: string, extras: ErrorExtras = {}, headers?: Record<string, string>): S3Error {
  return new S3Error('AuthorizationQueryParametersError', extras, { message, headers });
}

function param(query: readonly QueryItem[], name: string): string | undefined {
  const item = findQueryItem(query, name);
  return item === undefined ? undefined : decodeQueryComponent(item.rawValue);
}

/**
 * Seconds of X-Amz-Expires. AWS documents the range (1 to 604800 s, sigv4-query-string-auth) but
 * not the answer outside it: a value that is not an integer cannot be parsed (400
 * AuthorizationQueryParametersError, MinIO's ErrMalformedExpires); one out of range is refused as
 * Ceph RGW refuses it (rgw_rest_s3.cc: exp < 1 || exp > 604800 → EPERM, 403 AccessDenied, which
 * the s3-tests x_amz_expires_out_* and put_authenticated_expired cases expect), in AWS's words.
 */
function parseExpires(value: string): number {
  const m = /^(-?)(\d+)$/.exec(value);
  if (!m) throw queryError(MSG_EXPIRES_NOT_A_NUMBER);
  const seconds = m[2]!.length > 9 ? Infinity : Number(m[2]);
  const denied = (message: string) => new S3Error('AccessDenied', { 'X-Amz-Expires': value }, { message });
  if (m[1] === '-' && seconds > 0) throw denied(MSG_EXPIRES_NEGATIVE);
  if (seconds === 0) throw denied(MSG_EXPIRED);
  if (seconds > MAX_PRESIGN_EXPIRES_S) throw denied(MSG_EXPIRES_TOO_LONG);
  return seconds;
}

export function authenticatePresigned(head: RequestHead, query: readonly QueryItem[], ctx: AuthContext): SignedAuth {
  const algorithm = param(query, Q_ALGORITHM);
  if (algorithm === SIGV4A_ALGORITHM) throw new S3Error('InvalidRequest', {}, { message: MSG_UNSUPPORTED_MECHANISM });
  if (algorithm !== SIGV4_ALGORITHM) throw queryError(MSG_QUERY_ALGORITHM);
  // STS session credentials are not supported (s3.md §2.9).
  if (findQueryItem(query, Q_SECURITY_TOKEN) !== undefined) throw new S3Error('InvalidToken');

  const credential = param(query, Q_CREDENTIAL);
  const date = param(query, Q_DATE);
  const expires = param(query, Q_EXPIRES);
  const signedHeaders = param(query, Q_SIGNED_HEADERS);
  const signature = param(query, Q_SIGNATURE);
  if (
    credential === undefined ||
    date === undefined ||
    expires === undefined ||
    signedHeaders === undefined ||
    signature === undefined
  ) {
    throw queryError(MSG_QUERY_PARAMS_MISSING);
  }

  const requestMs = parseAmzDate(date);
  if (Number.isNaN(requestMs)) throw queryError(MSG_QUERY_DATE);
  const expiresS = parseExpires(expires);
  const cred = parseCredentialScope(credential, ctx, (detail, extras, headers) =>
    queryError(MSG_QUERY_CREDENTIAL_PREFIX + detail, extras, headers),
  );
  if (cred.date !== date.slice(0, 8)) throw queryError(MSG_QUERY_CREDENTIAL_PREFIX + MSG_CREDENTIAL_DATE);
  const key = lookupAccessKey(ctx, cred.accessKeyId);

  // Valid from X-Amz-Date minus the allowed clock skew until X-Amz-Date + X-Amz-Expires (s3.md §2.5).
  if (ctx.now < requestMs - ctx.clockSkewMs) {
    throw new S3Error(
      'AccessDenied',
      { 'X-Amz-Date': date, ServerTime: toIsoSeconds(ctx.now) },
      { message: MSG_NOT_YET_VALID },
    );
  }
  if (ctx.now > requestMs + expiresS * 1000) {
    throw new S3Error(
      'AccessDenied',
      { 'X-Amz-Expires': expires, Expires: toIsoSeconds(requestMs + expiresS * 1000), ServerTime: toIsoSeconds(ctx.now) },
      { message: MSG_EXPIRED },
    );
  }

  if (signedHeaders.length === 0) throw queryError(MSG_QUERY_SIGNED_HEADERS_EMPTY);
  const signedNames = signedHeaders.split(';');
  checkSignedHeaderRequirements(head.headerList, signedNames, true);

  // HashedPayload: the x-amz-content-sha256 header only when present and signed (s3.md §2.9).
  const contentSha256 = head.headers[H_AMZ_CONTENT_SHA256];
  const hashedPayload =
    contentSha256 !== undefined && signedNames.includes(H_AMZ_CONTENT_SHA256) ? contentSha256 : UNSIGNED_PAYLOAD;
  const payload: PayloadMode =
    contentSha256 === undefined ? { kind: 'unsigned' } : classifyContentSha256(contentSha256);

  const signingKey = signingKeyFor(ctx, cred, key.secretKey);
  const seedSignature = verifySignature({
    accessKeyId: cred.accessKeyId,
    method: head.method,
    rawPath: head.rawPath,
    canonicalQuery: canonicalQueryString(query, Q_SIGNATURE),
    headerList: head.headerList,
    signedHeaders,
    signedNames,
    hashedPayload,
    requestTime: date,
    scope: cred.scope,
    signingKey,
    providedSignature: signature,
  });

  return {
    kind: 'signed',
    accessKeyId: cred.accessKeyId,
    accountId: key.accountId,
    presigned: true,
    payload,
    signingKey,
    scope: cred.scope,
    requestTime: date,
    seedSignature,
    hoistedHeaders: hoistHeaders(query, head, signedNames),
  };
}

/** `x-amz-*` query parameters that act as request headers (s3.md §2.9); a signed real header wins. */
function hoistHeaders(
  query: readonly QueryItem[],
  head: RequestHead,
  signedNames: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of query) {
    const name = item.name.toLowerCase();
    if (!name.startsWith(H_AMZ_PREFIX) || PRESIGN_AUTH_PARAMS_LOWER.has(name)) continue;
    if (head.headers[name] !== undefined && signedNames.includes(name)) continue;
    const value = decodeQueryComponent(item.rawValue);
    const prev = out[name];
    out[name] = prev === undefined ? value : `${prev},${value}`;
  }
  return out;
}
