// The one switch from operation to handler (style.md §1). Operations later issues implement
// answer 501 NotImplemented naming the operation.

import { bucketOf, type S3Context } from '../context.js';
import { checkExpectedOwner } from '../access.js';
import { OPERATION_ACCESS } from '../authz/actions.js';
import { authorizeRequest, requireObjectAccessByKey } from '../authz/request.js';
import { S3Error } from '../errors/errors.js';
import type { ImplementedOperation } from '../operations.js';
import { isPending } from '../operations.js';
import {
  handleCreateBucket,
  handleDeleteBucket,
  handleDeleteBucketSubresourceStub,
  handleGetBucketLocation,
  handleGetBucketSubresourceStub,
  handleHeadBucket,
  handleListBuckets,
  handlePutBucketSubresourceStub,
} from '../handlers/buckets.js';
import { handleGetBucketAcl, handleGetObjectAcl, handlePutBucketAcl, handlePutObjectAcl } from '../handlers/acl.js';
import {
  handleDeleteBucketOwnershipControls,
  handleDeleteBucketPolicy,
  handleDeletePublicAccessBlock,
  handleGetBucketOwnershipControls,
  handleGetBucketPolicy,
  handleGetBucketPolicyStatus,
  handleGetPublicAccessBlock,
  handlePutBucketOwnershipControls,
  handlePutBucketPolicy,
  handlePutPublicAccessBlock,
} from '../handlers/bucket-access.js';
import { handleDeleteBucketTagging, handleGetBucketTagging, handlePutBucketTagging } from '../handlers/bucket-tagging.js';
import { handleGetBucketLogging, handlePutBucketLogging } from '../handlers/bucket-logging.js';
import { handleDeleteBucketWebsite, handleGetBucketWebsite, handlePutBucketWebsite } from '../handlers/bucket-website.js';
import { handleGetBucketNotificationConfiguration, handlePutBucketNotificationConfiguration } from '../handlers/notification.js';
import { handleListenBucketNotification, handleListenNotification } from '../handlers/listen-notification.js';
import { handleCorsPreflight, handleDeleteBucketCors, handleGetBucketCors, handlePutBucketCors } from '../handlers/cors.js';
import { handlePostObject } from '../handlers/post-object.js';
import { handleDeleteBucketEncryption, handleGetBucketEncryption, handlePutBucketEncryption } from '../handlers/bucket-encryption.js';
import { handleDeleteObject } from '../handlers/delete-object.js';
import { handleGetObject, handleHeadObject } from '../handlers/get-object.js';
import { handleListObjects, handleListObjectsV2 } from '../handlers/list-objects.js';
import { handlePutObject } from '../handlers/put-object.js';
import { handleListObjectVersions } from '../handlers/list-object-versions.js';
import { handleGetBucketVersioning, handlePutBucketVersioning } from '../handlers/versioning.js';
import {
  handleGetObjectLegalHold,
  handleGetObjectLockConfiguration,
  handleGetObjectRetention,
  handlePutObjectLegalHold,
  handlePutObjectLockConfiguration,
  handlePutObjectRetention,
} from '../handlers/object-lock.js';
import {
  handleDeleteBucketLifecycle,
  handleGetBucketLifecycleConfiguration,
  handlePutBucketLifecycleConfiguration,
} from '../handlers/lifecycle.js';
import { handleCopyObject } from '../handlers/copy-object.js';
import { handleDeleteObjects } from '../handlers/delete-objects.js';
import { handleListMultipartUploads, handleListParts } from '../handlers/list-multipart.js';
import { handleAbortMultipartUpload, handleCompleteMultipartUpload, handleCreateMultipartUpload } from '../handlers/multipart.js';
import { handleGetObjectAttributes } from '../handlers/object-attributes.js';
import { handleDeleteObjectTagging, handleGetObjectTagging, handlePutObjectTagging } from '../handlers/object-tagging.js';
import { handleUploadPart, handleUploadPartCopy } from '../handlers/upload-part.js';
import { parseParams, type ParamsOf } from '../routes/routes.js';

/** A handler takes its operation's typed parameters (routes/routes.ts), if it has any yet. */
type Handler<K extends ImplementedOperation> = (ctx: S3Context, params: ParamsOf<K>) => Promise<void>;

const HANDLERS: { [K in ImplementedOperation]: Handler<K> } = {
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
  GetBucketAcl: handleGetBucketAcl,
  PutBucketAcl: handlePutBucketAcl,
  GetObjectAcl: handleGetObjectAcl,
  PutObjectAcl: handlePutObjectAcl,
  GetBucketOwnershipControls: handleGetBucketOwnershipControls,
  PutBucketOwnershipControls: handlePutBucketOwnershipControls,
  DeleteBucketOwnershipControls: handleDeleteBucketOwnershipControls,
  PutBucketPolicy: handlePutBucketPolicy,
  GetBucketPolicy: handleGetBucketPolicy,
  DeleteBucketPolicy: handleDeleteBucketPolicy,
  GetBucketPolicyStatus: handleGetBucketPolicyStatus,
  PutPublicAccessBlock: handlePutPublicAccessBlock,
  GetPublicAccessBlock: handleGetPublicAccessBlock,
  DeletePublicAccessBlock: handleDeletePublicAccessBlock,
  PutBucketWebsite: handlePutBucketWebsite,
  GetBucketWebsite: handleGetBucketWebsite,
  DeleteBucketWebsite: handleDeleteBucketWebsite,
  PutBucketLogging: handlePutBucketLogging,
  GetBucketLogging: handleGetBucketLogging,
  PutBucketCors: handlePutBucketCors,
  GetBucketCors: handleGetBucketCors,
  DeleteBucketCors: handleDeleteBucketCors,
  PutBucketNotificationConfiguration: handlePutBucketNotificationConfiguration,
  GetBucketNotificationConfiguration: handleGetBucketNotificationConfiguration,
  ListenBucketNotification: handleListenBucketNotification,
  ListenNotification: handleListenNotification,
  CorsPreflight: handleCorsPreflight,
  PostObject: handlePostObject,
  ListObjectVersions: handleListObjectVersions,
  PutBucketVersioning: handlePutBucketVersioning,
  GetBucketVersioning: handleGetBucketVersioning,
  PutObjectLockConfiguration: handlePutObjectLockConfiguration,
  GetObjectLockConfiguration: handleGetObjectLockConfiguration,
  PutObjectRetention: handlePutObjectRetention,
  GetObjectRetention: handleGetObjectRetention,
  PutObjectLegalHold: handlePutObjectLegalHold,
  GetObjectLegalHold: handleGetObjectLegalHold,
  PutBucketLifecycleConfiguration: handlePutBucketLifecycleConfiguration,
  GetBucketLifecycleConfiguration: handleGetBucketLifecycleConfiguration,
  DeleteBucketLifecycle: handleDeleteBucketLifecycle,
  DeleteObjects: handleDeleteObjects,
  CopyObject: handleCopyObject,
  PutObjectTagging: handlePutObjectTagging,
  GetObjectTagging: handleGetObjectTagging,
  DeleteObjectTagging: handleDeleteObjectTagging,
  CreateMultipartUpload: handleCreateMultipartUpload,
  UploadPart: handleUploadPart,
  UploadPartCopy: handleUploadPartCopy,
  CompleteMultipartUpload: handleCompleteMultipartUpload,
  AbortMultipartUpload: handleAbortMultipartUpload,
  ListParts: handleListParts,
  ListMultipartUploads: handleListMultipartUploads,
  GetObjectAttributes: handleGetObjectAttributes,
  PutBucketEncryption: handlePutBucketEncryption,
  PutBucketTagging: handlePutBucketTagging,
  GetBucketTagging: handleGetBucketTagging,
  DeleteBucketTagging: handleDeleteBucketTagging,
  GetBucketEncryption: handleGetBucketEncryption,
  DeleteBucketEncryption: handleDeleteBucketEncryption,
};

/** The operations whose body may come aws-chunked (a streaming x-amz-content-sha256); S3 refuses it elsewhere. */
const STREAMED_BODIES: ReadonlySet<string> = new Set(['PutObject', 'UploadPart']);

/**
 * Every operation passes the one authorize() here, before its handler runs (s3.md §2.11–2.13);
 * pending ones too, so that a caller without access learns nothing about them.
 */
export function dispatch(ctx: S3Context): Promise<void> {
  const op = ctx.route.op;
  const payload = ctx.auth.kind === 'signed' ? ctx.auth.payload.kind : undefined;
  if ((payload === 'streaming-signed' || payload === 'streaming-unsigned-trailer') && !STREAMED_BODIES.has(op)) {
    throw new S3Error('InvalidRequest', {}, { message: 'The value of x-amz-content-sha256 header is invalid.' });
  }
  const scope = OPERATION_ACCESS[op].scope;
  const bucket = scope === 'bucket' || scope === 'object' || scope === 'form' ? bucketOf(ctx) : undefined;
  ctx.bucket = bucket;
  if (bucket) checkExpectedOwner(ctx, bucket);
  // a form upload names its signer and key in the body: its handler authorizes once it has read them
  if (scope !== 'form') ctx.verdict = authorizeRequest(ctx, bucket);
  if (isPending(op)) {
    // no handler will take the object step: take it here, so a denied caller still learns nothing
    if (ctx.verdict === 'object-acl') requireObjectAccessByKey(ctx, bucket!);
    throw new S3Error('NotImplemented', {}, { message: `${op} is not implemented yet.` });
  }
  return run(op, ctx);
}

/** Parses `op`'s parameters where its handler used to (after authorization), then runs the handler. */
function run<K extends ImplementedOperation>(op: K, ctx: S3Context): Promise<void> {
  const handler: Handler<K> = HANDLERS[op];
  return handler(ctx, parseParams(op, ctx));
}
