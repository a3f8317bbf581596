// The one place the S3 face turns a storage failure into an S3 error: out of space (ENOSPC,
// EDQUOT) is 507 XTuskStorageFull, any other failure InternalError. The process keeps serving.

import { isOutOfSpace, storageErrno } from '../storage-failures.js';
import { S3Error } from './errors.js';

/** `dataDir`: where the store writes (tells a full disk's EIO from others). */
export async function s3ErrorForFailure(e: unknown, dataDir: string): Promise<S3Error> {
  return (await isOutOfSpace(await storageErrno(e), dataDir)) ? new S3Error('XTuskStorageFull') : new S3Error('InternalError');
}
