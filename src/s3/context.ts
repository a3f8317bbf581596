// Everything a handler gets: the exchange, the classified request, the caller, and the services.

import type { KeyService } from '../kms/key-service.js';
import type { Accounts } from '../identity/accounts.js';
import type { Config } from '../config/config.js';
import type { RequestHead } from '../http/request-head.js';
import type { Exchange, ResponseHeaders } from '../http/exchange.js';
import type { MfaDevices } from '../identity/mfa-devices.js';
import type { LiveListeners } from '../notify/listen.js';
import type { S3Bucket } from './object-attrs.js';
import type { S3Store } from './object-attrs.js';
import type { Principal } from './access.js';
import type { AuthContext, AuthResult } from './sigv4/index.js';
import type { BodyDigester } from './body-digests.js';
import { S3Error } from './errors/errors.js';
import type { Resource, Route } from './router.js';
import type { WalrusBlobReads, WalrusBlobs } from '../base/walrus-blobs.js';

/** What the access log and the metrics learn of an S3 request once it is answered. */
/** What the S3 face needs for encryption at rest. */
export interface SseSettings {
  masterKey: Buffer;
  /** SSE-C over plain HTTP (loopback listeners only; as RGW's rgw_crypt_require_ssl = false) */
  customerKeysOverHttp: boolean;
  /** SSE-KMS's key service (src/kms); none = aws:kms answers NotImplemented */
  kms?: KeyService;
}

/** One object a DeleteObjects request deleted or put a delete marker on. */
export interface BatchDeleted {
  key: string;
  /** the version removed, or the delete marker made */
  versionId?: string;
  /** the removed version's size; absent for a delete marker */
  size?: number;
}

export interface S3RequestSummary {
  requestId: string;
  /** the S3 operation, or 'unclassified' when the request failed before classification */
  operation: string;
  bucket?: string;
  key?: string;
  /** the signing key's id; never the secret or the signature */
  accessKeyId?: string;
  /** the S3 error code answered, if any */
  errorCode?: string;
  /** allowed by an ACL grant, not by ownership or a policy (server access logs' ACL Required) */
  aclRequired?: boolean;
  /** how a signed request was signed, as server access logs name it: SigV2 or SigV4, AuthHeader or QueryString */
  signatureVersion?: 'SigV2' | 'SigV4';
  authType?: 'AuthHeader' | 'QueryString';
  /** performance.now() at the request head */
  startedAt: number;
  /** DeleteObjects: the objects it deleted (server access logs' BATCH.DELETE.OBJECT records) */
  batchDeleted?: BatchDeleted[];
}

/** One thing lifecycle did to a logged bucket (its server access log record: logging/record.ts lifecycleRecord). */
export interface LifecycleAction {
  /** S3.EXPIRE.OBJECT, S3.CREATE.DELETEMARKER, S3.TRANSITION_WALRUS.OBJECT, S3.DELETE.UPLOAD */
  operation: 'expire' | 'deleteMarker' | 'transition' | 'abortUpload';
  key: string;
  /** the version removed or transitioned, or the delete marker placed; absent for an upload or a null version */
  versionId?: string;
  /** the object's size (expirations, transitions) */
  objectSize?: number;
}

/** Server access logging (src/s3/logging): the exchange a request to a logged bucket answers through, which journals its record first. */
export interface S3AccessLogging {
  watch(ex: Exchange, bucket: S3Bucket, key: string | undefined, summary: S3RequestSummary, hostId: string): Exchange;
  /** Journals what lifecycle did to a bucket (nothing when the bucket is not logged). */
  lifecycle(bucket: S3Bucket, action: LifecycleAction): void;
}

export interface S3RequestObserver {
  started(ex: Exchange): void;
  finished(ex: Exchange, summary: S3RequestSummary): void;
}

/** Per-bucket quotas (src/s3/quotas.ts): checked before a write, told after it committed. */
export interface WriteQuota {
  /** throws S3Error('QuotaExceeded') when writing `bytes` to `key` would pass the bucket's quota */
  checkWrite(bucket: string, key: string, bytes: number): Promise<void>;
  written(bucket: string, bytes: number): void;
}

export interface S3Services {
  quotas?: WriteQuota;
  /** encryption at rest; none = SSE requests answer NotImplemented */
  sse?: SseSettings;
  /** access log and metrics; none when both are off */
  observer?: S3RequestObserver;
  /** server access logs into buckets (PutBucketLogging) */
  accessLogging?: S3AccessLogging;
  store: S3Store;
  accounts: Accounts;
  config: Config;
  /** normalized base domains, longest first */
  domains: string[];
  digester: BodyDigester;
  /** accounts' TOTP devices for MFA delete (s3.md §2.14) */
  mfa: MfaDevices;
  /** bucket notification delivery (src/notify); only in the writer thread, which answers configuration changes */
  /** stores the blobs of storage class WALRUS (walrus-objects.ts); none = the class is refused here */
  walrus?: WalrusBlobs;
  /** reads them (every thread with the network's read path); none = such an object answers 503 here, unless it can be forwarded */
  walrusReads?: WalrusBlobReads;
  /**
   * A front-end thread's hand-over of a request to the writer thread (threads/front-worker.ts):
   * a read of a WALRUS object on a thread without the network's read path (a Walrus network's
   * client lives on the first thread only) is served there instead.
   */
  forwardToWriter?: (ex: Exchange) => Promise<void>;
  notifier?: { test(bucket: string, rules: ReadonlyArray<{ arn: string }>, requestId: string, hostId: string): void };
  /** this thread's ListenBucketNotification streams, and whether any thread has one (src/notify/listen.ts) */
  live?: LiveListeners;
}

export interface S3Context {
  services: S3Services;
  ex: Exchange;
  head: RequestHead;
  /** request headers with presigned `x-amz-*` query parameters hoisted in (s3.md §2.9) */
  headers: Readonly<Record<string, string>>;
  query: Map<string, string>;
  resource: Resource;
  route: Route;
  auth: AuthResult;
  principal: Principal;
  requestId: string;
  hostId: string;
  /** CORS headers for this request's Origin (s3.md §3.11), sent with every answer */
  cors?: ResponseHeaders;
  /** the addressed bucket, read once by dispatch (undefined at service level and for CreateBucket) */
  bucket?: S3Bucket;
  /** authorize()'s answer: 'object-acl' / 'initiator' leave the last step to the handler (requireObjectAccess, requireUploadAccess) */
  verdict?: 'allow' | 'acl' | 'object-acl' | 'initiator';
  /** what the access log and server access log record of this request; authorization adds to it */
  summary: S3RequestSummary;
}

/** The addressed bucket's record; NoSuchBucket when it does not exist. */
export function bucketOf(ctx: S3Context): S3Bucket {
  if (ctx.bucket) return ctx.bucket;
  const name = ctx.resource.bucket!;
  const bucket = ctx.services.store.getBucket(name);
  if (!bucket) throw new S3Error('NoSuchBucket', { BucketName: name });
  return bucket;
}

/** What authentication needs from the services (the request time is now). */
export function authContextOf(services: S3Services, resource: Resource): AuthContext {
  const { config, accounts } = services;
  return {
    region: config.region,
    acceptAnyRegion: config.acceptAnyRegion,
    clockSkewMs: config.clockSkewMs,
    now: Date.now(),
    virtualBucket: resource.style === 'virtual' ? resource.bucket : undefined,
    lookupKey: (ak) => {
      const key = accounts.lookup(ak);
      return key && { secretKey: key.secretAccessKey, accountId: key.account.accountId };
    },
  };
}
