// Every S3 operation the server knows, implemented or not (style.md §1). The router classifies
// a request into one of these; src/s3/dispatch.ts connects each to its handler.

export const IMPLEMENTED_OPERATIONS = [
  'ListBuckets',
  'CreateBucket',
  'DeleteBucket',
  'HeadBucket',
  'GetBucketLocation',
  'ListObjectsV2',
  'ListObjects',
  'PutObject',
  'GetObject',
  'HeadObject',
  'DeleteObject',
  'GetBucketSubresourceStub',
  'PutBucketSubresourceStub',
  'DeleteBucketSubresourceStub',
  'PutBucketEncryption',
  'GetBucketEncryption',
  'DeleteBucketEncryption',
] as const;

/** Known operations that later issues implement; they answer 501 NotImplemented naming the operation. */
export const PENDING_OPERATIONS = [
  'ListObjectVersions',
  'PutBucketVersioning',
  'GetBucketVersioning',
  'PutBucketAcl',
  'GetBucketAcl',
  'PutObjectAcl',
  'GetObjectAcl',
  'PutBucketCors',
  'GetBucketCors',
  'DeleteBucketCors',
  'CorsPreflight',
  'PutObjectLockConfiguration',
  'GetObjectLockConfiguration',
  'GetObjectRetention',
  'GetObjectLegalHold',
  'PutObjectRetention',
  'PutObjectLegalHold',
  'DeleteObjects',
  'CopyObject',
  'PutObjectTagging',
  'GetObjectTagging',
  'DeleteObjectTagging',
  'CreateMultipartUpload',
  'UploadPart',
  'UploadPartCopy',
  'CompleteMultipartUpload',
  'AbortMultipartUpload',
  'ListParts',
  'ListMultipartUploads',
  'GetObjectAttributes',
  'GetObjectTorrent',
  'RestoreObject',
  'SelectObjectContent',
  'PostObject',
] as const;

export type ImplementedOperation = (typeof IMPLEMENTED_OPERATIONS)[number];
export type PendingOperation = (typeof PENDING_OPERATIONS)[number];
export type S3Operation = ImplementedOperation | PendingOperation;

const pending = new Set<string>(PENDING_OPERATIONS);
export function isPending(op: S3Operation): op is PendingOperation {
  return pending.has(op);
}
