// Server access log records in AWS's format (AWS *Amazon S3 server access log format*): one line
// of space-separated fields per request, `-` for a field that has no value, the time in brackets,
// the request line, referer and user agent in double quotes; and the log objects' key names.

import { randomBytes } from 'node:crypto';
import type { S3Operation } from '../operations.js';
import type { BatchDeleted, LifecycleAction } from '../context.js';

/** The facts of one request a record is made of. */
export interface LogRecordFields {
  bucketOwner: string;
  bucket: string;
  /** ms since the epoch, when the request arrived */
  time: number;
  remoteIp?: string;
  /** the requester's canonical id; absent for anonymous requests */
  requester?: string;
  requestId: string;
  /** REST.PUT.OBJECT, … (operationName) */
  operation: string;
  key?: string;
  /** method, raw target and protocol: `GET /bucket/key?x HTTP/1.1` */
  requestUri?: string;
  /** absent for S3's own actions (lifecycle), which answer no request */
  status?: number;
  errorCode?: string;
  bytesSent: number;
  objectSize?: number;
  totalTimeMs?: number;
  turnAroundTimeMs?: number;
  referer?: string;
  userAgent?: string;
  versionId?: string;
  hostId: string;
  /** SigV2, SigV4 */
  signatureVersion?: string;
  cipherSuite?: string;
  /** AuthHeader, QueryString */
  authType?: string;
  hostHeader?: string;
  tlsVersion?: string;
  aclRequired?: boolean;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `[06/Feb/2019:00:00:38 +0000]`, in UTC. */
export function logTime(ms: number): string {
  const d = new Date(ms);
  return `[${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000]`;
}

/** A bare field: `-` when absent or empty; no space or control character can split the line. */
function bare(v: string | number | undefined): string {
  if (v === undefined || v === '') return '-';
  return String(v).replace(/[\s\x00-\x1f\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`);
}

/**
 * A quoted field: `"-"` when absent; `"` and `\` escaped with a backslash and control characters as
 * `\xHH`, as Apache's log escapes them, so that one record stays one line and one field.
 */
export function quoted(v: string | undefined): string {
  if (v === undefined || v === '') return '"-"';
  return `"${v.replace(/["\\\x00-\x1f\x7f]/g, (c) => (c === '"' || c === '\\' ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`))}"`;
}

/** The key field: URL-encoded as AWS logs it (slashes kept). */
export function encodedKey(key: string | undefined): string {
  if (key === undefined || key === '') return '-';
  return encodeURIComponent(key).replace(/%2F/g, '/').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const ms = (v: number | undefined): string => (v === undefined ? '-' : String(Math.max(0, Math.round(v))));

/** One record, without its line end; the 26 fields of AWS's format in its order. */
export function formatLogRecord(r: LogRecordFields): string {
  return [
    bare(r.bucketOwner),
    bare(r.bucket),
    logTime(r.time),
    bare(r.remoteIp),
    bare(r.requester),
    bare(r.requestId),
    bare(r.operation),
    encodedKey(r.key),
    quoted(r.requestUri),
    r.status === undefined ? '-' : String(r.status),
    bare(r.errorCode),
    // "or - if zero"
    r.bytesSent > 0 ? String(r.bytesSent) : '-',
    r.objectSize === undefined ? '-' : String(r.objectSize),
    ms(r.totalTimeMs),
    ms(r.turnAroundTimeMs),
    quoted(r.referer),
    quoted(r.userAgent),
    bare(r.versionId),
    bare(r.hostId),
    bare(r.signatureVersion),
    bare(r.cipherSuite),
    bare(r.authType),
    bare(r.hostHeader),
    bare(r.tlsVersion),
    // access point ARN: Tusk has no access points
    '-',
    r.aclRequired ? 'Yes' : '-',
  ].join(' ');
}

/**
 * The operation field, REST.<method>.<resource> as AWS names them (AWS *Logging with server access
 * logs*, examples in *Amazon S3 server access log format*); each S3 operation has one.
 */
export const LOG_OPERATION_NAMES: Record<S3Operation, string> = {
  ListBuckets: 'REST.GET.SERVICE',
  CreateBucket: 'REST.PUT.BUCKET',
  DeleteBucket: 'REST.DELETE.BUCKET',
  HeadBucket: 'REST.HEAD.BUCKET',
  GetBucketLocation: 'REST.GET.LOCATION',
  ListObjectsV2: 'REST.GET.BUCKET',
  ListObjects: 'REST.GET.BUCKET',
  PutObject: 'REST.PUT.OBJECT',
  GetObject: 'REST.GET.OBJECT',
  HeadObject: 'REST.HEAD.OBJECT',
  DeleteObject: 'REST.DELETE.OBJECT',
  GetBucketSubresourceStub: 'REST.GET.BUCKET',
  PutBucketSubresourceStub: 'REST.PUT.BUCKET',
  DeleteBucketSubresourceStub: 'REST.DELETE.BUCKET',
  PutBucketTagging: 'REST.PUT.TAGGING',
  GetBucketTagging: 'REST.GET.TAGGING',
  DeleteBucketTagging: 'REST.DELETE.TAGGING',
  PutBucketEncryption: 'REST.PUT.ENCRYPTION',
  GetBucketEncryption: 'REST.GET.ENCRYPTION',
  DeleteBucketEncryption: 'REST.DELETE.ENCRYPTION',
  DeleteObjects: 'REST.POST.MULTI_OBJECT_DELETE',
  CopyObject: 'REST.COPY.OBJECT',
  PutObjectTagging: 'REST.PUT.OBJECT_TAGGING',
  GetObjectTagging: 'REST.GET.OBJECT_TAGGING',
  DeleteObjectTagging: 'REST.DELETE.OBJECT_TAGGING',
  CreateMultipartUpload: 'REST.POST.UPLOADS',
  UploadPart: 'REST.PUT.PART',
  UploadPartCopy: 'REST.COPY.PART',
  CompleteMultipartUpload: 'REST.POST.UPLOAD',
  AbortMultipartUpload: 'REST.DELETE.UPLOAD',
  ListParts: 'REST.GET.UPLOAD',
  ListMultipartUploads: 'REST.GET.UPLOADS',
  GetObjectAttributes: 'REST.GET.OBJECT_ATTRIBUTES',
  PutBucketAcl: 'REST.PUT.ACL',
  GetBucketAcl: 'REST.GET.ACL',
  PutObjectAcl: 'REST.PUT.ACL',
  GetObjectAcl: 'REST.GET.ACL',
  PutBucketOwnershipControls: 'REST.PUT.OWNERSHIP_CONTROLS',
  GetBucketOwnershipControls: 'REST.GET.OWNERSHIP_CONTROLS',
  DeleteBucketOwnershipControls: 'REST.DELETE.OWNERSHIP_CONTROLS',
  PutBucketPolicy: 'REST.PUT.BUCKETPOLICY',
  GetBucketPolicy: 'REST.GET.BUCKETPOLICY',
  DeleteBucketPolicy: 'REST.DELETE.BUCKETPOLICY',
  GetBucketPolicyStatus: 'REST.GET.POLICY_STATUS',
  PutPublicAccessBlock: 'REST.PUT.PUBLIC_ACCESS_BLOCK',
  GetPublicAccessBlock: 'REST.GET.PUBLIC_ACCESS_BLOCK',
  DeletePublicAccessBlock: 'REST.DELETE.PUBLIC_ACCESS_BLOCK',
  PutBucketCors: 'REST.PUT.CORS',
  GetBucketCors: 'REST.GET.CORS',
  DeleteBucketCors: 'REST.DELETE.CORS',
  PutBucketNotificationConfiguration: 'REST.PUT.NOTIFICATION',
  GetBucketNotificationConfiguration: 'REST.GET.NOTIFICATION',
  // MinIO's live streams (AWS has no name for them)
  ListenBucketNotification: 'REST.GET.LISTEN_NOTIFICATION',
  ListenNotification: 'REST.GET.LISTEN_NOTIFICATION',
  CorsPreflight: 'REST.OPTIONS.PREFLIGHT',
  PostObject: 'REST.POST.OBJECT',
  ListObjectVersions: 'REST.GET.BUCKETVERSIONS',
  PutBucketVersioning: 'REST.PUT.VERSIONING',
  GetBucketVersioning: 'REST.GET.VERSIONING',
  PutObjectLockConfiguration: 'REST.PUT.OBJECT_LOCK_CONFIGURATION',
  GetObjectLockConfiguration: 'REST.GET.OBJECT_LOCK_CONFIGURATION',
  PutObjectRetention: 'REST.PUT.RETENTION',
  GetObjectRetention: 'REST.GET.RETENTION',
  PutObjectLegalHold: 'REST.PUT.LEGAL_HOLD',
  GetObjectLegalHold: 'REST.GET.LEGAL_HOLD',
  PutBucketLifecycleConfiguration: 'REST.PUT.LIFECYCLE',
  GetBucketLifecycleConfiguration: 'REST.GET.LIFECYCLE',
  DeleteBucketLifecycle: 'REST.DELETE.LIFECYCLE',
  PutBucketWebsite: 'REST.PUT.WEBSITE',
  GetBucketWebsite: 'REST.GET.WEBSITE',
  DeleteBucketWebsite: 'REST.DELETE.WEBSITE',
  PutBucketLogging: 'REST.PUT.LOGGING_STATUS',
  GetBucketLogging: 'REST.GET.LOGGING_STATUS',
  GetObjectTorrent: 'REST.GET.TORRENT',
  RestoreObject: 'REST.POST.RESTORE',
  SelectObjectContent: 'REST.POST.SELECT',
};

/**
 * The records AWS adds to a DeleteObjects request's own: one `BATCH.DELETE.OBJECT` per object
 * deleted, "each event specifying only a single object key" (AWS *Logging options for Amazon S3*).
 * The request's who, when and how (requester, IP, request id, signature, host) are the request's;
 * AWS's format page gives no example of one, but records AWS delivers have no request line, referer,
 * user agent or times, status 204, nothing sent, and the deleted object's size.
 */
export function batchDeleteRecords(request: LogRecordFields, deleted: readonly BatchDeleted[]): string[] {
  return deleted.map((d) =>
    formatLogRecord({
      ...request,
      operation: 'BATCH.DELETE.OBJECT',
      key: d.key,
      requestUri: undefined,
      status: 204,
      errorCode: undefined,
      bytesSent: 0,
      objectSize: d.size,
      totalTimeMs: undefined,
      turnAroundTimeMs: undefined,
      referer: undefined,
      userAgent: undefined,
      versionId: d.versionId,
    }),
  );
}

/**
 * The operations S3 logs for what lifecycle does by itself (AWS user guide *How S3 Lifecycle
 * interacts with other bucket configurations*, "S3 Lifecycle and logging"): S3.EXPIRE.OBJECT for a
 * permanent deletion (an unversioned object, a noncurrent version, an expired delete marker),
 * S3.CREATE.DELETEMARKER for a current version logically deleted in a versioned bucket,
 * S3.DELETE.UPLOAD for an incomplete multipart upload aborted, and S3.TRANSITION_<class>.OBJECT per
 * target storage class (SIA, ZIA, INT, GIR, GDA; plain S3.TRANSITION.OBJECT for Glacier Flexible
 * Retrieval). Tusk's one transition target, WALRUS, takes the same pattern.
 */
export const LIFECYCLE_OPERATION_NAMES: Record<LifecycleAction['operation'], string> = {
  expire: 'S3.EXPIRE.OBJECT',
  deleteMarker: 'S3.CREATE.DELETEMARKER',
  transition: 'S3.TRANSITION_WALRUS.OBJECT',
  abortUpload: 'S3.DELETE.UPLOAD',
};

/**
 * The requester of lifecycle records: AWS documents none for them; the service's own name, as
 * Wasabi's lifecycle records name `WasabiS3` (Wasabi docs *Reviewing lifecycle actions*), with no
 * remote IP.
 */
export const LIFECYCLE_REQUESTER = 'AmazonS3';

/**
 * A lifecycle record: no request line, status, byte count, times, referer or user agent (the
 * action answers no request; AWS delivers these as `-`), a request id and host id of its own.
 */
export function lifecycleRecord(bucket: { name: string; owner: string }, a: LifecycleAction, time: number, ids: { requestId: string; hostId: string }): string {
  return formatLogRecord({
    bucketOwner: bucket.owner,
    bucket: bucket.name,
    time,
    requester: LIFECYCLE_REQUESTER,
    requestId: ids.requestId,
    operation: LIFECYCLE_OPERATION_NAMES[a.operation],
    key: a.key,
    bytesSent: 0,
    objectSize: a.objectSize,
    versionId: a.versionId,
    hostId: ids.hostId,
  });
}

/** The operation field of a request that failed before it was classified. */
export function unclassifiedOperationName(method: string): string {
  return `REST.${method}.UNKNOWN`;
}

/** `YYYY-mm-DD-HH-MM-SS` in UTC (the log objects' time stamp). */
function keyTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}-${pad(d.getUTCHours())}-${pad(d.getUTCMinutes())}-${pad(d.getUTCSeconds())}`;
}

/** What a log object's key is made of (AWS *Log object key format*). */
export interface LogObjectKeyInput {
  prefix: string;
  /** present: PartitionedPrefix */
  partitioned?: { accountId: string; region: string; sourceBucket: string; /** ms: the event or the delivery time */ partitionTime: number };
  deliveredAt: number;
  /** 16 upper-case hex digits unless given */
  unique?: string;
}

/**
 * `[prefix][YYYY]-[MM]-[DD]-[hh]-[mm]-[ss]-[UniqueString]` (SimplePrefix), or
 * `[prefix][SourceAccountId]/[SourceRegion]/[SourceBucket]/[YYYY]/[MM]/[DD]/[YYYY]-[MM]-[DD]-[hh]-[mm]-[ss]-[UniqueString]`.
 */
export function logObjectKey(k: LogObjectKeyInput): string {
  const name = `${keyTime(k.deliveredAt)}-${k.unique ?? randomBytes(8).toString('hex').toUpperCase()}`;
  const p = k.partitioned;
  if (!p) return k.prefix + name;
  const d = new Date(p.partitionTime);
  return `${k.prefix}${p.accountId}/${p.region}/${p.sourceBucket}/${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${name}`;
}
