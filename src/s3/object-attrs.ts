// What the S3 face stores with each object version and upload besides what the engine keeps
// (size, etag, time, version id, extents): the engine holds it as opaque `attrs`.

import type { CannedAcl, ObjectVersion, Store } from '../store/types.js';

export type ChecksumAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';

export interface StoredChecksum {
  algorithm: ChecksumAlgorithm;
  /** base64 of the big-endian digest */
  value: string;
  type: 'FULL_OBJECT' | 'COMPOSITE';
}

export interface S3ObjectAttrs {
  contentType: string;
  storageClass: string;
  acl: CannedAcl;
  /** stored system headers, lower-case names: cache-control, content-disposition, content-encoding, content-language, expires, x-amz-website-redirect-location */
  headers: Record<string, string>;
  /** user metadata: lower-cased name without the `x-amz-meta-` prefix → value */
  meta: Record<string, string>;
  checksum?: StoredChecksum;
  /** object-lock retention (s3.md §3.0.9): judged against the server's clock */
  retention?: Retention;
  /** object-lock legal hold: no permanent delete while on */
  legalHold?: boolean;
}

export type RetentionMode = 'GOVERNANCE' | 'COMPLIANCE';

export interface Retention {
  mode: RetentionMode;
  /** retain-until, ms since the epoch */
  until: number;
}

/** What a part keeps: its checksum, for the completed object's composite checksum. */
export interface S3PartAttrs {
  checksum?: StoredChecksum;
}

export type S3Store = Store<S3ObjectAttrs, S3PartAttrs>;
export type S3Object = ObjectVersion<S3ObjectAttrs>;
