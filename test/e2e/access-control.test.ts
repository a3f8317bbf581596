// ACL calls, ownership controls, bucket policies and the public access block through HTTP
// (issue 12; s3.md §2.11–2.13, §3.10; AWS *PutBucketPolicy*, *PutPublicAccessBlock*).

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { testAccount } from './helpers/accounts.js';
import { useTusk } from './helpers/lifecycle.js';
import { expectS3Error, xmlAll, xmlText } from './helpers/xml.js';

const other = testAccount('other', '111122223333');
const ctx = useTusk({ extraAccounts: [other] });
const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';

async function newBucket(label: string, headers: Record<string, string> = {}): Promise<string> {
  const b = bucketName(label);
  expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, headers })).status).toBe(200);
  return b;
}

async function put(bucket: string, key: string, body = key, headers: Record<string, string> = {}) {
  return s3Request(ctx.server, { method: 'PUT', bucket, key, body, headers });
}

function acp(ownerId: string, grants: string): string {
  return `<AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>${ownerId}</ID></Owner><AccessControlList>${grants}</AccessControlList></AccessControlPolicy>`;
}
const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const userGrant = (id: string, perm: string) => `<Grant><Grantee ${XSI} xsi:type="CanonicalUser"><ID>${id}</ID></Grantee><Permission>${perm}</Permission></Grant>`;
const emailGrant = (email: string, perm: string) => `<Grant><Grantee ${XSI} xsi:type="AmazonCustomerByEmail"><EmailAddress>${email}</EmailAddress></Grantee><Permission>${perm}</Permission></Grant>`;
const groupGrant = (uri: string, perm: string) => `<Grant><Grantee ${XSI} xsi:type="Group"><URI>${uri}</URI></Grantee><Permission>${perm}</Permission></Grant>`;

function deleteBatch(bucket: string, objects: Array<{ key: string; versionId?: string; etag?: string }>, credentials?: typeof other) {
  const entry = (o: { key: string; versionId?: string; etag?: string }) =>
    `<Object><Key>${o.key}</Key>${o.versionId ? `<VersionId>${o.versionId}</VersionId>` : ''}${o.etag ? `<ETag>${o.etag}</ETag>` : ''}</Object>`;
  const body = `<Delete>${objects.map(entry).join('')}</Delete>`;
  const md5 = createHash('md5').update(body).digest('base64');
  return s3Request(ctx.server, { method: 'POST', bucket, query: 'delete', body, headers: { 'content-md5': md5 }, credentials });
}

async function rootCanonicalId(): Promise<string> {
  const res = await s3Request(ctx.server, { method: 'GET' });
  return xmlText(res.text(), 'ID')!;
}

describe('ACL calls', () => {
  it('GetBucketAcl renders the canned ACL with canonical ids and display names', async () => {
    const b = await newBucket('acl', { 'x-amz-acl': 'public-read' });
    const res = await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'acl' });
    expect(res.status).toBe(200);
    const xml = res.text();
    expect(xml).toContain('<Owner><ID>' + (await rootCanonicalId()) + '</ID><DisplayName>root</DisplayName></Owner>');
    expect(xmlAll(xml, 'Permission')).toEqual(['FULL_CONTROL', 'READ']);
    expect(xml).toContain(`<URI>${ALL_USERS}</URI>`);
  });

  it('PutBucketAcl with an AccessControlPolicy body grants another account (by e-mail) bucket READ', async () => {
    const b = await newBucket('aclbody');
    const owner = await rootCanonicalId();
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' }, credentials: other }), 403, 'AccessDenied');
    const res = await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', body: acp(owner, userGrant(owner, 'FULL_CONTROL') + emailGrant(other.email, 'READ')) });
    expect(res.status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' }, credentials: other })).status).toBe(200);
    const got = (await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'acl' })).text();
    // the e-mail grantee is stored as the account's canonical user
    expect(got).toContain(`<ID>${other.canonicalId}</ID><DisplayName>other</DisplayName>`);
    // READ on the bucket is not READ_ACP nor WRITE
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'acl', credentials: other }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'x', body: 'x', credentials: other }), 403, 'AccessDenied');
  });

  it('PutObjectAcl / GetObjectAcl: canned, grant headers and per-object READ_ACP', async () => {
    const b = await newBucket('objacl');
    expect((await put(b, 'k', 'hello')).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'k', query: 'acl', headers: { 'x-amz-acl': 'public-read' } })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null })).text()).toBe('hello');
    const grants = await s3Request(ctx.server, {
      method: 'PUT', bucket: b, key: 'k', query: 'acl',
      headers: { 'x-amz-grant-read': `id="${other.canonicalId}"`, 'x-amz-grant-read-acp': `emailAddress="${other.email}"` },
    });
    expect(grants.status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: other })).text()).toBe('hello');
    const acl = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', query: 'acl', credentials: other });
    expect(acl.status).toBe(200);
    expect(xmlAll(acl.text(), 'Permission')).toEqual(['READ', 'READ_ACP']);
    // READ_ACP is not WRITE_ACP
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'k', query: 'acl', headers: { 'x-amz-acl': 'private' }, credentials: other }), 403, 'AccessDenied');
  });

  it('CreateBucket with x-amz-grant-* headers grants from the start', async () => {
    const b = await newBucket('aclcreate', { 'x-amz-grant-read': `id="${other.canonicalId}"`, 'x-amz-grant-write': `emailAddress="${other.email}"` });
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' }, credentials: other })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'by-other', body: 'o', credentials: other })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' }, credentials: null }), 403, 'AccessDenied');
    expect(xmlAll((await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'acl' })).text(), 'Permission')).toEqual(['READ', 'WRITE']);
  });

  it('ACL errors: MalformedACLError, UnresolvableGrantByEmailAddress, UnexpectedContent, MissingRequestBodyError, InvalidArgument', async () => {
    const b = await newBucket('aclerr');
    const owner = await rootCanonicalId();
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', body: '<AccessControlPolicy><AccessControlList><Grant>' }), 400, 'MalformedACLError');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', body: acp(owner, groupGrant(ALL_USERS, 'EVERYTHING')) }), 400, 'MalformedACLError');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', body: acp(owner, emailGrant('nobody@example.com', 'READ')) }), 400, 'UnresolvableGrantByEmailAddress');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', headers: { 'x-amz-acl': 'private' }, body: acp(owner, '') }), 400, 'UnexpectedContent');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl' }), 400, 'MissingRequestBodyError');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', headers: { 'x-amz-grant-read': 'id="0000"' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', body: acp(other.canonicalId, '') }), 403, 'AccessDenied');
  });
});

describe('ownership controls', () => {
  it('BucketOwnerEnforced disables ACLs: no grant counts, ACL-setting calls fail, reading ACLs works', async () => {
    const b = await newBucket('own', { 'x-amz-acl': 'public-read' });
    expect((await put(b, 'pub', 'p', { 'x-amz-acl': 'public-read' })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'pub', credentials: null })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'ownershipControls' }), 404, 'OwnershipControlsNotFoundError');
    const body = '<OwnershipControls xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership></Rule></OwnershipControls>';
    // the bucket ACL still grants AllUsers: S3 refuses
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'ownershipControls', body }), 400, 'InvalidBucketAclWithObjectOwnership');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', headers: { 'x-amz-acl': 'private' } })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'ownershipControls', body })).status).toBe(200);
    expect(xmlText((await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'ownershipControls' })).text(), 'ObjectOwnership')).toBe('BucketOwnerEnforced');
    // the object's public-read grant no longer counts
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'pub', credentials: null }), 403, 'AccessDenied');
    expectS3Error(await put(b, 'x', 'x', { 'x-amz-acl': 'public-read' }), 400, 'AccessControlListNotSupported');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'pub', query: 'acl', headers: { 'x-amz-acl': 'public-read' } }), 400, 'AccessControlListNotSupported');
    expect((await put(b, 'x', 'x', { 'x-amz-acl': 'bucket-owner-full-control' })).status).toBe(200);
    const shown = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'pub', query: 'acl' });
    expect(xmlAll(shown.text(), 'Permission')).toEqual(['FULL_CONTROL']);
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'ownershipControls', body: '<OwnershipControls><Rule><ObjectOwnership>Nope</ObjectOwnership></Rule></OwnershipControls>' }), 400, 'MalformedXML');
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, query: 'ownershipControls' })).status).toBe(204);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'pub', credentials: null })).status).toBe(200);
  });
});

function policy(bucket: string, statements: object[]): string {
  return JSON.stringify({ Version: '2012-10-17', Statement: statements });
}

describe('bucket policies', () => {
  it('Put/Get/Delete and GetBucketPolicyStatus; errors NoSuchBucketPolicy and MalformedPolicy', async () => {
    const b = await newBucket('pol');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'policy' }), 404, 'NoSuchBucketPolicy');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'policyStatus' }), 404, 'NoSuchBucketPolicy');
    const text = policy(b, [{ Sid: 'pub', Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    const got = await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'policy' });
    expect(got.text()).toBe(text);
    expect(xmlText((await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'policyStatus' })).text(), 'IsPublic')).toBe('true');
    for (const bad of [
      '{not json',
      policy(b, [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::another-bucket/*' }]),
      policy(b, [{ Effect: 'Allow', Principal: '*', Action: 'ec2:RunInstances', Resource: `arn:aws:s3:::${b}/*` }]),
      policy(b, [{ Effect: 'Maybe', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }]),
      policy(b, [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { StringSortOf: { 's3:prefix': 'a' } } }]),
    ]) {
      expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: bad }), 400, 'MalformedPolicy');
    }
    // another account may not even read the policy, whatever the policy says (AWS *GetBucketPolicy*)
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'policy', credentials: other }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, query: 'policy' })).status).toBe(204);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'policy' }), 404, 'NoSuchBucketPolicy');
  });

  it('a prefix grant to another account, a public read with a condition, and an explicit deny that beats the owner', async () => {
    const b = await newBucket('polx');
    for (const k of ['shared/a', 'private/b', 'public/c']) expect((await put(b, k)).status).toBe(200);
    const text = policy(b, [
      { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${other.accountId}:root` }, Action: ['s3:GetObject', 's3:PutObject'], Resource: `arn:aws:s3:::${b}/shared/*` },
      { Effect: 'Allow', Principal: { AWS: other.accountId }, Action: 's3:ListBucket', Resource: `arn:aws:s3:::${b}`, Condition: { StringLike: { 's3:prefix': 'shared/*' } } },
      { Effect: 'Allow', Principal: '*', Action: 's3:Get*', Resource: `arn:aws:s3:::${b}/public/*`, Condition: { IpAddress: { 'aws:SourceIp': ['127.0.0.0/8', '::1/128'] } } },
      { Effect: 'Deny', Principal: '*', Action: 's3:*', NotResource: [`arn:aws:s3:::${b}`, `arn:aws:s3:::${b}/shared/*`, `arn:aws:s3:::${b}/public/*`, `arn:aws:s3:::${b}/private/*`] },
      { Effect: 'Deny', Principal: '*', Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${b}/private/*`, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
    ]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    // the IpAddress condition pins the caller, so the policy is not public
    expect(xmlText((await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'policyStatus' })).text(), 'IsPublic')).toBe('false');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'shared/a', credentials: other })).text()).toBe('shared/a');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'shared/new', body: 'n', credentials: other })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'private/b', credentials: other }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'private/x', body: 'n', credentials: other }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2', prefix: 'shared/' }, credentials: other })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2', prefix: 'private/' }, credentials: other }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' }, credentials: other }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'public/c', credentials: null })).text()).toBe('public/c');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'shared/a', credentials: null }), 403, 'AccessDenied');
    // explicit deny wins even for the owner: plain HTTP is not secure transport
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'private/b' }), 403, 'AccessDenied');
    expectS3Error(await put(b, 'elsewhere/z'), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'shared/a' })).status).toBe(204);
    // …but never out of the policy calls themselves
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, query: 'policy' })).status).toBe(204);
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'private/b' })).status).toBe(204);
  });

  it('DeleteObjects checks each key (s3:DeleteObject, s3:DeleteObjectVersion); reads and deletes by version id are their own actions', async () => {
    const b = await newBucket('poldel');
    const on = '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>';
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'versioning', body: on })).status).toBe(200);
    const ids: Record<string, string> = {};
    for (const k of ['keep/a', 'free/b', 'free/c']) {
      const res = await put(b, k);
      expect(res.status).toBe(200);
      ids[k] = res.headers['x-amz-version-id'] as string;
    }
    const text = policy(b, [
      { Effect: 'Deny', Principal: '*', Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${b}/keep/*` },
      { Effect: 'Deny', Principal: '*', Action: 's3:DeleteObjectVersion', Resource: `arn:aws:s3:::${b}/*` },
      { Effect: 'Allow', Principal: { AWS: other.accountId }, Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` },
    ]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    const batch = (objects: Array<{ key: string; versionId?: string }>) => deleteBatch(b, objects);
    // the owner's batch: the denied key fails alone, the others go (a marker each)
    const res = await batch([{ key: 'keep/a' }, { key: 'free/b' }, { key: 'free/c', versionId: ids['free/c'] }]);
    expect(res.status).toBe(200);
    const xml = res.text();
    expect(xmlAll(xml, 'Deleted').length).toBe(1);
    expect(xml).toContain('<Deleted><Key>free/b</Key><DeleteMarker>true</DeleteMarker>');
    expect(xml).toContain('<Error><Key>keep/a</Key><Code>AccessDenied</Code>');
    expect(xml).toContain(`<Error><Key>free/c</Key><VersionId>${ids['free/c']}</VersionId><Code>AccessDenied</Code>`);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'keep/a' })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'free/c', query: { versionId: ids['free/c']! } })).status).toBe(200);
    // a single delete by version id is s3:DeleteObjectVersion too; without one it adds a marker
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'free/c', query: { versionId: ids['free/c']! } }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'free/c' })).status).toBe(204);
    // s3:GetObject reads the current version; a version by id needs s3:GetObjectVersion
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'keep/a', credentials: other })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'keep/a', query: { versionId: ids['keep/a']! }, credentials: other }), 403, 'AccessDenied');
    // a copy's source named by version id is read with s3:GetObjectVersion too
    const dest = await newBucket('poldeldest');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: dest, key: 'c', headers: { 'x-amz-copy-source': `/${b}/keep/a` } })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: dest, key: 'c', headers: { 'x-amz-copy-source': `/${b}/keep/a?versionId=${ids['keep/a']}` } })).status).toBe(200);
    const denyVersions = policy(b, [{ Effect: 'Deny', Principal: '*', Action: 's3:GetObjectVersion', Resource: `arn:aws:s3:::${b}/*` }]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: denyVersions })).status).toBe(204);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: dest, key: 'c', headers: { 'x-amz-copy-source': `/${b}/keep/a` } })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: dest, key: 'c', headers: { 'x-amz-copy-source': `/${b}/keep/a?versionId=${ids['keep/a']}` } }), 403, 'AccessDenied');
  });

  it('DeleteObjects needs no bucket-level right: a policy allowing s3:DeleteObject on a prefix lets another account batch-delete there, and only there', async () => {
    const b = await newBucket('polprefixdel');
    for (const k of ['partner/a', 'partner/b', 'private/c']) expect((await put(b, k)).status).toBe(200);
    // without any right the whole request is refused, as before the body is read
    expectS3Error(await deleteBatch(b, [{ key: 'partner/a' }], other), 403, 'AccessDenied');
    const text = policy(b, [{ Effect: 'Allow', Principal: { AWS: other.accountId }, Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${b}/partner/*` }]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    const res = await deleteBatch(b, [{ key: 'partner/a' }, { key: 'private/c' }, { key: 'partner/b' }], other);
    expect(res.status).toBe(200);
    const xml = res.text();
    expect(xmlAll(xml, 'Deleted').length).toBe(2);
    expect(xml).toContain('<Deleted><Key>partner/a</Key></Deleted>');
    expect(xml).toContain('<Error><Key>private/c</Key><Code>AccessDenied</Code>');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'partner/a' })).status).toBe(404);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'private/c' })).status).toBe(200);
    // the right to delete is not the right to do anything else with the bucket
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' }, credentials: other }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'partner/x', body: 'x', credentials: other }), 403, 'AccessDenied');
  });

  it('conditional deletes: s3:if-match in conditions, and an ETag condition needs s3:GetObject too (AWS *Enforce conditional deletes*)', async () => {
    const b = await newBucket('polcond');
    const etags: Record<string, string> = {};
    for (const k of ['a', 'b', 'c', 'd', 'e']) etags[k] = (await put(b, k)).headers['etag'] as string;
    // another account may delete only with If-Match (the Null condition); reading is not granted yet
    const onlyConditional = { Effect: 'Allow', Principal: { AWS: other.accountId }, Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { Null: { 's3:if-match': 'false' } } };
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: policy(b, [onlyConditional]) })).status).toBe(204);
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'a', credentials: other }), 403, 'AccessDenied');
    // If-Match: * checks existence only, so s3:DeleteObject is enough
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'a', headers: { 'if-match': '*' }, credentials: other })).status).toBe(204);
    // an ETag is read from the object: without s3:GetObject it is refused and nothing is deleted
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'b', headers: { 'if-match': etags['b']! }, credentials: other }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'b' })).status).toBe(200);
    let xml = (await deleteBatch(b, [{ key: 'c', etag: etags['c'] }, { key: 'd' }, { key: 'e', etag: '*' }], other)).text();
    expect(xml).toContain('<Error><Key>c</Key><Code>AccessDenied</Code>');
    expect(xml).toContain('<Error><Key>d</Key><Code>AccessDenied</Code>');
    expect(xml).toContain('<Deleted><Key>e</Key></Deleted>');
    // with s3:GetObject granted as well, ETag-conditional deletes go through (and still check the ETag)
    const read = { Effect: 'Allow', Principal: { AWS: other.accountId }, Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` };
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: policy(b, [onlyConditional, read]) })).status).toBe(204);
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'b', headers: { 'if-match': '"0123456789abcdef0123456789abcdef"' }, credentials: other }), 412, 'PreconditionFailed');
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, key: 'b', headers: { 'if-match': etags['b']! }, credentials: other })).status).toBe(204);
    xml = (await deleteBatch(b, [{ key: 'c', etag: etags['c'] }, { key: 'd' }], other)).text();
    expect(xml).toContain('<Deleted><Key>c</Key></Deleted>');
    expect(xml).toContain('<Error><Key>d</Key><Code>AccessDenied</Code>');
    for (const [k, status] of [['b', 404], ['c', 404], ['d', 200]] as const) {
      expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: k })).status).toBe(status);
    }
  });

  it('conditional writes: a Deny where s3:if-none-match is Null lets only PUTs with If-None-Match through (AWS *Enforce conditional writes*)', async () => {
    const b = await newBucket('polcondput');
    const deny = { Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { Null: { 's3:if-none-match': 'true' } } };
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: policy(b, [deny]) })).status).toBe(204);
    expectS3Error(await put(b, 'k'), 403, 'AccessDenied');
    expect((await put(b, 'k', 'k', { 'if-none-match': '*' })).status).toBe(200);
    expectS3Error(await put(b, 'k', 'k', { 'if-none-match': '*' }), 412, 'PreconditionFailed');
  });

  it('tag conditions: s3:ExistingObjectTag/<key> reads the object\'s tags, s3:RequestObjectTag/<key> the x-amz-tagging header', async () => {
    const b = await newBucket('poltag');
    expect((await put(b, 'plain')).status).toBe(200);
    expect((await put(b, 'secret', 'secret', { 'x-amz-tagging': 'Class=secret&owner=ops' })).status).toBe(200);
    const text = policy(b, [
      { Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { StringEquals: { 's3:ExistingObjectTag/Class': 'secret' } } },
      { Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { StringEquals: { 's3:RequestObjectTag/team': 'blocked' } } },
    ]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'plain' })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'secret' }), 403, 'AccessDenied');
    expectS3Error(await put(b, 'new', 'n', { 'x-amz-tagging': 'team=blocked' }), 403, 'AccessDenied');
    expect((await put(b, 'new', 'n', { 'x-amz-tagging': 'team=ok' })).status).toBe(200);
    // retagging the object lifts the deny
    const tagging = '<Tagging><TagSet><Tag><Key>Class</Key><Value>public</Value></Tag></TagSet></Tagging>';
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'secret', query: 'tagging', body: tagging })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'secret' })).text()).toBe('secret');
  });

  it('a missing key is 404 for a caller the policy lets list the bucket, 403 otherwise', async () => {
    const b = await newBucket('pol404');
    const text = policy(b, [
      // ListBucket is decided on the bucket's ARN even when the request names a key
      { Effect: 'Allow', Principal: { AWS: other.accountId }, Action: 's3:ListBucket', Resource: `arn:aws:s3:::${b}` },
      { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` },
    ]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'missing', credentials: other }), 404, 'NoSuchKey');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'missing', credentials: null }), 403, 'AccessDenied');
  });

  it('a ListBucket allowed under an s3:prefix tells of missing keys under that prefix only', async () => {
    const b = await newBucket('polpfx');
    const text = policy(b, [
      { Effect: 'Allow', Principal: { AWS: '*' }, Action: 's3:ListBucket', Resource: `arn:aws:s3:::${b}`, Condition: { StringLike: { 's3:prefix': 'public/*' } } },
    ]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket: b, key: 'public/object', credentials: other })).status).toBe(404);
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket: b, key: 'private/object', credentials: other })).status).toBe(403);
    // the listing itself still goes by the prefix asked for
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, query: { prefix: 'public/' }, credentials: other })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: { prefix: 'private/' }, credentials: other }), 403, 'AccessDenied');
  });

  it('SSE-C and object-lock condition keys: a Deny where s3:x-amz-server-side-encryption-customer-algorithm is Null', async () => {
    const b = await newBucket('polssec');
    const text = policy(b, [
      { Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { Null: { 's3:x-amz-server-side-encryption-customer-algorithm': 'true' } } },
    ]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    expectS3Error(await put(b, 'clear'), 403, 'AccessDenied');
    // the condition passes; the write then fails as SSE-C over plain HTTP does (400), not as a denial
    const key = Buffer.alloc(32, 7);
    const sseC = {
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key': key.toString('base64'),
      'x-amz-server-side-encryption-customer-key-md5': createHash('md5').update(key).digest('base64'),
    };
    expect((await put(b, 'sealed', 'x', sseC)).status).toBe(400);
  });

  it('date, string and Null conditions', async () => {
    const b = await newBucket('polc');
    expect((await put(b, 'k')).status).toBe(200);
    const future = new Date(Date.now() + 3600_000).toISOString();
    const text = policy(b, [
      { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { DateLessThan: { 'aws:CurrentTime': future }, StringEquals: { 'aws:UserAgent': 'good-agent' } } },
      { Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:PutObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { Null: { 's3:x-amz-acl': 'true' } } },
    ]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null, headers: { 'user-agent': 'good-agent' } })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null, headers: { 'user-agent': 'bad-agent' } }), 403, 'AccessDenied');
    expectS3Error(await put(b, 'no-acl'), 403, 'AccessDenied');
    expect((await put(b, 'with-acl', 'w', { 'x-amz-acl': 'private' })).status).toBe(200);
  });
});

describe('public access block', () => {
  const pab = (flags: Partial<Record<'BlockPublicAcls' | 'IgnorePublicAcls' | 'BlockPublicPolicy' | 'RestrictPublicBuckets', boolean>>) =>
    `<PublicAccessBlockConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${Object.entries(flags).map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</PublicAccessBlockConfiguration>`;

  it('each switch, and Get/Delete', async () => {
    const b = await newBucket('pab', { 'x-amz-acl': 'public-read' });
    expect((await put(b, 'pub', 'p', { 'x-amz-acl': 'public-read' })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'publicAccessBlock' }), 404, 'NoSuchPublicAccessBlockConfiguration');

    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'publicAccessBlock', body: pab({ BlockPublicAcls: true }) })).status).toBe(200);
    const got = (await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'publicAccessBlock' })).text();
    expect(got).toContain('<BlockPublicAcls>true</BlockPublicAcls><IgnorePublicAcls>false</IgnorePublicAcls>');
    expectS3Error(await put(b, 'x', 'x', { 'x-amz-acl': 'public-read' }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', headers: { 'x-amz-acl': 'public-read-write' } }), 403, 'AccessDenied');
    // existing public grants still count under BlockPublicAcls alone
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'pub', credentials: null })).status).toBe(200);

    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'publicAccessBlock', body: pab({ IgnorePublicAcls: true }) })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'pub', credentials: null }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, query: { 'list-type': '2' }, credentials: null }), 403, 'AccessDenied');

    const publicPolicy = policy(b, [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }]);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'publicAccessBlock', body: pab({ BlockPublicPolicy: true }) })).status).toBe(200);
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: publicPolicy }), 403, 'AccessDenied');

    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'publicAccessBlock', body: pab({ RestrictPublicBuckets: true }) })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: publicPolicy })).status).toBe(204);
    expect((await put(b, 'priv')).status).toBe(200);
    // the public policy serves only the owner's account; the ACL of 'pub' still counts (it is not a policy)
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'priv', credentials: other }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'priv', credentials: null }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'pub', credentials: null })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'priv' })).status).toBe(200);

    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'publicAccessBlock', body: pab({ BlockPublicAcls: 'yes' as unknown as boolean }) }), 400, 'MalformedXML');
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket: b, query: 'publicAccessBlock' })).status).toBe(204);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'priv', credentials: other })).status).toBe(200);
  });
});
