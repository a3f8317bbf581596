// Typed routes (style.md §1, as the publisher's PublisherRoute and Garage's Endpoint): an operation
// with its parameters parsed and checked, each operation's order of checks in one parser. The
// router (router.ts) only classifies; dispatch runs the parser after authentication, the bucket
// lookup and authorization, where the handler used to parse, so every error keeps its precedence.
// A check that needs stored state (a bucket, an upload) stays in the handler.

import type { ImplementedOperation } from '../operations.js';
import type { RequestInput } from './input.js';
import {
  parseListMultipartUploads,
  parseListObjects,
  parseListObjectsV2,
  parseListObjectVersions,
  type ListMultipartUploadsParams,
  type ListObjectsParams,
  type ListObjectsV2Params,
  type ListObjectVersionsParams,
} from './listings.js';
import { parseGetObject, type GetObjectParams } from './object-reads.js';
import {
  parseDeleteObject,
  parseDeleteObjects,
  parseMfa,
  type DeleteObjectParams,
  type DeleteObjectsParams,
  type MfaParams,
} from './deletes.js';
import {
  parseGetObjectAttributes,
  parseVersioned,
  type GetObjectAttributesParams,
  type VersionedParams,
} from './object-subresources.js';
import {
  parseCompleteMultipartUpload,
  parseUploadId,
  type CompleteMultipartUploadParams,
  type UploadIdParams,
} from './uploads.js';
import { parseListBuckets, type ListBucketsParams } from './list-buckets.js';
import { parseCopyObject, parseUploadPart, parseUploadPartCopy, type CopyObjectParams, type UploadPartParams } from './object-writes.js';

/** The operations whose handlers receive typed parameters, and those parameters. */
export interface OperationParams {
  ListObjects: ListObjectsParams;
  ListObjectsV2: ListObjectsV2Params;
  ListObjectVersions: ListObjectVersionsParams;
  ListMultipartUploads: ListMultipartUploadsParams;
  GetObject: GetObjectParams;
  HeadObject: GetObjectParams;
  CopyObject: CopyObjectParams;
  UploadPart: UploadPartParams;
  UploadPartCopy: UploadPartParams;
  DeleteObject: DeleteObjectParams;
  DeleteObjects: DeleteObjectsParams;
  DeleteBucket: MfaParams;
  PutBucketVersioning: MfaParams;
  GetObjectTagging: VersionedParams;
  DeleteObjectTagging: VersionedParams;
  GetObjectAcl: VersionedParams;
  PutObjectAcl: VersionedParams;
  GetObjectAttributes: GetObjectAttributesParams;
  AbortMultipartUpload: UploadIdParams;
  ListParts: UploadIdParams;
  CompleteMultipartUpload: CompleteMultipartUploadParams;
  ListBuckets: ListBucketsParams;
}

export type TypedOperation = keyof OperationParams;

/** An operation's parameters; undefined for one whose handler still reads the request itself. */
export type ParamsOf<K extends ImplementedOperation> = K extends TypedOperation ? OperationParams[K] : undefined;

/** Every implemented operation with its parameters, discriminated by `op`. */
export type S3Route = { [K in ImplementedOperation]: { op: K; params: ParamsOf<K> } }[ImplementedOperation];

const PARSERS: { [K in TypedOperation]: (input: RequestInput) => OperationParams[K] } = {
  ListObjects: parseListObjects,
  ListObjectsV2: parseListObjectsV2,
  ListObjectVersions: parseListObjectVersions,
  ListMultipartUploads: parseListMultipartUploads,
  GetObject: parseGetObject,
  HeadObject: parseGetObject,
  CopyObject: parseCopyObject,
  UploadPart: parseUploadPart,
  UploadPartCopy: parseUploadPartCopy,
  DeleteObject: parseDeleteObject,
  DeleteObjects: parseDeleteObjects,
  DeleteBucket: parseMfa,
  PutBucketVersioning: parseMfa,
  GetObjectTagging: parseVersioned,
  DeleteObjectTagging: parseVersioned,
  GetObjectAcl: parseVersioned,
  PutObjectAcl: parseVersioned,
  GetObjectAttributes: parseGetObjectAttributes,
  AbortMultipartUpload: parseUploadId,
  ListParts: parseUploadId,
  CompleteMultipartUpload: parseCompleteMultipartUpload,
  ListBuckets: parseListBuckets,
};

function isTyped(op: ImplementedOperation): op is TypedOperation {
  return Object.hasOwn(PARSERS, op);
}

/** `op`'s parameters from the request; throws the S3Error S3 answers for the first bad one. */
export function parseParams<K extends ImplementedOperation>(op: K, input: RequestInput): ParamsOf<K> {
  return (isTyped(op) ? PARSERS[op](input) : undefined) as ParamsOf<K>;
}
