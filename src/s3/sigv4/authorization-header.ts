// Parsing of `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` (s3.md §2.2).

import { S3Error } from '../errors/errors.js';
import {
  AUTH_CREDENTIAL,
  AUTH_SIGNATURE,
  AUTH_SIGNED_HEADERS,
  MSG_HEADER_MALFORMED,
  MSG_MISSING_COMPONENTS,
} from './constants.js';

export interface AuthorizationComponents {
  credential: string;
  signedHeaders: string;
  signature: string;
}

export function headerMalformed(detail: string, extras = {}, headers?: Record<string, string>): S3Error {
  return new S3Error('AuthorizationHeaderMalformed', extras, { message: MSG_HEADER_MALFORMED + detail, headers });
}

/**
 * `params` is the text after the scheme. Components are separated by `,` with optional spaces, may
 * come in any order, and each must appear exactly once.
 */
export function parseAuthorizationParams(params: string): AuthorizationComponents {
  let credential: string | undefined;
  let signedHeaders: string | undefined;
  let signature: string | undefined;
  for (const rawPart of params.split(',')) {
    const part = rawPart.trim();
    const eq = part.indexOf('=');
    if (eq <= 0) throw headerMalformed(MSG_MISSING_COMPONENTS);
    const name = part.slice(0, eq);
    const value = part.slice(eq + 1).trim();
    if (name === AUTH_CREDENTIAL && credential === undefined) credential = value;
    else if (name === AUTH_SIGNED_HEADERS && signedHeaders === undefined) signedHeaders = value;
    else if (name === AUTH_SIGNATURE && signature === undefined) signature = value;
    else throw headerMalformed(MSG_MISSING_COMPONENTS);
  }
  if (credential === undefined || signedHeaders === undefined || signature === undefined) {
    throw headerMalformed(MSG_MISSING_COMPONENTS);
  }
  return { credential, signedHeaders, signature };
}
