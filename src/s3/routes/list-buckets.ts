// ListBuckets' query (s3.md §3.1). It runs after authorization, which already refuses an anonymous
// caller (authz/authorize.ts: service scope), so AccessDenied stays ahead of a bad max-buckets. The
// bucket-region filter is checked in the handler: whether it names this server's region is config.

import { S3Error } from '../errors/errors.js';
import type { RequestInput } from './input.js';

const MAX_BUCKETS = 10000;

export interface ListBucketsParams {
  /** undefined when absent: the response echoes <Prefix> only when it was given */
  prefix?: string;
  maxBuckets: number;
  /** the bucket name the page starts after ('' from the start) */
  startAfter: string;
  bucketRegion?: string;
}

export function parseListBuckets({ query }: RequestInput): ListBucketsParams {
  let maxBuckets = MAX_BUCKETS;
  const rawMax = query.get('max-buckets');
  if (rawMax !== undefined) {
    maxBuckets = /^\d+$/.test(rawMax) ? Number(rawMax) : NaN;
    if (!(maxBuckets >= 1 && maxBuckets <= MAX_BUCKETS)) throw new S3Error('InvalidArgument', { ArgumentName: 'max-buckets', ArgumentValue: rawMax });
  }
  const token = query.get('continuation-token');
  return {
    prefix: query.get('prefix'),
    maxBuckets,
    startAfter: token === undefined ? '' : Buffer.from(token, 'base64url').toString(),
    bucketRegion: query.get('bucket-region'),
  };
}
