// Who owns a new object and which ACL it may carry, per the bucket's ownership controls (AWS
// *Controlling ownership of objects*, *Troubleshooting* for AccessControlListNotSupported).

import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/s3/access.js';
import { cannedGrants } from '../../../src/s3/authz/acl.js';
import { checkSettableAcl } from '../../../src/s3/authz/acl-request.js';
import { objectAcl, objectOwner, ownerOfNewObject } from '../../../src/s3/authz/authorize.js';
import type { S3Bucket, S3ObjectAttrs } from '../../../src/s3/object-attrs.js';
import type { CannedAcl } from '../../../src/store/types.js';
import { codeOf } from './helpers/code-of.js';

const OWNER = 'a'.repeat(64);
const WRITER = 'b'.repeat(64);
const writer = { kind: 'key', key: { account: { canonicalId: WRITER } } } as unknown as Principal;
const bucketWith = (objectOwnership?: string): S3Bucket =>
  ({ name: 'b', owner: OWNER, acl: 'private', ...(objectOwnership ? { objectOwnership } : {}) }) as S3Bucket;
const attrs = (acl: CannedAcl, owner?: string): S3ObjectAttrs =>
  ({ contentType: 'x', storageClass: 'STANDARD', acl, headers: {}, meta: {}, ...(owner ? { owner } : {}) });

describe('ownerOfNewObject', () => {
  it('ObjectWriter and no ownership controls: the writer', () => {
    expect(ownerOfNewObject(bucketWith('ObjectWriter'), writer, 'bucket-owner-full-control')).toBe(WRITER);
    expect(ownerOfNewObject(bucketWith(), writer, undefined)).toBe(WRITER);
  });
  it('BucketOwnerPreferred: the bucket owner only with bucket-owner-full-control', () => {
    expect(ownerOfNewObject(bucketWith('BucketOwnerPreferred'), writer, 'bucket-owner-full-control')).toBe(OWNER);
    expect(ownerOfNewObject(bucketWith('BucketOwnerPreferred'), writer, 'bucket-owner-read')).toBe(WRITER);
    expect(ownerOfNewObject(bucketWith('BucketOwnerPreferred'), writer, undefined)).toBe(WRITER);
  });
  it('BucketOwnerEnforced, and anonymous writes: the bucket owner', () => {
    expect(ownerOfNewObject(bucketWith('BucketOwnerEnforced'), writer, undefined)).toBe(OWNER);
    expect(ownerOfNewObject(bucketWith('ObjectWriter'), { kind: 'anonymous' }, undefined)).toBe(OWNER);
  });
});

describe('a stored object owner and ACL', () => {
  it('objects written before Tusk kept owners are the bucket owner\'s; BucketOwnerEnforced takes every object', () => {
    expect(objectOwner(bucketWith('ObjectWriter'), attrs('private'))).toBe(OWNER);
    expect(objectOwner(bucketWith('ObjectWriter'), attrs('private', WRITER))).toBe(WRITER);
    expect(objectOwner(bucketWith('BucketOwnerEnforced'), attrs('private', WRITER))).toBe(OWNER);
    expect(objectAcl(bucketWith('BucketOwnerEnforced'), attrs('public-read', WRITER))).toEqual({
      owner: OWNER, grants: [{ grantee: { type: 'CanonicalUser', id: OWNER }, permission: 'FULL_CONTROL' }],
    });
  });
  it('bucket-owner-read / -full-control grant the bucket owner when another account owns the object (AWS *Canned ACL*)', () => {
    const full = (id: string) => ({ grantee: { type: 'CanonicalUser', id }, permission: 'FULL_CONTROL' });
    expect(cannedGrants('bucket-owner-full-control', WRITER, OWNER)).toEqual([full(WRITER), full(OWNER)]);
    expect(cannedGrants('bucket-owner-read', WRITER, OWNER)).toEqual([full(WRITER), { grantee: { type: 'CanonicalUser', id: OWNER }, permission: 'READ' }]);
    expect(cannedGrants('bucket-owner-full-control', OWNER, OWNER)).toEqual([full(OWNER)]);
  });
});

describe('checkSettableAcl under BucketOwnerEnforced', () => {
  const enforced = bucketWith('BucketOwnerEnforced');
  it('takes bucket-owner-full-control from anyone and private from the bucket owner', () => {
    expect(codeOf(() => checkSettableAcl(enforced, 'bucket-owner-full-control', undefined, WRITER))).toBeUndefined();
    expect(codeOf(() => checkSettableAcl(enforced, 'private', undefined, OWNER))).toBeUndefined();
  });
  it('refuses private from another account (it would give that account full control) and any other ACL: 400 AccessControlListNotSupported', () => {
    expect(codeOf(() => checkSettableAcl(enforced, 'private', undefined, WRITER))).toBe('AccessControlListNotSupported');
    expect(codeOf(() => checkSettableAcl(enforced, 'public-read', undefined, OWNER))).toBe('AccessControlListNotSupported');
    expect(codeOf(() => checkSettableAcl(enforced, 'bucket-owner-read', undefined, WRITER))).toBe('AccessControlListNotSupported');
  });
  it('other ownership settings take any ACL', () => {
    expect(codeOf(() => checkSettableAcl(bucketWith('ObjectWriter'), 'private', undefined, WRITER))).toBeUndefined();
  });
});
