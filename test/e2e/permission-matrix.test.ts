// The permission matrix (issue 12 acceptance): every operation × {owner, another account,
// anonymous, wrong secret} × {each canned ACL, an explicit grant, a policy allow, a policy deny,
// public access block on}, through HTTP with real SigV4 signatures.
//
// Expected outcomes follow AWS's documented rules, written out below:
// - AWS *Canned ACL*: which groups each canned ACL grants READ / WRITE;
// - AWS *ACL overview*, "Mapping of ACL permissions and access policy permissions": which ACL
//   permission (on the bucket or on the object) each operation needs (MATRIX). Bucket WRITE grants
//   s3:PutObject and s3:DeleteObject, s3:DeleteObjectVersion to the bucket owner only; object READ
//   grants s3:GetObject, s3:GetObjectVersion and s3:GetObjectTorrent, not the tagging actions; no
//   ACL permission grants tagging, s3:AbortMultipartUpload or s3:ListMultipartUploadParts;
// - AWS *Multipart upload API and permissions*: the bucket owner and the upload's initiator may
//   abort an upload and list its parts;
// - AWS *Policy evaluation logic*: an explicit Deny beats everything, the bucket owner is allowed
//   otherwise, then an Allow from the policy or an ACL grant; the bucket owner's account alone may
//   call Get/Put/DeleteBucketPolicy and cannot be locked out of them (AWS *PutBucketPolicy*);
// - AWS *Blocking public access*: IgnorePublicAcls drops AllUsers/AuthenticatedUsers grants and
//   RestrictPublicBuckets limits a public policy to the owner's account;
// - an invalid signature fails authentication before any authorization (403 SignatureDoesNotMatch).
// A request that is allowed must not answer 403; operations of later issues answer 501 when allowed.

import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { s3Request, type S3RequestOptions } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { testAccount } from './helpers/accounts.js';
import { useTusk } from './helpers/lifecycle.js';
import { formBody, signPostPolicy } from './helpers/post-form.js';
import type { Credentials } from './helpers/server.js';
import { expectS3Error, xmlAll, xmlText } from './helpers/xml.js';
import { PENDING_OPERATIONS, type S3Operation } from '../../src/s3/operations.js';

const other = testAccount('other', '111122223333');
const ctx = useTusk({ extraAccounts: [other] });

const SCENARIOS = ['private', 'public-read', 'public-read-write', 'authenticated-read', 'grant', 'policy-allow', 'policy-deny', 'public-access-block'] as const;
type Scenario = (typeof SCENARIOS)[number];
const CALLERS = ['owner', 'other', 'anonymous', 'wrong-secret'] as const;
type Caller = (typeof CALLERS)[number];

/** ACL permission an operation needs when the caller is not the owner: AWS's ACL ↔ policy mapping. */
type Need = 'bucket:READ' | 'bucket:WRITE' | 'bucket:READ_ACP' | 'bucket:WRITE_ACP' | 'object:READ' | 'object:READ_ACP' | 'object:WRITE_ACP' | 'owner' | 'owner-only-policy' | 'signed' | 'missing-upload';

// CorsPreflight is never authenticated: test/e2e/cors.test.ts. PostObject is signed in its form body
// by the caller's key (the wrong secret fails as SignatureDoesNotMatch, anonymous sends no policy).
type MatrixOp = Exclude<S3Operation, 'CorsPreflight'>;

interface Cell {
  method: string;
  /** fresh: a new key (or bucket) per request, for operations that create or delete; form: a POST upload */
  target: 'service' | 'bucket' | 'object' | 'fresh-object' | 'fresh-bucket' | 'form';
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  need: Need;
  /** the answer when allowed, if fixed (a §1.6 stub that answers 501 by design) */
  allowedStatus?: number;
}

const MATRIX: Record<MatrixOp, Cell> = {
  ListBuckets: { method: 'GET', target: 'service', need: 'signed' },
  CreateBucket: { method: 'PUT', target: 'fresh-bucket', need: 'signed' },
  DeleteBucket: { method: 'DELETE', target: 'bucket', need: 'owner' },
  HeadBucket: { method: 'HEAD', target: 'bucket', need: 'bucket:READ' },
  GetBucketLocation: { method: 'GET', target: 'bucket', query: 'location', need: 'bucket:READ' },
  ListObjectsV2: { method: 'GET', target: 'bucket', query: 'list-type=2', need: 'bucket:READ' },
  ListObjects: { method: 'GET', target: 'bucket', need: 'bucket:READ' },
  ListObjectVersions: { method: 'GET', target: 'bucket', query: 'versions', need: 'bucket:READ' },
  ListMultipartUploads: { method: 'GET', target: 'bucket', query: 'uploads', need: 'bucket:READ' },
  PutObject: { method: 'PUT', target: 'fresh-object', body: 'x', need: 'bucket:WRITE' },
  PostObject: { method: 'POST', target: 'form', need: 'bucket:WRITE' },
  CopyObject: { method: 'PUT', target: 'fresh-object', headers: { 'x-amz-copy-source': '/b/k' }, need: 'bucket:WRITE' },
  CreateMultipartUpload: { method: 'POST', target: 'fresh-object', query: 'uploads', need: 'bucket:WRITE' },
  UploadPart: { method: 'PUT', target: 'fresh-object', query: 'partNumber=1&uploadId=u', body: 'x', need: 'bucket:WRITE' },
  UploadPartCopy: { method: 'PUT', target: 'fresh-object', query: 'partNumber=1&uploadId=u', headers: { 'x-amz-copy-source': '/b/k' }, need: 'bucket:WRITE' },
  CompleteMultipartUpload: { method: 'POST', target: 'fresh-object', query: 'uploadId=u', need: 'bucket:WRITE' },
  // an upload no one initiated: see the initiator cells below for real ones
  AbortMultipartUpload: { method: 'DELETE', target: 'fresh-object', query: 'uploadId=u', need: 'missing-upload' },
  ListParts: { method: 'GET', target: 'fresh-object', query: 'uploadId=u', need: 'missing-upload' },
  DeleteObject: { method: 'DELETE', target: 'fresh-object', need: 'bucket:WRITE' },
  DeleteObjects: { method: 'POST', target: 'bucket', query: 'delete', need: 'bucket:WRITE' },
  PutObjectTagging: { method: 'PUT', target: 'object', query: 'tagging', need: 'owner' },
  DeleteObjectTagging: { method: 'DELETE', target: 'object', query: 'tagging', need: 'owner' },
  GetObject: { method: 'GET', target: 'object', need: 'object:READ' },
  HeadObject: { method: 'HEAD', target: 'object', need: 'object:READ' },
  GetObjectTagging: { method: 'GET', target: 'object', query: 'tagging', need: 'owner' },
  GetObjectAttributes: { method: 'GET', target: 'object', query: 'attributes', headers: { 'x-amz-object-attributes': 'ETag' }, need: 'object:READ' },
  GetObjectTorrent: { method: 'GET', target: 'object', query: 'torrent', need: 'object:READ' },
  SelectObjectContent: { method: 'POST', target: 'object', query: 'select', need: 'object:READ' },
  RestoreObject: { method: 'POST', target: 'object', query: 'restore', need: 'owner' },
  GetObjectRetention: { method: 'GET', target: 'object', query: 'retention', need: 'owner' },
  PutObjectRetention: { method: 'PUT', target: 'object', query: 'retention', need: 'owner' },
  GetObjectLegalHold: { method: 'GET', target: 'object', query: 'legal-hold', need: 'owner' },
  PutObjectLegalHold: { method: 'PUT', target: 'object', query: 'legal-hold', need: 'owner' },
  GetBucketAcl: { method: 'GET', target: 'bucket', query: 'acl', need: 'bucket:READ_ACP' },
  // no ACL in the request: an allowed caller gets 400 MissingRequestBodyError and nothing changes
  PutBucketAcl: { method: 'PUT', target: 'bucket', query: 'acl', need: 'bucket:WRITE_ACP' },
  GetObjectAcl: { method: 'GET', target: 'object', query: 'acl', need: 'object:READ_ACP' },
  PutObjectAcl: { method: 'PUT', target: 'object', query: 'acl', need: 'object:WRITE_ACP' },
  GetBucketOwnershipControls: { method: 'GET', target: 'bucket', query: 'ownershipControls', need: 'owner' },
  PutBucketOwnershipControls: { method: 'PUT', target: 'bucket', query: 'ownershipControls', body: '<bad/>', need: 'owner' },
  DeleteBucketOwnershipControls: { method: 'DELETE', target: 'bucket', query: 'ownershipControls', need: 'owner' },
  GetBucketPolicy: { method: 'GET', target: 'bucket', query: 'policy', need: 'owner-only-policy' },
  PutBucketPolicy: { method: 'PUT', target: 'bucket', query: 'policy', body: '{}', need: 'owner-only-policy' },
  DeleteBucketPolicy: { method: 'DELETE', target: 'bucket', query: 'policy', need: 'owner-only-policy' },
  GetBucketPolicyStatus: { method: 'GET', target: 'bucket', query: 'policyStatus', need: 'owner' },
  GetPublicAccessBlock: { method: 'GET', target: 'bucket', query: 'publicAccessBlock', need: 'owner' },
  PutPublicAccessBlock: { method: 'PUT', target: 'bucket', query: 'publicAccessBlock', body: '<bad/>', need: 'owner' },
  DeletePublicAccessBlock: { method: 'DELETE', target: 'bucket', query: 'publicAccessBlock', need: 'owner' },
  GetBucketCors: { method: 'GET', target: 'bucket', query: 'cors', need: 'owner' },
  PutBucketCors: { method: 'PUT', target: 'bucket', query: 'cors', body: '<bad/>', need: 'owner' },
  GetBucketNotificationConfiguration: { method: 'GET', target: 'bucket', query: 'notification', need: 'owner' },
  PutBucketNotificationConfiguration: { method: 'PUT', target: 'bucket', query: 'notification', body: '<bad/>', need: 'owner' },
  // an unknown event: allowed callers get 400 instead of a stream that never ends
  ListenBucketNotification: { method: 'GET', target: 'bucket', query: 'events=s3%3ABogus', need: 'owner' },
  ListenNotification: { method: 'GET', target: 'service', query: 'events=s3%3ABogus', need: 'signed' },
  DeleteBucketCors: { method: 'DELETE', target: 'bucket', query: 'cors', need: 'owner' },
  GetBucketVersioning: { method: 'GET', target: 'bucket', query: 'versioning', need: 'owner' },
  PutBucketVersioning: { method: 'PUT', target: 'bucket', query: 'versioning', body: '<bad/>', need: 'owner' },
  GetObjectLockConfiguration: { method: 'GET', target: 'bucket', query: 'object-lock', need: 'owner' },
  PutObjectLockConfiguration: { method: 'PUT', target: 'bucket', query: 'object-lock', body: '<bad/>', need: 'owner' },
  GetBucketEncryption: { method: 'GET', target: 'bucket', query: 'encryption', need: 'owner' },
  PutBucketEncryption: { method: 'PUT', target: 'bucket', query: 'encryption', body: '<bad/>', need: 'owner' },
  DeleteBucketEncryption: { method: 'DELETE', target: 'bucket', query: 'encryption', need: 'owner' },
  GetBucketLifecycleConfiguration: { method: 'GET', target: 'bucket', query: 'lifecycle', need: 'owner' },
  PutBucketLifecycleConfiguration: { method: 'PUT', target: 'bucket', query: 'lifecycle', body: '<bad/>', need: 'owner' },
  DeleteBucketLifecycle: { method: 'DELETE', target: 'bucket', query: 'lifecycle', need: 'owner' },
  GetBucketTagging: { method: 'GET', target: 'bucket', query: 'tagging', need: 'owner' },
  PutBucketTagging: { method: 'PUT', target: 'bucket', query: 'tagging', body: '<bad/>', need: 'owner' },
  DeleteBucketTagging: { method: 'DELETE', target: 'bucket', query: 'tagging', need: 'owner' },
  GetBucketWebsite: { method: 'GET', target: 'bucket', query: 'website', need: 'owner' },
  PutBucketWebsite: { method: 'PUT', target: 'bucket', query: 'website', body: '<bad/>', need: 'owner' },
  DeleteBucketWebsite: { method: 'DELETE', target: 'bucket', query: 'website', need: 'owner' },
  GetBucketLogging: { method: 'GET', target: 'bucket', query: 'logging', need: 'owner' },
  PutBucketLogging: { method: 'PUT', target: 'bucket', query: 'logging', body: '<bad/>', need: 'owner' },
  GetBucketSubresourceStub: { method: 'GET', target: 'bucket', query: 'replication', need: 'owner' },
  PutBucketSubresourceStub: { method: 'PUT', target: 'bucket', query: 'replication', body: '<bad/>', need: 'owner', allowedStatus: 501 },
  DeleteBucketSubresourceStub: { method: 'DELETE', target: 'bucket', query: 'replication', need: 'owner' },
};

// AWS *Canned ACL* (bucket and object get the same canned ACL here) and the explicit grant
// (FULL_CONTROL to the other account): the ACL permissions a non-owner caller holds.
const READ: Need[] = ['bucket:READ', 'object:READ'];
const FULL: Need[] = ['bucket:READ', 'bucket:WRITE', 'bucket:READ_ACP', 'bucket:WRITE_ACP', 'object:READ', 'object:READ_ACP', 'object:WRITE_ACP'];
const ACL_GRANTS: Record<Scenario, Record<'other' | 'anonymous', Need[]>> = {
  private: { other: [], anonymous: [] },
  'public-read': { other: READ, anonymous: READ },
  'public-read-write': { other: [...READ, 'bucket:WRITE'], anonymous: [...READ, 'bucket:WRITE'] },
  'authenticated-read': { other: READ, anonymous: [] },
  grant: { other: FULL, anonymous: [] },
  'policy-allow': { other: [], anonymous: [] },
  // public-read-write, but the policy denies everyone everything
  'policy-deny': { other: [], anonymous: [] },
  // public-read-write and a public policy, all neutralised by IgnorePublicAcls / RestrictPublicBuckets
  'public-access-block': { other: [], anonymous: [] },
};

function expectedAllowed(op: MatrixOp, scenario: Scenario, caller: Exclude<Caller, 'wrong-secret'>): boolean {
  const need = MATRIX[op].need;
  if (need === 'signed') return caller !== 'anonymous';
  if (need === 'owner-only-policy') return caller === 'owner';
  if (scenario === 'policy-deny') return false;
  if (caller === 'owner') return true;
  if (scenario === 'policy-allow' && caller === 'other') return true;
  // no one initiated it: 404 NoSuchUpload for those who may list the bucket's uploads, else 403
  if (need === 'missing-upload') return ACL_GRANTS[scenario][caller].includes('bucket:READ');
  return ACL_GRANTS[scenario][caller].includes(need);
}

const buckets = {} as Record<Scenario, string>;
let owner = '';

function policyOf(scenario: Scenario, b: string): string | undefined {
  const resource = [`arn:aws:s3:::${b}`, `arn:aws:s3:::${b}/*`];
  const st =
    scenario === 'policy-allow' ? { Effect: 'Allow', Principal: { AWS: other.accountId }, Action: 's3:*', Resource: resource }
    : scenario === 'policy-deny' ? { Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: resource }
    : scenario === 'public-access-block' ? { Effect: 'Allow', Principal: '*', Action: 's3:*', Resource: resource }
    : undefined;
  return st && JSON.stringify({ Version: '2012-10-17', Statement: [st] });
}

function aclHeaders(scenario: Scenario): Record<string, string> {
  if (scenario === 'grant') return { 'x-amz-grant-full-control': `id="${owner}", id="${other.canonicalId}"` };
  if (scenario === 'policy-deny' || scenario === 'public-access-block') return { 'x-amz-acl': 'public-read-write' };
  if (scenario === 'policy-allow') return {};
  return { 'x-amz-acl': scenario };
}

const PAB_ALL = '<PublicAccessBlockConfiguration><BlockPublicAcls>true</BlockPublicAcls><IgnorePublicAcls>true</IgnorePublicAcls><BlockPublicPolicy>true</BlockPublicPolicy><RestrictPublicBuckets>true</RestrictPublicBuckets></PublicAccessBlockConfiguration>';

/** (Re)applies the scenario's policy and public access block; idempotent. */
async function applyBucketConfig(scenario: Scenario): Promise<void> {
  const b = buckets[scenario];
  const text = policyOf(scenario, b);
  // BlockPublicPolicy would refuse the public policy: lift the block while putting it
  if (scenario === 'public-access-block') await s3Request(ctx.server, { method: 'DELETE', bucket: b, query: 'publicAccessBlock' });
  if (text) expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'policy', body: text })).status).toBe(204);
  if (scenario === 'public-access-block') {
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'publicAccessBlock', body: PAB_ALL })).status).toBe(200);
  }
}

beforeAll(async () => {
  const list = await s3Request(ctx.server, { method: 'GET' });
  owner = /<ID>([0-9a-f]{64})<\/ID>/.exec(list.text())![1]!;
  for (const scenario of SCENARIOS) {
    const b = bucketName(`m${SCENARIOS.indexOf(scenario)}`);
    buckets[scenario] = b;
    const headers = aclHeaders(scenario);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, headers })).status).toBe(200);
    // objects take the ACL of PutObject's own headers: private objects ('public-read-write' is pointless on objects)
    const objectHeaders = scenario === 'policy-deny' || scenario === 'public-access-block' ? { 'x-amz-acl': 'public-read' } : headers;
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'k', body: 'k', headers: objectHeaders })).status).toBe(200);
    await applyBucketConfig(scenario);
  }
});

const wrongSecret = (): Credentials => ({ accessKeyId: ctx.server.root.accessKeyId, secretAccessKey: 'not-the-secret' });
function credentialsOf(caller: Caller): Credentials | null {
  switch (caller) {
    case 'owner': return ctx.server.root;
    case 'other': return other;
    case 'anonymous': return null;
    case 'wrong-secret': return wrongSecret();
  }
}

let fresh = 0;
function requestOf(op: MatrixOp, scenario: Scenario, caller: Caller): S3RequestOptions {
  const cell = MATRIX[op];
  const b = buckets[scenario];
  const base = { method: cell.method, query: cell.query, headers: cell.headers, body: cell.body, credentials: credentialsOf(caller) };
  switch (cell.target) {
    case 'service': return base;
    case 'bucket': return { ...base, bucket: b };
    case 'object': return { ...base, bucket: b, key: 'k' };
    case 'fresh-object': return { ...base, bucket: b, key: `fresh-${++fresh}` };
    case 'fresh-bucket': return { ...base, bucket: bucketName(`f${++fresh}`) };
    case 'form': {
      const key = `form-${++fresh}`;
      const creds = credentialsOf(caller);
      const fields: Array<[string, string]> = creds ? signPostPolicy(ctx.server, [{ bucket: b }, { key }], [['key', key]], { credentials: creds }) : [['key', key]];
      const form = formBody(fields, { name: 'f.bin', body: Buffer.from('form') });
      return { ...base, bucket: b, credentials: null, headers: { 'content-type': form.contentType }, body: form.body };
    }
  }
}

const pending = new Set<string>(PENDING_OPERATIONS);
const cells = (Object.keys(MATRIX) as MatrixOp[]).flatMap((op) => SCENARIOS.map((s) => [op, s] as const));

describe('permission matrix', () => {
  it.each(cells)('%s on a %s bucket', async (op, scenario) => {
    for (const caller of CALLERS) {
      const res = await s3Request(ctx.server, requestOf(op, scenario, caller));
      const where = `${op} / ${scenario} / ${caller}: ${res.status} ${res.text().slice(0, 300)}`;
      if (caller === 'wrong-secret') {
        if (MATRIX[op].method === 'HEAD') expect(res.status, where).toBe(403);
        else expectS3Error(res, 403, 'SignatureDoesNotMatch');
        continue;
      }
      if (expectedAllowed(op, scenario, caller)) {
        expect(res.status, where).not.toBe(403);
        if (pending.has(op) || MATRIX[op].allowedStatus === 501) expectS3Error(res, 501, 'NotImplemented');
        else expect(res.status, where).toBeLessThan(500);
        // the owner's deletes of configuration undo the scenario: put it back
        if (MATRIX[op].method === 'DELETE' && MATRIX[op].target === 'bucket') await applyBucketConfig(scenario);
      } else {
        expectS3Error(res, 403, 'AccessDenied', MATRIX[op].method);
      }
    }
  });

});

// Versions, tags and uploads with real resources (issue 30): the owner, and each non-owner that
// holds the bucket's WRITE (and the object's READ) — another account with a FULL_CONTROL grant,
// and another account and anonymous on a public-read-write bucket — on a versioned bucket. What
// the owner made must survive every call the mapping above does not grant.
describe('versions, tags and uploads', () => {
  const ON = '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>';
  const TAGS = '<Tagging><TagSet><Tag><Key>t</Key><Value>2</Value></Tag></TagSet></Tagging>';
  type NonOwner = 'other' | 'anonymous';
  interface Case { scenario: 'public-read-write' | 'grant'; caller: NonOwner; objectAcp: boolean }
  // objectAcp: the object's ACL also gives the caller READ_ACP and WRITE_ACP (the FULL_CONTROL grant)
  const CASES: Case[] = [
    { scenario: 'public-read-write', caller: 'other', objectAcp: false },
    { scenario: 'public-read-write', caller: 'anonymous', objectAcp: false },
    { scenario: 'grant', caller: 'other', objectAcp: true },
  ];
  const vbuckets = {} as Record<Case['scenario'], string>;
  // objects: public-read on the public bucket (AllUsers holds object READ), the grant's own elsewhere
  const objectHeaders = (scenario: Case['scenario']): Record<string, string> =>
    scenario === 'grant' ? aclHeaders('grant') : { 'x-amz-acl': 'public-read' };

  beforeAll(async () => {
    for (const scenario of ['public-read-write', 'grant'] as const) {
      const b = bucketName('vtu');
      vbuckets[scenario] = b;
      expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, headers: aclHeaders(scenario) })).status).toBe(200);
      expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'versioning', body: ON })).status).toBe(200);
    }
  });

  let n = 0;
  /** A version the owner writes (tagged t=1), its bucket, key and version id. */
  async function ownerVersion(scenario: Case['scenario']): Promise<{ bucket: string; key: string; versionId: string }> {
    const bucket = vbuckets[scenario];
    const key = `owned-${++n}`;
    const res = await s3Request(ctx.server, { method: 'PUT', bucket, key, body: 'v1', headers: { ...objectHeaders(scenario), 'x-amz-tagging': 't=1' } });
    expect(res.status).toBe(200);
    // a newer version on top: the one named by id is a noncurrent one, as after an overwrite
    expect((await s3Request(ctx.server, { method: 'PUT', bucket, key, body: 'v2', headers: objectHeaders(scenario) })).status).toBe(200);
    return { bucket, key, versionId: res.headers['x-amz-version-id'] as string };
  }
  const as = (c: Case | 'owner'): Credentials | null => credentialsOf(c === 'owner' ? 'owner' : c.caller);
  const scenarioOf = (c: Case | 'owner'): Case['scenario'] => (c === 'owner' ? 'grant' : c.scenario);
  const callers: Array<[string, Case | 'owner']> = [['the owner', 'owner'], ...CASES.map((c): [string, Case] => [`${c.caller} on a ${c.scenario} bucket`, c])];

  async function versionThere(bucket: string, key: string, versionId: string): Promise<number> {
    return (await s3Request(ctx.server, { method: 'HEAD', bucket, key, query: { versionId } })).status;
  }

  it.each(callers)('DeleteObject by version id: %s', async (_, c) => {
    const v = await ownerVersion(scenarioOf(c));
    const res = await s3Request(ctx.server, { method: 'DELETE', bucket: v.bucket, key: v.key, query: { versionId: v.versionId }, credentials: as(c) });
    if (c === 'owner') {
      expect(res.status).toBe(204);
      expect(await versionThere(v.bucket, v.key, v.versionId)).toBe(404);
    } else {
      // bucket WRITE grants s3:DeleteObjectVersion to the bucket owner only
      expectS3Error(res, 403, 'AccessDenied');
      expect(await versionThere(v.bucket, v.key, v.versionId)).toBe(200);
    }
    // without a version id the delete is s3:DeleteObject, which WRITE grants: a delete marker, nothing lost
    const plain = await s3Request(ctx.server, { method: 'DELETE', bucket: v.bucket, key: v.key, credentials: as(c) });
    expect(plain.status).toBe(204);
    expect(plain.headers['x-amz-delete-marker']).toBe('true');
  });

  it.each(callers)('DeleteObjects entries with and without a version id: %s', async (_, c) => {
    const v = await ownerVersion(scenarioOf(c));
    const w = await ownerVersion(scenarioOf(c));
    const body = `<Delete><Object><Key>${v.key}</Key><VersionId>${v.versionId}</VersionId></Object><Object><Key>${w.key}</Key></Object></Delete>`;
    const headers = { 'content-md5': createHash('md5').update(body).digest('base64') };
    const res = await s3Request(ctx.server, { method: 'POST', bucket: v.bucket, query: 'delete', body, headers, credentials: as(c) });
    expect(res.status).toBe(200);
    const xml = res.text();
    expect(xml).toContain(`<Deleted><Key>${w.key}</Key><DeleteMarker>true</DeleteMarker>`);
    if (c === 'owner') {
      expect(xml).toContain(`<Deleted><Key>${v.key}</Key><VersionId>${v.versionId}</VersionId>`);
      expect(await versionThere(v.bucket, v.key, v.versionId)).toBe(404);
    } else {
      expect(xml).toContain(`<Error><Key>${v.key}</Key><VersionId>${v.versionId}</VersionId><Code>AccessDenied</Code>`);
      expect(await versionThere(v.bucket, v.key, v.versionId)).toBe(200);
    }
  });

  it.each(callers)('reads by version id: object READ grants s3:GetObjectVersion (GetObject, HeadObject, GetObjectAttributes): %s', async (_, c) => {
    const v = await ownerVersion(scenarioOf(c));
    const q = { versionId: v.versionId };
    const get = await s3Request(ctx.server, { method: 'GET', bucket: v.bucket, key: v.key, query: q, credentials: as(c) });
    expect([get.status, get.text()]).toEqual([200, 'v1']);
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket: v.bucket, key: v.key, query: q, credentials: as(c) })).status).toBe(200);
    const attrs = await s3Request(ctx.server, { method: 'GET', bucket: v.bucket, key: v.key, query: { attributes: '', ...q }, headers: { 'x-amz-object-attributes': 'ETag' }, credentials: as(c) });
    expect(attrs.status).toBe(200);
  });

  it.each(callers)('object tagging, current and by version id: no ACL permission grants it: %s', async (_, c) => {
    const v = await ownerVersion(scenarioOf(c));
    for (const q of [{}, { versionId: v.versionId }] as Array<Record<string, string>>) {
      const at = { bucket: v.bucket, key: v.key, credentials: as(c) };
      const get = await s3Request(ctx.server, { ...at, method: 'GET', query: { tagging: '', ...q } });
      const put = await s3Request(ctx.server, { ...at, method: 'PUT', query: { tagging: '', ...q }, body: TAGS });
      const del = await s3Request(ctx.server, { ...at, method: 'DELETE', query: { tagging: '', ...q } });
      if (c === 'owner') {
        expect([get.status, put.status, del.status]).toEqual([200, 200, 204]);
        continue;
      }
      expectS3Error(get, 403, 'AccessDenied');
      expectS3Error(put, 403, 'AccessDenied');
      expectS3Error(del, 403, 'AccessDenied');
    }
    if (c !== 'owner') {
      const tags = await s3Request(ctx.server, { method: 'GET', bucket: v.bucket, key: v.key, query: { tagging: '', versionId: v.versionId } });
      expect(xmlAll(tags.text(), 'Value')).toEqual(['1']);
    }
  });

  it.each(callers)('object ACL by version id: the object\'s READ_ACP / WRITE_ACP grant s3:Get/PutObjectVersionAcl: %s', async (_, c) => {
    const v = await ownerVersion(scenarioOf(c));
    const at = { bucket: v.bucket, key: v.key, query: { acl: '', versionId: v.versionId }, credentials: as(c) };
    const get = await s3Request(ctx.server, { ...at, method: 'GET' });
    const put = await s3Request(ctx.server, { ...at, method: 'PUT', headers: objectHeaders(scenarioOf(c)) });
    if (c === 'owner' || c.objectAcp) {
      expect([get.status, put.status]).toEqual([200, 200]);
    } else {
      expectS3Error(get, 403, 'AccessDenied');
      expectS3Error(put, 403, 'AccessDenied');
    }
  });

  /** An upload initiated by `by` on a fresh key, with one part. */
  async function uploadBy(bucket: string, by: Credentials | null): Promise<{ key: string; uploadId: string }> {
    const key = `upload-${++n}`;
    const res = await s3Request(ctx.server, { method: 'POST', bucket, key, query: 'uploads', credentials: by });
    expect(res.status).toBe(200);
    const uploadId = xmlText(res.text(), 'UploadId')!;
    expect((await s3Request(ctx.server, { method: 'PUT', bucket, key, query: { partNumber: '1', uploadId }, body: 'p', credentials: by })).status).toBe(200);
    return { key, uploadId };
  }
  const listParts = (bucket: string, u: { key: string; uploadId: string }, by: Credentials | null) =>
    s3Request(ctx.server, { method: 'GET', bucket, key: u.key, query: { uploadId: u.uploadId }, credentials: by });
  const abort = (bucket: string, u: { key: string; uploadId: string }, by: Credentials | null) =>
    s3Request(ctx.server, { method: 'DELETE', bucket, key: u.key, query: { uploadId: u.uploadId }, credentials: by });

  it.each(CASES)('uploads: the owner\'s cannot be listed or aborted by $caller on a $scenario bucket', async (c) => {
    const b = vbuckets[c.scenario];
    const u = await uploadBy(b, as('owner'));
    expectS3Error(await listParts(b, u, as(c)), 403, 'AccessDenied');
    expectS3Error(await abort(b, u, as(c)), 403, 'AccessDenied');
    // still there: the owner lists its part and completes it
    const parts = await listParts(b, u, as('owner'));
    expect([parts.status, xmlAll(parts.text(), 'PartNumber')]).toEqual([200, ['1']]);
    expect((await abort(b, u, as('owner'))).status).toBe(204);
  });

  it.each(CASES)('uploads: $caller on a $scenario bucket lists and aborts its own; the owner may too', async (c) => {
    const b = vbuckets[c.scenario];
    const mine = await uploadBy(b, as(c));
    const parts = await listParts(b, mine, as(c));
    expect([parts.status, xmlAll(parts.text(), 'PartNumber')]).toEqual([200, ['1']]);
    expect((await abort(b, mine, as(c))).status).toBe(204);
    // gone: those who may list the bucket's uploads learn it is gone
    expectS3Error(await abort(b, mine, as(c)), 404, 'NoSuchUpload');
    const theirs = await uploadBy(b, as(c));
    expect((await listParts(b, theirs, as('owner'))).status).toBe(200);
    expect((await abort(b, theirs, as('owner'))).status).toBe(204);
  });

  it('uploads: one non-owner cannot list or abort another\'s, anonymous or not', async () => {
    const b = vbuckets['public-read-write'];
    for (const [by, caller] of [[other, null], [null, other]] as Array<[Credentials | null, Credentials | null]>) {
      const u = await uploadBy(b, by);
      expectS3Error(await listParts(b, u, caller), 403, 'AccessDenied');
      expectS3Error(await abort(b, u, caller), 403, 'AccessDenied');
      expect((await listParts(b, u, by)).status).toBe(200);
    }
  });
});
