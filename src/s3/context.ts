// Everything a handler gets: the exchange, the classified request, the caller, and the services.

import type { Accounts } from '../accounts.js';
import type { Config } from '../config.js';
import type { RequestHead } from '../http/request-head.js';
import type { Exchange } from '../http/uws.js';
import type { BucketRecord } from '../store/types.js';
import type { S3Store } from './object-attrs.js';
import { requireBucket, requireCapability, type Principal } from './access.js';
import type { AuthResult } from './auth/index.js';
import type { BodyDigester } from './body-digests.js';
import { S3Error } from './errors.js';
import type { Resource, Route } from './router.js';

export interface S3Services {
  store: S3Store;
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

/** The addressed bucket, once the caller may write objects into it (s3.md §2.13). */
export function writableBucket(ctx: S3Context): BucketRecord {
  const bucket = bucketOf(ctx);
  requireCapability(ctx.principal, 'write', bucket.name);
  requireBucket(ctx.principal, bucket, 'write');
  return bucket;
}
