// The one place where storage failures become S3 errors (s3.md §5): the engine's outcomes
// (StoreError) by kind, and a failure below the engine (a file system or LMDB error it did not
// name) by its errno: out of space (ENOSPC, EDQUOT, EIO on a full disk) is 507 XTuskStorageFull,
// anything else InternalError. Handlers let failures propagate; the request entry calls this.

import { StoreError } from '../store/errors.js';
import { isOutOfSpace, storageErrno } from '../base/storage-failures.js';
import { S3Error } from './errors/errors.js';
import { lockedError } from './object-lock.js';
import type { Resource } from './router.js';

export async function s3ErrorOf(e: unknown, resource: Resource, dataDir: string): Promise<S3Error> {
  if (e instanceof S3Error) return e;
  if (e instanceof StoreError) return s3ErrorOfStore(e, resource);
  return (await isOutOfSpace(await storageErrno(e), dataDir)) ? new S3Error('XTuskStorageFull') : new S3Error('InternalError');
}

/** Header naming the error code of an answer that has no body (HEAD), as MinIO's `x-minio-error-code`. */
export const ERROR_CODE_HEADER = 'x-tusk-error-code';

/** A read or copy of an object whose stored bytes are damaged (ObjectVersion.damaged, or a failed block CRC). */
export function objectDamaged(key: string | undefined): S3Error {
  return new S3Error('XTuskObjectDamaged', { Key: key }, { headers: { [ERROR_CODE_HEADER]: 'XTuskObjectDamaged' } });
}

export function s3ErrorOfStore(e: StoreError, resource: Resource): S3Error {
  const key = resource.key;
  switch (e.kind) {
    case 'namespace-missing':
      return new S3Error('NoSuchBucket', { BucketName: resource.bucket });
    case 'not-found':
      switch (e.subject) {
        case 'upload':
          return new S3Error('NoSuchUpload', { UploadId: e.detail.uploadId });
        case 'part':
          return new S3Error('InvalidPart', { PartNumber: e.detail.partNumber });
        case 'version':
          return new S3Error('NoSuchVersion', { Key: key, VersionId: e.detail.versionId });
        case 'bucket':
          return new S3Error('NoSuchBucket', { BucketName: resource.bucket });
        default:
          return new S3Error('NoSuchKey', { Key: key });
      }
    case 'condition-failed':
      // deleteObject's mayRemove refused: an object-lock protected version (s3.md §3.0.9)
      if (e.detail.condition === 'guard') return lockedError();
      if (e.subject === 'part') return new S3Error('InvalidPart', { PartNumber: e.detail.partNumber });
      return new S3Error('PreconditionFailed', { Condition: e.detail.condition ?? 'If-Match' });
    case 'invalid-name':
      if (e.subject === 'bucket') return new S3Error('InvalidBucketName', { BucketName: resource.bucket });
      return new S3Error('KeyTooLongError', { Size: e.detail.size, MaxSizeAllowed: e.detail.max });
    case 'out-of-space':
      return new S3Error('XTuskStorageFull');
    case 'corrupt':
      return objectDamaged(key);
    case 'moved':
      return new S3Error('ServiceUnavailable', {}, { message: 'The object moved while it was read; retry.', headers: { 'Retry-After': '0' } });
  }
}
