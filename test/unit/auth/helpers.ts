// Shared fixtures for the SigV4 tests: request heads, contexts, a node:crypto SHA-256 for smithy.

import { createHash, createHmac } from 'node:crypto';
import { joinHeaders, type RequestHead } from '../../../src/http/request-head.js';
import { SigningKeyCache } from '../../../src/s3/sigv4/signing-key.js';
import type { AuthContext } from '../../../src/s3/sigv4/types.js';
import { S3Error } from '../../../src/s3/errors/errors.js';

// The AWS documentation example credentials (SigV4 S3 examples).
export const DOC_AK = 'AKIAIOSFODNN7EXAMPLE';
export const DOC_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
export const DOC_TIME_MS = Date.UTC(2013, 4, 24, 0, 0, 0);
export const EMPTY_SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export function head(
  method: string,
  target: string,
  headerList: Array<[string, string]>,
): RequestHead {
  const q = target.indexOf('?');
  const list = headerList.map(([n, v]) => [n.toLowerCase(), v] as const);
  return {
    method,
    rawPath: q === -1 ? target : target.slice(0, q),
    rawQuery: q === -1 ? '' : target.slice(q + 1),
    headerList: list,
    headers: joinHeaders(list),
  };
}

export function ctx(now = DOC_TIME_MS, extra: Partial<AuthContext> = {}): AuthContext {
  return {
    region: 'us-east-1',
    acceptAnyRegion: false,
    clockSkewMs: 900_000,
    now,
    lookupKey: (ak) =>
      ak === DOC_AK ? { secretKey: DOC_SECRET, accountId: '111122223333' } : ak === 'NASTY' ? { secretKey: 's+e/c r%t' } : undefined,
    signingKeyCache: new SigningKeyCache(8),
    ...extra,
  };
}

/** `@smithy/signature-v4` hash constructor backed by node:crypto. */
export class NodeSha256 {
  private h;
  constructor(secret?: string | Uint8Array) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : Buffer.from(secret));
  }
  update(data: string | Uint8Array): void {
    this.h.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
  reset(): void {
    throw new Error('not used');
  }
}

export function authHeader(ak: string, scope: string, signedHeaders: string, signature: string): string {
  return `AWS4-HMAC-SHA256 Credential=${ak}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`;
}

/** The S3Error `fn` throws; fails the test if it returns or throws anything else. */
export function s3ErrorOf(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (e) {
    if (e instanceof S3Error) return e;
    throw e;
  }
  throw new Error('expected an S3Error');
}
