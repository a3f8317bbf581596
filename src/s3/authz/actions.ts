// Which IAM action each S3 operation is, and which ACL permission can grant it (AWS *Actions,
// resources and condition keys for Amazon S3*; *Access control list (ACL) overview*, "Mapping of
// ACL permissions and access policy permissions"). The router's operation picks its row; the one
// authorize() decides from it. `Record<S3Operation, …>` makes the compiler prove every operation,
// implemented or pending, has a row.
//
// That mapping, which every `acl` below follows and nothing else grants:
// - bucket READ: s3:ListBucket, s3:ListBucketVersions, s3:ListBucketMultipartUploads;
// - bucket WRITE: s3:PutObject and s3:DeleteObject; s3:DeleteObjectVersion "when the grantee is
//   the bucket owner" only, so WRITE never lets another account or AllUsers delete a version for good;
// - object READ: s3:GetObject, s3:GetObjectVersion, s3:GetObjectTorrent (not the tagging actions);
// - READ_ACP / WRITE_ACP: s3:Get/PutBucketAcl on a bucket, s3:Get/PutObject(Version)Acl on an object.
// Tagging, retention, legal hold, configuration and s3:AbortMultipartUpload /
// s3:ListMultipartUploadParts are in no ACL permission: the bucket owner or a policy only (the last
// two also the upload's initiator, AWS *Multipart upload API and permissions*).

import type { Capability } from '../../identity/accounts.js';
import type { S3Operation } from '../operations.js';

export type AclNeed = { on: 'bucket' | 'object'; permission: 'READ' | 'WRITE' | 'READ_ACP' | 'WRITE_ACP' };

export interface OperationAccess {
  /** IAM action; the §1.6 stub operations name theirs per sub-resource */
  action: string | ((subresource: string) => string);
  /**
   * The row instead when the request names one version by id: its own action (AWS:
   * s3:GetObjectVersion, s3:DeleteObjectVersion, …) and the ACL permission that grants that action.
   */
  byVersionId?: OperationAccess;
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
  /**
   * The upload's initiator may call it besides the bucket owner (AWS *Multipart upload API and
   * permissions*: "By default, the bucket owner and the initiator of the multipart upload"); its
   * handler takes that step, once it holds the upload.
   */
  initiator?: boolean;
}

const B_READ: AclNeed = { on: 'bucket', permission: 'READ' };
const B_WRITE: AclNeed = { on: 'bucket', permission: 'WRITE' };
const O_READ: AclNeed = { on: 'object', permission: 'READ' };
const O_READ_ACP: AclNeed = { on: 'object', permission: 'READ_ACP' };
const O_WRITE_ACP: AclNeed = { on: 'object', permission: 'WRITE_ACP' };

const bucket = (action: string, capability: Capability, acl?: AclNeed): OperationAccess => ({ action, scope: 'bucket', capability, acl });
const object = (action: string, capability: Capability, acl?: AclNeed): OperationAccess => ({ action, scope: 'object', capability, acl });
const policyOp = (action: string, capability: Capability): OperationAccess => ({ ...bucket(action, capability), ownerAlways: true });
/** `access`, and by version id `action`, granted by `acl` if any (ACL mapping above). */
const versioned = (access: OperationAccess, action: string, acl?: AclNeed): OperationAccess => ({ ...access, byVersionId: { ...access, action, acl } });
const uploadOp = (action: string, capability: Capability): OperationAccess => ({ ...object(action, capability), initiator: true });

/** §1.6 stub sub-resource → its Get action (Put/Delete use the Put action, as S3 does for deletes of configuration). */
const STUB_ACTIONS: Record<string, [get: string, put: string]> = {
  lifecycle: ['s3:GetLifecycleConfiguration', 's3:PutLifecycleConfiguration'],
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
  AbortMultipartUpload: uploadOp('s3:AbortMultipartUpload', 'write'),
  ListParts: uploadOp('s3:ListMultipartUploadParts', 'write'),
  // a version deleted by id is gone for good: bucket WRITE grants that to the bucket owner alone
  DeleteObject: versioned(object('s3:DeleteObject', 'write', B_WRITE), 's3:DeleteObjectVersion'),
  // the entries naming a version: requireKeyDeletable() with DeleteObject's by-version row
  DeleteObjects: { ...bucket('s3:DeleteObject', 'write', B_WRITE), perKey: ['s3:DeleteObject', 's3:DeleteObjectVersion'] },
  GetObject: versioned(object('s3:GetObject', 'read', O_READ), 's3:GetObjectVersion', O_READ),
  HeadObject: versioned(object('s3:GetObject', 'read', O_READ), 's3:GetObjectVersion', O_READ),
  // AWS *GetObjectAttributes*: "you must have READ access to the object"
  GetObjectAttributes: versioned(object('s3:GetObjectAttributes', 'read', O_READ), 's3:GetObjectVersionAttributes', O_READ),
  GetObjectTorrent: object('s3:GetObjectTorrent', 'read', O_READ),
  SelectObjectContent: object('s3:GetObject', 'read', O_READ),
  RestoreObject: object('s3:RestoreObject', 'write'),
  GetObjectTagging: versioned(object('s3:GetObjectTagging', 'read'), 's3:GetObjectVersionTagging'),
  PutObjectTagging: versioned(object('s3:PutObjectTagging', 'write'), 's3:PutObjectVersionTagging'),
  DeleteObjectTagging: versioned(object('s3:DeleteObjectTagging', 'write'), 's3:DeleteObjectVersionTagging'),
  GetObjectRetention: object('s3:GetObjectRetention', 'read'),
  PutObjectRetention: object('s3:PutObjectRetention', 'write'),
  GetObjectLegalHold: object('s3:GetObjectLegalHold', 'read'),
  PutObjectLegalHold: object('s3:PutObjectLegalHold', 'write'),
  GetBucketAcl: bucket('s3:GetBucketAcl', 'read', { on: 'bucket', permission: 'READ_ACP' }),
  PutBucketAcl: bucket('s3:PutBucketAcl', 'write', { on: 'bucket', permission: 'WRITE_ACP' }),
  GetObjectAcl: versioned(object('s3:GetObjectAcl', 'read', O_READ_ACP), 's3:GetObjectVersionAcl', O_READ_ACP),
  PutObjectAcl: versioned(object('s3:PutObjectAcl', 'write', O_WRITE_ACP), 's3:PutObjectVersionAcl', O_WRITE_ACP),
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
  GetBucketNotificationConfiguration: bucket('s3:GetBucketNotification', 'read'),
  PutBucketNotificationConfiguration: bucket('s3:PutBucketNotification', 'write'),
  // MinIO's actions; the bucket-less form streams only the caller's own buckets (its handler filters)
  ListenBucketNotification: bucket('s3:ListenBucketNotification', 'read'),
  ListenNotification: { action: 's3:ListenNotification', scope: 'service', capability: 'read' },
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
  GetBucketWebsite: bucket('s3:GetBucketWebsite', 'read'),
  PutBucketWebsite: bucket('s3:PutBucketWebsite', 'write'),
  DeleteBucketWebsite: bucket('s3:DeleteBucketWebsite', 'write'),
  GetBucketLogging: bucket('s3:GetBucketLogging', 'read'),
  PutBucketLogging: bucket('s3:PutBucketLogging', 'write'),
  GetBucketSubresourceStub: { action: stubAction(0), scope: 'bucket', capability: 'read' },
  PutBucketSubresourceStub: { action: stubAction(1), scope: 'bucket', capability: 'write' },
  DeleteBucketSubresourceStub: { action: stubAction(1), scope: 'bucket', capability: 'write' },
};

/** The row of a request for `access` naming one version by id or not. */
export function versionAccess(access: OperationAccess, byVersionId: boolean): OperationAccess {
  return (byVersionId && access.byVersionId) || access;
}

/** The IAM action of a request for `access` on `subresource`. */
export function actionOf(access: OperationAccess, subresource: string | undefined): string {
  return typeof access.action === 'string' ? access.action : access.action(subresource ?? '');
}
