// What the S3 face stores with each object version and upload besides what the engine keeps
// (size, etag, time, version id, extents): the engine holds it as opaque `attrs`.

import type { BucketRecord, CannedAcl, ObjectVersion, Store } from '../store/types.js';
import type { WebsiteConfiguration } from './website.js';
import type { NotificationRule } from './notification.js';
import type { WalrusLocation } from './walrus-objects.js';

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
  /** an explicit ACL (AccessControlPolicy or x-amz-grant-*), replacing the canned `acl` */
  grants?: StoredAcl;
  /** object-lock retention (s3.md §3.0.9): judged against the server's clock */
  retention?: Retention;
  /** object-lock legal hold: no permanent delete while on */
  legalHold?: boolean;
  /** object tags in the order they were given (s3.md §3.19) */
  tags?: Array<[string, string]>;
  /** a completed multipart object's parts in order, so that `?partNumber=N` is a byte range (s3.md §3.0.6) */
  parts?: ObjectPart[];
  /** uploads only: the checksum CreateMultipartUpload asked for (s3.md §3.20) */
  uploadChecksum?: { algorithm: ChecksumAlgorithm; type: StoredChecksum['type'] };
  /** encryption at rest (SSE-S3, SSE-C); absent on plaintext objects */
  encryption?: ObjectEncryption;
  /** uploads only: how CreateMultipartUpload asked the parts to be sealed */
  uploadEncryption?: UploadEncryption;
  /** uploads only: who created it (principalId), who may abort it and list its parts besides the owner */
  initiator?: string;
  /**
   * canonical id of the object's (or upload's) owner when it is not the bucket owner: set at write
   * time from the bucket's ownership controls (authz/authorize.ts ownerOfNewObject); absent on
   * every object written before Tusk kept it, which the bucket owner owns
   */
  owner?: string;
  /** storage class WALRUS: the blobs holding the bytes (the engine's body is empty); absent otherwise */
  walrus?: WalrusLocation;
}

export type RetentionMode = 'GOVERNANCE' | 'COMPLIANCE';

export interface Retention {
  mode: RetentionMode;
  /** retain-until, ms since the epoch */
  until: number;
}

export interface ObjectPart {
  size: number;
  /** base64 of the part's checksum in the object's algorithm, when it has one */
  checksum?: string;
}

/** What a part keeps: its checksum, for the completed object's composite checksum. */
export interface S3PartAttrs {
  checksum?: StoredChecksum;
  /** a part of an encrypted upload: its own sealed segment */
  sealed?: SealedSegment;
}

/** A bucket as the S3 face stores it: the engine's record and its access control. */
export interface S3Bucket extends BucketRecord {
  /** absent on buckets that never set any of it */
  access?: BucketAccess;
  /** versioning protection and expiry (MFA delete, default retention, lifecycle); absent until set */
  versionControl?: BucketVersionControl;
  /** default encryption of new objects (PutBucketEncryption) */
  encryption?: BucketEncryption;
  /** the bucket's own tags (PutBucketTagging) */
  tags?: Array<[string, string]>;
  /** static website configuration (PutBucketWebsite) */
  website?: WebsiteConfiguration;
  /** server access logging (PutBucketLogging: logging/config.ts); absent when off */
  logging?: BucketLogging;
  /** PutBucketNotificationConfiguration's rules (notification.ts); absent when none */
  notification?: NotificationRule[];
}

/** A log delivery's grant on the log objects (PutBucketLogging TargetGrants). */
export interface TargetGrant {
  grantee: { type: 'CanonicalUser'; id: string } | { type: 'Group'; uri: string } | { type: 'AmazonCustomerByEmail'; email: string };
  permission: 'FULL_CONTROL' | 'READ' | 'WRITE';
}

/** Server access logging of a bucket (PutBucketLogging; parsed and checked in logging/config.ts). */
export interface BucketLogging {
  targetBucket: string;
  targetPrefix: string;
  /** kept and given back; the log objects carry the target bucket's own access (Known limits) */
  targetGrants?: TargetGrant[];
  /** absent: SimplePrefix */
  partitioned?: { dateSource: 'EventTime' | 'DeliveryTime' };
}

export interface BucketEncryption {
  algorithm: 'AES256' | 'aws:kms';
  bucketKeyEnabled: boolean;
  /** aws:kms: the KMSMasterKeyID as given (id, ARN or alias); absent: the account's default key */
  kmsMasterKeyId?: string;
}
/**
 * Encryption at rest as the S3 face recorded it (src/s3/sse): the engine stores the sealed bytes
 * as any other body; `size` and the extents count sealed bytes, `plaintextSize` the object's.
 */
/** An upload's data key and how its parts are sealed (src/s3/sse/sse.ts). */
export interface UploadEncryption {
  mode: 'SSE-S3' | 'SSE-C' | 'SSE-KMS';
  blockSize: number;
  /**
   * base64 of the data key wrapped by the master key (SSE-S3) or the customer's key (SSE-C), or
   * (SSE-KMS) the key service's ciphertext of it
   */
  wrappedKey: string;
  /** SSE-C: base64 MD5 of the customer's key, checked on every read */
  customerKeyMD5?: string;
  /** SSE-KMS: the ARN of the key the data key was made under */
  kmsKeyArn?: string;
  /** SSE-KMS: base64 of the encryption context's JSON, bound to the data key */
  kmsContext?: string;
  /** SSE-KMS: x-amz-server-side-encryption-bucket-key-enabled was asked (echoed; one data key per object all the same) */
  bucketKeyEnabled?: boolean;
}

/** Bytes sealed as one run of blocks: block numbers from 0, AAD = its plaintext size. */
export interface SealedSegment {
  plaintextSize: number;
  /** base64 of the segment's nonce prefix */
  noncePrefix: string;
}

/**
 * An object stored sealed: one segment (`noncePrefix`, `plaintextSize`), or, for a completed
 * multipart upload, its parts' segments one after the other (`segments`).
 */
export interface ObjectEncryption extends UploadEncryption, SealedSegment {
  segments?: SealedSegment[];
}


/** The MFA delete switch, default object-lock retention and lifecycle rules of a bucket. */
export interface BucketVersionControl {
  /** 'Enabled' / 'Disabled' once PutBucketVersioning set it (s3.md §2.14) */
  mfaDelete?: 'Enabled' | 'Disabled';
  /** default retention for new versions of an object-lock bucket */
  lockRule?: { mode: 'GOVERNANCE' | 'COMPLIANCE'; days?: number; years?: number };
  /** lifecycle rules (src/s3/lifecycle/rules.ts), validated by the face */
  lifecycle?: unknown[];
}

// Access control (s3.md §2.11–2.13, §3.10–3.11)


/** An ACL grantee, already resolved (email grantees become CanonicalUser at PUT time). */
export type AclGrantee =
  | { type: 'CanonicalUser'; id: string }
  | { type: 'Group'; uri: string };

export type AclPermission = 'FULL_CONTROL' | 'READ' | 'WRITE' | 'READ_ACP' | 'WRITE_ACP';

export interface AclGrant {
  grantee: AclGrantee;
  permission: AclPermission;
}

/** An explicit ACL (AccessControlPolicy or x-amz-grant-* headers); replaces the canned `acl` when present. */
export interface StoredAcl {
  /** canonical id of the resource owner */
  owner: string;
  grants: AclGrant[];
}

export interface CorsRuleRecord {
  id?: string;
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

export interface PublicAccessBlockRecord {
  blockPublicAcls: boolean;
  ignorePublicAcls: boolean;
  blockPublicPolicy: boolean;
  restrictPublicBuckets: boolean;
}

export interface ObjectVersionRef {
  versionId: string;
  etag: string;
}

export interface ObjectAccessUpdate {
  acl: CannedAcl;
  grants?: StoredAcl;
}

export interface BucketAccess {
  /** explicit bucket ACL; the canned `acl` applies when absent */
  grants?: StoredAcl;
  /** bucket policy document as the client sent it (JSON text) */
  policy?: string;
  cors?: CorsRuleRecord[];
  publicAccessBlock?: PublicAccessBlockRecord;
}

export type S3Store = Store<S3ObjectAttrs, S3PartAttrs, S3Bucket>;
export type S3Object = ObjectVersion<S3ObjectAttrs>;
