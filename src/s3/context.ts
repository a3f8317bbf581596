// Everything a handler gets: the exchange, the classified request, the caller, and the services.

import type { Accounts } from '../accounts.js';
import type { Config } from '../config.js';
import type { RequestHead } from '../http/request-head.js';
import type { Exchange } from '../http/uws.js';
import type { BucketRecord, Store } from '../store/types.js';
import type { Principal } from './access.js';
import type { AuthResult } from './auth/index.js';
import type { BodyDigester } from './body-digests.js';
import type { SseSettings } from './sse/sse.js';
import { S3Error } from './errors.js';
import type { Resource, Route } from './router.js';

/** What the access log and the metrics learn of an S3 request once it is answered. */
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
  /** performance.now() at the request head */
  startedAt: number;
}

export interface S3RequestObserver {
  started(ex: Exchange): void;
  finished(ex: Exchange, summary: S3RequestSummary): void;
}

/** Per-bucket quotas (src/admin/quotas.ts): checked before a write, told after it committed. */
export interface WriteQuota {
  /** throws S3Error('QuotaExceeded') when writing `bytes` to `key` would pass the bucket's quota */
  checkWrite(bucket: string, key: string, bytes: number): void;
  written(bucket: string, bytes: number): void;
}

export interface S3Services {
  quotas?: WriteQuota;
  /** encryption at rest; none = SSE requests answer NotImplemented */
  sse?: SseSettings;
  /** access log and metrics; none when both are off */
  observer?: S3RequestObserver;
  store: Store;
  accounts: Accounts;
  config: Config;
  /** normalized base domains, longest first */
  domains: string[];
  digester: BodyDigester;
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
}

/** The addressed bucket's record; NoSuchBucket when it does not exist. */
export function bucketOf(ctx: S3Context): BucketRecord {
  const name = ctx.resource.bucket!;
  const bucket = ctx.services.store.getBucket(name);
  if (!bucket) throw new S3Error('NoSuchBucket', { BucketName: name });
  return bucket;
}
