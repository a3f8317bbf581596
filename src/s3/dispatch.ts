// The one switch from operation to handler (style.md §1). Operations later issues implement
// answer 501 NotImplemented naming the operation.

import type { S3Context } from './context.js';
import { S3Error } from './errors.js';
import type { ImplementedOperation } from './operations.js';
import { isPending } from './operations.js';
import {
  handleCreateBucket,
  handleDeleteBucket,
  handleDeleteBucketSubresourceStub,
  handleGetBucketLocation,
  handleGetBucketSubresourceStub,
  handleHeadBucket,
  handleListBuckets,
  handlePutBucketSubresourceStub,
} from './handlers/buckets.js';
import { handleDeleteBucketEncryption, handleGetBucketEncryption, handlePutBucketEncryption } from './handlers/bucket-encryption.js';
import { handleDeleteObject } from './handlers/delete-object.js';
import { handleGetObject, handleHeadObject } from './handlers/get-object.js';
import { handleListObjects, handleListObjectsV2 } from './handlers/list-objects.js';
import { handlePutObject } from './handlers/put-object.js';

const HANDLERS: Record<ImplementedOperation, (ctx: S3Context) => Promise<void>> = {
  ListBuckets: handleListBuckets,
  CreateBucket: handleCreateBucket,
  DeleteBucket: handleDeleteBucket,
  HeadBucket: handleHeadBucket,
  GetBucketLocation: handleGetBucketLocation,
  ListObjectsV2: handleListObjectsV2,
  ListObjects: handleListObjects,
  PutObject: handlePutObject,
  GetObject: handleGetObject,
  HeadObject: handleHeadObject,
  DeleteObject: handleDeleteObject,
  GetBucketSubresourceStub: handleGetBucketSubresourceStub,
  PutBucketSubresourceStub: handlePutBucketSubresourceStub,
  DeleteBucketSubresourceStub: handleDeleteBucketSubresourceStub,
  PutBucketEncryption: handlePutBucketEncryption,
  GetBucketEncryption: handleGetBucketEncryption,
  DeleteBucketEncryption: handleDeleteBucketEncryption,
};

export function dispatch(ctx: S3Context): Promise<void> {
  const op = ctx.route.op;
  if (isPending(op)) {
    throw new S3Error('NotImplemented', {}, { message: `${op} is not implemented yet.` });
  }
  return HANDLERS[op](ctx);
}
