// Public types of SigV4 authentication (s3.md §2).

import type { SigningKeyCache } from './signing-key.js';

export interface AccessKeyRecord {
  secretKey: string;
  accountId?: string;
}

export interface AuthContext {
  /** configured `region` (s3.md §0.4), expected in the credential scope */
  region: string;
  /** `accept_any_region`: do not check the scope region (s3.md §2.2) */
  acceptAnyRegion: boolean;
  /** `clock_skew_s` in ms (s3.md §2.5); also the "not valid yet" margin of presigned URLs */
  clockSkewMs: number;
  /** server time, ms since the epoch */
  now: number;
  /** enabled access keys only; undefined → InvalidAccessKeyId */
  lookupKey(accessKeyId: string): AccessKeyRecord | undefined;
  /** SigV2 only: the bucket named by a virtual-hosted Host, part of the V2 CanonicalizedResource */
  virtualBucket?: string;
  /** optional signing-key cache (a process-wide default is used otherwise) */
  signingKeyCache?: SigningKeyCache;
}

/** How the request body is protected (s3.md §2.6). */
export type PayloadMode =
  | { kind: 'unsigned' }
  /** raw body whose SHA-256 must equal `expectedHex` (lower-case) — verified by the PUT pipeline */
  | { kind: 'sha256'; expectedHex: string }
  | { kind: 'streaming-signed'; trailer: boolean }
  | { kind: 'streaming-unsigned-trailer' };

export interface SignedAuth {
  kind: 'signed';
  /** s3:signatureversion: 'AWS' for Signature Version 2; absent means AWS4-HMAC-SHA256 */
  signatureVersion?: 'AWS';
  accessKeyId: string;
  accountId?: string;
  presigned: boolean;
  payload: PayloadMode;
  /** kSigning, for aws-chunked chunk and trailer signatures */
  signingKey: Buffer;
  /** `<YYYYMMDD>/<region>/s3/aws4_request` */
  scope: string;
  /** request time in basic ISO form, as used in the string to sign */
  requestTime: string;
  /** the verified request signature (lower-case hex): the first chunk's "previous signature" */
  seedSignature: string;
  /**
   * Presigned only: `x-amz-*` query parameters (lower-cased names, decoded values) to be treated as
   * request headers; a signed real header of the same name wins and is not repeated here (s3.md §2.9).
   */
  hoistedHeaders: Record<string, string>;
}

export type AuthResult = { kind: 'anonymous' } | SignedAuth;

/** What the body reader needs to know (s3.md §2.7, §2.8). */
export interface BodyDescription {
  encoding: 'raw' | 'aws-chunked';
  /** payload bytes: `Content-Length` (raw) or `x-amz-decoded-content-length` (aws-chunked) */
  decodedLength: number;
  /** aws-chunked trailer modes: the lower-cased trailer name from `x-amz-trailer` */
  declaredTrailer?: string;
  /** Content-Encoding to store: the request's list without the `aws-chunked` token (s3.md §2.7) */
  storedContentEncoding?: string;
}
