// Canned ACLs for anonymous callers and other accounts: s3.md §2.11–2.13.

import { beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { randomCredentials, type Credentials } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

const other = { displayName: 'other', ...randomCredentials('OTHR') };
const ctx = useTusk({ extraAccounts: [other] });

const ACLS = ['private', 'public-read', 'public-read-write', 'authenticated-read'] as const;
type Acl = (typeof ACLS)[number];
const buckets = {} as Record<Acl, string>;
type Who = 'other' | 'anonymous';
const who = (w: Who): Credentials | null => (w === 'other' ? other : null);

beforeAll(async () => {
  for (const acl of ACLS) {
    buckets[acl] = bucketName(acl.replace(/-/g, ''));
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: buckets[acl], headers: { 'x-amz-acl': acl } })).status).toBe(200);
    for (const objAcl of ACLS.filter((a) => a !== 'public-read-write')) {
      const res = await s3Request(ctx.server, { method: 'PUT', bucket: buckets[acl], key: `obj-${objAcl}`, body: objAcl, headers: { 'x-amz-acl': objAcl } });
      expect(res.status).toBe(200);
    }
  }
});

// expected outcome per (bucket ACL, caller) — s3.md §2.13
const LIST: Record<Acl, Record<Who, boolean>> = {
  private: { other: false, anonymous: false },
  'public-read': { other: true, anonymous: true },
  'public-read-write': { other: true, anonymous: true },
  'authenticated-read': { other: true, anonymous: false },
};
const WRITE: Record<Acl, Record<Who, boolean>> = {
  private: { other: false, anonymous: false },
  'public-read': { other: false, anonymous: false },
  'public-read-write': { other: true, anonymous: true },
  'authenticated-read': { other: false, anonymous: false },
};
const cases = ACLS.flatMap((acl) => (['other', 'anonymous'] as Who[]).map((w) => [acl, w] as const));

describe('bucket ACL decides listing and bucket reads', () => {
  it.each(cases)('%s bucket, %s caller: ListObjectsV2 / HeadBucket / GetBucketLocation', async (acl, w) => {
    const allowed = LIST[acl][w];
    const list = await s3Request(ctx.server, { method: 'GET', bucket: buckets[acl], query: { 'list-type': '2' }, credentials: who(w) });
    const head = await s3Request(ctx.server, { method: 'HEAD', bucket: buckets[acl], credentials: who(w) });
    const loc = await s3Request(ctx.server, { method: 'GET', bucket: buckets[acl], query: 'location', credentials: who(w) });
    if (allowed) {
      expect(list.status).toBe(200);
      expect(list.text()).toContain('<Key>obj-private</Key>');
      expect(head.status).toBe(200);
      expect(loc.status).toBe(200);
    } else {
      expectS3Error(list, 403, 'AccessDenied');
      expectS3Error(head, 403, 'AccessDenied', 'HEAD');
      expectS3Error(loc, 403, 'AccessDenied');
    }
  });
});

describe('bucket ACL decides writes', () => {
  it.each(cases)('%s bucket, %s caller: PutObject and DeleteObject', async (acl, w) => {
    const key = `written-by-${w}`;
    const put = await s3Request(ctx.server, { method: 'PUT', bucket: buckets[acl], key, body: 'w', credentials: who(w) });
    // without ownership controls (S3's ObjectWriter) another account owns what it writes, and only it
    // may read it back; an anonymous write is the bucket owner's (docs/COMPAT.md)
    const reader = WRITE[acl][w] && w === 'other' ? other : undefined;
    const stored = await s3Request(ctx.server, { method: 'HEAD', bucket: buckets[acl], key, credentials: reader });
    if (reader) expect((await s3Request(ctx.server, { method: 'HEAD', bucket: buckets[acl], key })).status).toBe(403);
    const del = await s3Request(ctx.server, { method: 'DELETE', bucket: buckets[acl], key: 'obj-private', credentials: who(w) });
    const still = await s3Request(ctx.server, { method: 'HEAD', bucket: buckets[acl], key: 'obj-private' });
    if (WRITE[acl][w]) {
      expect(put.status).toBe(200);
      expect(stored.status).toBe(200);
      expect(del.status).toBe(204);
      expect(still.status).toBe(404);
      // restore for the other cases
      await s3Request(ctx.server, { method: 'PUT', bucket: buckets[acl], key: 'obj-private', body: 'private', headers: { 'x-amz-acl': 'private' } });
    } else {
      expectS3Error(put, 403, 'AccessDenied');
      expect(stored.status).toBe(404);
      expectS3Error(del, 403, 'AccessDenied');
      expect(still.status).toBe(200);
    }
  });
});

describe('object ACL decides object reads (a public bucket does not make objects public)', () => {
  const objectRead: Record<string, Record<Who, boolean>> = {
    'obj-private': { other: false, anonymous: false },
    'obj-public-read': { other: true, anonymous: true },
    'obj-authenticated-read': { other: true, anonymous: false },
  };
  it.each(Object.keys(objectRead).flatMap((k) => (['other', 'anonymous'] as Who[]).map((w) => [k, w] as const)))(
    '%s, %s caller, in every bucket',
    async (key, w) => {
      for (const acl of ACLS) {
        const get = await s3Request(ctx.server, { method: 'GET', bucket: buckets[acl], key, credentials: who(w) });
        const head = await s3Request(ctx.server, { method: 'HEAD', bucket: buckets[acl], key, credentials: who(w) });
        if (objectRead[key]![w]) {
          expect(get.status, `${acl}/${key}`).toBe(200);
          expect(get.text()).toBe(key.slice(4));
          expect(head.status).toBe(200);
        } else {
          expectS3Error(get, 403, 'AccessDenied');
          expectS3Error(head, 403, 'AccessDenied', 'HEAD');
        }
      }
    },
  );

  it('a missing key is 403 without bucket READ and 404 with it', async () => {
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: buckets.private, key: 'missing', credentials: null }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: buckets['public-read'], key: 'missing', credentials: null }), 404, 'NoSuchKey');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: buckets['authenticated-read'], key: 'missing', credentials: other }), 404, 'NoSuchKey');
  });

  it('anonymous GETs may not use response-* overrides', async () => {
    const res = await s3Request(ctx.server, {
      method: 'GET',
      bucket: buckets['public-read'],
      key: 'obj-public-read',
      query: { 'response-content-type': 'text/html' },
      credentials: null,
    });
    expectS3Error(res, 400, 'InvalidRequest');
  });
});

describe('owner-only operations and ACL headers', () => {
  it('another account cannot delete even a public-read-write bucket', async () => {
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: buckets['public-read-write'], credentials: other }), 403, 'AccessDenied');
  });

  it('x-amz-grant-* headers grant; together with x-amz-acl InvalidRequest (§2.12)', async () => {
    const putPrivate = (key: string, body: string, headers: Record<string, string>) =>
      s3Request(ctx.server, { method: 'PUT', bucket: buckets.private, key, body, headers });
    const grant = await putPrivate('granted', 'g', { 'x-amz-grant-read': 'uri="http://acs.amazonaws.com/groups/global/AllUsers"' });
    expect(grant.status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: buckets.private, key: 'granted', credentials: null })).text()).toBe('g');
    const both = await putPrivate('granted-both', 'g', { 'x-amz-acl': 'public-read', 'x-amz-grant-read': 'uri="http://acs.amazonaws.com/groups/global/AllUsers"' });
    expectS3Error(both, 400, 'InvalidRequest');
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket: buckets.private, key: 'granted-both' })).status).toBe(404);
    // the grantee's value may come without quotes (as aws-cli's own examples write it)
    const bare = await putPrivate('granted-bare', 'b', {
      'x-amz-grant-read': 'uri=http://acs.amazonaws.com/groups/global/AuthenticatedUsers, uri = http://acs.amazonaws.com/groups/global/AllUsers',
    });
    expect(bare.status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: buckets.private, key: 'granted-bare', credentials: null })).text()).toBe('b');
    const garbled = await putPrivate('garbled', 'x', { 'x-amz-grant-read': 'everyone' });
    expectS3Error(garbled, 400, 'InvalidArgument');
  });

  it('rejects an unknown object canned ACL with InvalidArgument', async () => {
    const res = await s3Request(ctx.server, { method: 'PUT', bucket: buckets.private, key: 'bad-acl', body: 'x', headers: { 'x-amz-acl': 'everyone' } });
    expectS3Error(res, 400, 'InvalidArgument');
  });
});
