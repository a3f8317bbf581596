// authorize() tells an ACL grant's allowance apart from the owner's and a policy's, for the server
// access log's ACL Required field (AWS *Amazon S3 server access log format*: `Yes` when the request
// required an ACL for authorization).

import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/s3/access.js';
import { OPERATION_ACCESS } from '../../../src/s3/authz/actions.js';
import { allowed, authorize, type Verdict } from '../../../src/s3/authz/authorize.js';
import type { S3Bucket } from '../../../src/s3/object-attrs.js';
import type { OperationAccess } from '../../../src/s3/authz/actions.js';

const OWNER = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const keyOf = (canonicalId: string, accountId: string): Principal =>
  ({ kind: 'key', key: { account: { canonicalId, accountId }, capabilities: new Set(['create_bucket', 'delete_bucket', 'write', 'read']) } }) as unknown as Principal;
const owner = keyOf(OWNER, '111111111111');
const other = keyOf(OTHER, '222222222222');
const anonymous: Principal = { kind: 'anonymous' };

const LIST_AND_GET = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { AWS: '*' }, Action: ['s3:ListBucket', 's3:GetObject'], Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'] }],
});
const bucketWith = (acl: string, policy?: string): S3Bucket =>
  ({ name: 'b', owner: OWNER, acl, ...(policy ? { access: { policy } } : {}) }) as unknown as S3Bucket;

function verdict(p: Principal, bucket: S3Bucket, access: OperationAccess, arn: string): Verdict {
  return authorize({ principal: p, access, action: typeof access.action === 'string' ? access.action : access.action(''), bucket, arn, values: () => undefined });
}
const list = (p: Principal, bucket: S3Bucket) => verdict(p, bucket, OPERATION_ACCESS.ListObjects, 'arn:aws:s3:::b');
const get = (p: Principal, bucket: S3Bucket) => verdict(p, bucket, OPERATION_ACCESS.GetObject, 'arn:aws:s3:::b/k');

describe('authorize: what allowed the request', () => {
  it("a bucket ACL grant alone: 'acl'", () => {
    expect(list(other, bucketWith('public-read'))).toBe('acl');
    expect(list(anonymous, bucketWith('public-read'))).toBe('acl');
    expect(list(other, bucketWith('authenticated-read'))).toBe('acl');
    expect(allowed('acl')).toBe(true);
  });
  it("the bucket owner and a policy's Allow: 'allow', whatever the ACL grants", () => {
    expect(list(owner, bucketWith('public-read'))).toBe('allow');
    expect(list(other, bucketWith('public-read', LIST_AND_GET))).toBe('allow');
    expect(get(other, bucketWith('private', LIST_AND_GET))).toBe('allow');
  });
  it("an object-level need without a policy is left to the object's ACL; no grant: 'deny'", () => {
    expect(get(other, bucketWith('public-read'))).toBe('object-acl');
    expect(list(other, bucketWith('private'))).toBe('deny');
    expect(allowed('deny')).toBe(false);
    expect(allowed('object-acl')).toBe(false);
  });
});
