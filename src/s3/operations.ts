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
  'PutBucketTagging',
  'GetBucketTagging',
  'DeleteBucketTagging',
  'PutBucketEncryption',
  'GetBucketEncryption',
  'DeleteBucketEncryption',
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
  'PutBucketAcl',
  'GetBucketAcl',
  'PutObjectAcl',
  'GetObjectAcl',
  'PutBucketOwnershipControls',
  'GetBucketOwnershipControls',
  'DeleteBucketOwnershipControls',
  'PutBucketPolicy',
  'GetBucketPolicy',
  'DeleteBucketPolicy',
  'GetBucketPolicyStatus',
  'PutPublicAccessBlock',
  'GetPublicAccessBlock',
  'DeletePublicAccessBlock',
  'PutBucketCors',
  'GetBucketCors',
  'DeleteBucketCors',
  'PutBucketNotificationConfiguration',
  'GetBucketNotificationConfiguration',
  'ListenBucketNotification',
  'ListenNotification',
  'CorsPreflight',
  'PostObject',
  'ListObjectVersions',
  'PutBucketVersioning',
  'GetBucketVersioning',
  'PutObjectLockConfiguration',
  'GetObjectLockConfiguration',
  'PutObjectRetention',
  'GetObjectRetention',
  'PutObjectLegalHold',
  'GetObjectLegalHold',
  'PutBucketLifecycleConfiguration',
  'GetBucketLifecycleConfiguration',
  'DeleteBucketLifecycle',
  'PutBucketWebsite',
  'GetBucketWebsite',
  'DeleteBucketWebsite',
  'PutBucketLogging',
  'GetBucketLogging',
] as const;

/** Known operations that later issues implement; they answer 501 NotImplemented naming the operation. */
export const PENDING_OPERATIONS = [
  'GetObjectTorrent',
  'RestoreObject',
  'SelectObjectContent',
] as const;

export type ImplementedOperation = (typeof IMPLEMENTED_OPERATIONS)[number];
export type PendingOperation = (typeof PENDING_OPERATIONS)[number];
export type S3Operation = ImplementedOperation | PendingOperation;

const pending = new Set<string>(PENDING_OPERATIONS);
export function isPending(op: S3Operation): op is PendingOperation {
  return pending.has(op);
}
