// Which IAM action each S3 operation is, and which ACL permission can grant it (AWS *Actions,
// resources and condition keys for Amazon S3*; *Access control list (ACL) overview*, "Mapping of
// ACL permissions and access policy permissions"). The router's operation picks its row; the one
// authorize() decides from it. `Record<S3Operation, …>` makes the compiler prove every operation,
// implemented or pending, has a row.

import type { Capability } from '../../accounts.js';
import type { S3Operation } from '../operations.js';

export type AclNeed = { on: 'bucket' | 'object'; permission: 'READ' | 'WRITE' | 'READ_ACP' | 'WRITE_ACP' };

export interface OperationAccess {
  /** IAM action; the §1.6 stub operations name theirs per sub-resource */
  action: string | ((subresource: string) => string);
  /** the action instead when the request names one version by id (AWS: s3:GetObjectVersion, s3:DeleteObjectVersion) */
  byVersionId?: string;
  /**
   * service: ListBuckets/CreateBucket (any signed caller); preflight: never authenticated (s3.md §2.1);
   * form: an object write whose principal and key are in the signed form, so its handler calls
   * authorizeRequest() once it has read them (PostObject)
   */
  scope: 'service' | 'bucket' | 'object' | 'preflight' | 'form';
  /** the key capability of s3.md §2.11/§2.13 */
  capability: Capability;
  /** ACL permission that also grants the action; none → bucket owner or a policy only */
  acl?: AclNeed;
  /** the owner can never be locked out of these by its own policy (AWS *PutBucketPolicy*) */
  ownerAlways?: boolean;
  /**
   * The object actions its handler checks on each key (DeleteObjects, AWS: s3:DeleteObject on each
   * object): a policy that could allow one of them lets the request in, the keys are decided alone.
   */
  perKey?: readonly string[];
}

const B_READ: AclNeed = { on: 'bucket', permission: 'READ' };
const B_WRITE: AclNeed = { on: 'bucket', permission: 'WRITE' };
const O_READ: AclNeed = { on: 'object', permission: 'READ' };

const bucket = (action: string, capability: Capability, acl?: AclNeed): OperationAccess => ({ action, scope: 'bucket', capability, acl });
const object = (action: string, capability: Capability, acl?: AclNeed): OperationAccess => ({ action, scope: 'object', capability, acl });
const policyOp = (action: string, capability: Capability): OperationAccess => ({ ...bucket(action, capability), ownerAlways: true });

/** §1.6 stub sub-resource → its Get action (Put/Delete use the Put action, as S3 does for deletes of configuration). */
const STUB_ACTIONS: Record<string, [get: string, put: string]> = {
  lifecycle: ['s3:GetLifecycleConfiguration', 's3:PutLifecycleConfiguration'],
  website: ['s3:GetBucketWebsite', 's3:PutBucketWebsite'],
  encryption: ['s3:GetEncryptionConfiguration', 's3:PutEncryptionConfiguration'],
  replication: ['s3:GetReplicationConfiguration', 's3:PutReplicationConfiguration'],
  logging: ['s3:GetBucketLogging', 's3:PutBucketLogging'],
  notification: ['s3:GetBucketNotification', 's3:PutBucketNotification'],
  requestPayment: ['s3:GetBucketRequestPayment', 's3:PutBucketRequestPayment'],
  accelerate: ['s3:GetAccelerateConfiguration', 's3:PutAccelerateConfiguration'],
  analytics: ['s3:GetAnalyticsConfiguration', 's3:PutAnalyticsConfiguration'],
  metrics: ['s3:GetMetricsConfiguration', 's3:PutMetricsConfiguration'],
  inventory: ['s3:GetInventoryConfiguration', 's3:PutInventoryConfiguration'],
  'intelligent-tiering': ['s3:GetIntelligentTieringConfiguration', 's3:PutIntelligentTieringConfiguration'],
};
const stubAction = (which: 0 | 1) => (sub: string) => STUB_ACTIONS[sub]?.[which] ?? `s3:${which ? 'Put' : 'Get'}Bucket${sub}`;

export const OPERATION_ACCESS: Record<S3Operation, OperationAccess> = {
  ListBuckets: { action: 's3:ListAllMyBuckets', scope: 'service', capability: 'read' },
  CreateBucket: { action: 's3:CreateBucket', scope: 'service', capability: 'create_bucket' },
  DeleteBucket: bucket('s3:DeleteBucket', 'delete_bucket'),
  HeadBucket: bucket('s3:ListBucket', 'read', B_READ),
  // [DEV] bucket READ suffices: minio-js asks before bucket operations (s3.md §3.5)
  GetBucketLocation: bucket('s3:GetBucketLocation', 'read', B_READ),
  ListObjectsV2: bucket('s3:ListBucket', 'read', B_READ),
  ListObjects: bucket('s3:ListBucket', 'read', B_READ),
  ListObjectVersions: bucket('s3:ListBucketVersions', 'read', B_READ),
  ListMultipartUploads: bucket('s3:ListBucketMultipartUploads', 'read', B_READ),
  PutObject: object('s3:PutObject', 'write', B_WRITE),
  PostObject: { ...object('s3:PutObject', 'write', B_WRITE), scope: 'form' },
  CopyObject: object('s3:PutObject', 'write', B_WRITE),
  CreateMultipartUpload: object('s3:PutObject', 'write', B_WRITE),
  UploadPart: object('s3:PutObject', 'write', B_WRITE),
  UploadPartCopy: object('s3:PutObject', 'write', B_WRITE),
  CompleteMultipartUpload: object('s3:PutObject', 'write', B_WRITE),
  AbortMultipartUpload: object('s3:AbortMultipartUpload', 'write', B_WRITE),
  ListParts: object('s3:ListMultipartUploadParts', 'write', B_WRITE),
  DeleteObject: { ...object('s3:DeleteObject', 'write', B_WRITE), byVersionId: 's3:DeleteObjectVersion' },
  DeleteObjects: { ...bucket('s3:DeleteObject', 'write', B_WRITE), perKey: ['s3:DeleteObject', 's3:DeleteObjectVersion'] },
  GetObject: { ...object('s3:GetObject', 'read', O_READ), byVersionId: 's3:GetObjectVersion' },
  HeadObject: { ...object('s3:GetObject', 'read', O_READ), byVersionId: 's3:GetObjectVersion' },
  GetObjectAttributes: object('s3:GetObjectAttributes', 'read', O_READ),
  GetObjectTorrent: object('s3:GetObjectTorrent', 'read', O_READ),
  SelectObjectContent: object('s3:GetObject', 'read', O_READ),
  RestoreObject: object('s3:RestoreObject', 'write'),
  GetObjectTagging: object('s3:GetObjectTagging', 'read', O_READ),
  PutObjectTagging: object('s3:PutObjectTagging', 'write', B_WRITE),
  DeleteObjectTagging: object('s3:DeleteObjectTagging', 'write', B_WRITE),
  GetObjectRetention: object('s3:GetObjectRetention', 'read'),
  PutObjectRetention: object('s3:PutObjectRetention', 'write'),
  GetObjectLegalHold: object('s3:GetObjectLegalHold', 'read'),
  PutObjectLegalHold: object('s3:PutObjectLegalHold', 'write'),
  GetBucketAcl: bucket('s3:GetBucketAcl', 'read', { on: 'bucket', permission: 'READ_ACP' }),
  PutBucketAcl: bucket('s3:PutBucketAcl', 'write', { on: 'bucket', permission: 'WRITE_ACP' }),
  GetObjectAcl: object('s3:GetObjectAcl', 'read', { on: 'object', permission: 'READ_ACP' }),
  PutObjectAcl: object('s3:PutObjectAcl', 'write', { on: 'object', permission: 'WRITE_ACP' }),
  GetBucketOwnershipControls: bucket('s3:GetBucketOwnershipControls', 'read'),
  PutBucketOwnershipControls: bucket('s3:PutBucketOwnershipControls', 'write'),
  DeleteBucketOwnershipControls: bucket('s3:PutBucketOwnershipControls', 'write'),
  GetBucketPolicy: policyOp('s3:GetBucketPolicy', 'read'),
  PutBucketPolicy: policyOp('s3:PutBucketPolicy', 'write'),
  DeleteBucketPolicy: policyOp('s3:DeleteBucketPolicy', 'write'),
  GetBucketPolicyStatus: bucket('s3:GetBucketPolicyStatus', 'read'),
  GetPublicAccessBlock: bucket('s3:GetBucketPublicAccessBlock', 'read'),
  PutPublicAccessBlock: bucket('s3:PutBucketPublicAccessBlock', 'write'),
  DeletePublicAccessBlock: bucket('s3:PutBucketPublicAccessBlock', 'write'),
  GetBucketCors: bucket('s3:GetBucketCORS', 'read'),
  PutBucketCors: bucket('s3:PutBucketCORS', 'write'),
  DeleteBucketCors: bucket('s3:PutBucketCORS', 'write'),
  CorsPreflight: { action: 's3:CorsPreflight', scope: 'preflight', capability: 'read' },
  GetBucketVersioning: bucket('s3:GetBucketVersioning', 'read'),
  PutBucketVersioning: bucket('s3:PutBucketVersioning', 'write'),
  GetObjectLockConfiguration: bucket('s3:GetBucketObjectLockConfiguration', 'read'),
  PutObjectLockConfiguration: bucket('s3:PutBucketObjectLockConfiguration', 'write'),
  GetBucketTagging: bucket('s3:GetBucketTagging', 'read'),
  PutBucketTagging: bucket('s3:PutBucketTagging', 'write'),
  // S3 authorizes DeleteBucketTagging as s3:PutBucketTagging
  DeleteBucketTagging: bucket('s3:PutBucketTagging', 'write'),
  GetBucketEncryption: bucket('s3:GetEncryptionConfiguration', 'read'),
  PutBucketEncryption: bucket('s3:PutEncryptionConfiguration', 'write'),
  // AWS has no action of its own for the delete: it is s3:PutEncryptionConfiguration
  DeleteBucketEncryption: bucket('s3:PutEncryptionConfiguration', 'write'),
  GetBucketLifecycleConfiguration: bucket('s3:GetLifecycleConfiguration', 'read'),
  PutBucketLifecycleConfiguration: bucket('s3:PutLifecycleConfiguration', 'write'),
  // AWS has no action of its own for the delete: it is s3:PutLifecycleConfiguration
  DeleteBucketLifecycle: bucket('s3:PutLifecycleConfiguration', 'write'),
  GetBucketSubresourceStub: { action: stubAction(0), scope: 'bucket', capability: 'read' },
  PutBucketSubresourceStub: { action: stubAction(1), scope: 'bucket', capability: 'write' },
  DeleteBucketSubresourceStub: { action: stubAction(1), scope: 'bucket', capability: 'write' },
};

/** The IAM action of a request for `access` on `subresource`, naming one version by id or not. */
export function actionOf(access: OperationAccess, subresource: string | undefined, byVersionId = false): string {
  if (byVersionId && access.byVersionId) return access.byVersionId;
  return typeof access.action === 'string' ? access.action : access.action(subresource ?? '');
}
