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
  /** object tags in the order they were given (s3.md §3.19) */
  tags?: Array<[string, string]>;
  /** a completed multipart object's parts in order, so that `?partNumber=N` is a byte range (s3.md §3.0.6) */
  parts?: ObjectPart[];
  /** uploads only: the checksum CreateMultipartUpload asked for (s3.md §3.20) */
  uploadChecksum?: { algorithm: ChecksumAlgorithm; type: StoredChecksum['type'] };
}

export interface ObjectPart {
  size: number;
  /** base64 of the part's checksum in the object's algorithm, when it has one */
  checksum?: string;
}

/** What a part keeps: its checksum, for the completed object's composite checksum. */
export interface S3PartAttrs {
  checksum?: StoredChecksum;
}

export type S3Store = Store<S3ObjectAttrs, S3PartAttrs>;
export type S3Object = ObjectVersion<S3ObjectAttrs>;
