// Bucket operations through the SDK and raw requests: s3.md §3.1–3.5.

import {
  CreateBucketCommand,
  DeleteBucketTaggingCommand,
  GetBucketTaggingCommand,
  PutBucketTaggingCommand,
  GetBucketLocationCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  PutObjectCommand,
  DeleteObjectCommand,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { s3Client, s3Request, sdkError } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { testAccount } from './helpers/accounts.js';
import { randomCredentials, startTusk } from './helpers/server.js';
import { expectS3Error, xmlAll, xmlText } from './helpers/xml.js';

const other = { displayName: 'other', ...randomCredentials('OTHR') };
const owned = testAccount('owned', '123456789012');
const lister = { displayName: 'lister', ...randomCredentials('LIST') };
const ctx = useTusk({ extraAccounts: [other, owned, lister] });

describe('CreateBucket', () => {
  it('answers 200 with Location: /<bucket> and an empty body (§3.2)', async () => {
    const b = bucketName();
    const res = await s3Request(ctx.server, { method: 'PUT', bucket: b });
    expect(res.status).toBe(200);
    expect(res.headers['location']).toBe(`/${b}`);
    expect(res.headers['content-length']).toBe('0');
    expect(res.body.length).toBe(0);
  });

  it('works through the SDK with a canned ACL and the object-lock flag', async () => {
    const s3 = s3Client(ctx.server);
    const b = bucketName();
    const out = await s3.send(new CreateBucketCommand({ Bucket: b, ACL: 'public-read', ObjectLockEnabledForBucket: true }));
    expect(out.Location).toBe(`/${b}`);
    await s3.send(new HeadBucketCommand({ Bucket: b }));
    // the lock flag is stored: GET ?object-lock reports it (§3.0.9) unless that operation is still stubbed
    const lock = await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'object-lock' });
    if (lock.status !== 501) {
      expect(lock.status).toBe(200);
      expect(xmlText(lock.text(), 'ObjectLockEnabled')).toBe('Enabled');
    }
  });

  it('accepts a CreateBucketConfiguration for the server region and rejects others', async () => {
    const ok = await s3Request(ctx.server, {
      method: 'PUT',
      bucket: bucketName(),
      body: '<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>us-east-1</LocationConstraint></CreateBucketConfiguration>',
    });
    expect(ok.status).toBe(200);
    const bad = await s3Request(ctx.server, {
      method: 'PUT',
      bucket: bucketName(),
      body: '<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>',
    });
    expectS3Error(bad, 400, 'InvalidLocationConstraint');
    const malformed = await s3Request(ctx.server, { method: 'PUT', bucket: bucketName(), body: '<CreateBucketConfiguration><Loc' });
    expectS3Error(malformed, 400, 'MalformedXML');
  });

  it('re-create by the owner in us-east-1 answers 200; another account gets BucketAlreadyExists', async () => {
    const b = bucketName();
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b })).status).toBe(200);
    const err = expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, credentials: other }), 409, 'BucketAlreadyExists');
    expect(xmlText(err.xml, 'BucketName')).toBe(b);
  });

  it.each(['ab', 'a'.repeat(64), 'Upper', 'under_score', 'a..b', '-ab', 'ab-', '192.168.5.4', 'xn--abc', 'abc-s3alias', 'a.-b'])(
    'rejects the invalid name %s with InvalidBucketName (§1.3)',
    async (name) => {
      const res = await s3Request(ctx.server, { method: 'PUT', bucket: name });
      expectS3Error(res, 400, 'InvalidBucketName');
    },
  );

  it('rejects unknown canned ACLs with InvalidArgument and anonymous creators with AccessDenied', async () => {
    const badAcl = await s3Request(ctx.server, { method: 'PUT', bucket: bucketName(), headers: { 'x-amz-acl': 'world-writable' } });
    expectS3Error(badAcl, 400, 'InvalidArgument');
    const anon = await s3Request(ctx.server, { method: 'PUT', bucket: bucketName(), credentials: null });
    expectS3Error(anon, 403, 'AccessDenied');
  });
});

describe('DeleteBucket', () => {
  it('deletes an empty bucket with 204 and refuses a non-empty one with BucketNotEmpty', async () => {
    const s3 = s3Client(ctx.server);
    const b = bucketName();
    await s3.send(new CreateBucketCommand({ Bucket: b }));
    await s3.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'x' }));
    const full = await s3Request(ctx.server, { method: 'DELETE', bucket: b });
    const err = expectS3Error(full, 409, 'BucketNotEmpty');
    expect(xmlText(err.xml, 'BucketName')).toBe(b);
    await s3.send(new DeleteObjectCommand({ Bucket: b, Key: 'k' }));
    const res = await s3Request(ctx.server, { method: 'DELETE', bucket: b });
    expect(res.status).toBe(204);
    expect(res.headers['content-length']).toBeUndefined();
    const gone = await sdkError(s3.send(new HeadBucketCommand({ Bucket: b })));
    expect(gone.$metadata.httpStatusCode).toBe(404);
  });

  it('answers NoSuchBucket for a missing bucket and AccessDenied for another account', async () => {
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: bucketName('missing') }), 404, 'NoSuchBucket');
    const b = bucketName();
    await s3Request(ctx.server, { method: 'PUT', bucket: b });
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: b, credentials: other }), 403, 'AccessDenied');
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket: b })).status).toBe(200);
  });
});

describe('HeadBucket', () => {
  it('answers 200 with the region header, and 404 without a body for a missing bucket (§3.4)', async () => {
    const b = bucketName();
    await s3Request(ctx.server, { method: 'PUT', bucket: b });
    const ok = await s3Request(ctx.server, { method: 'HEAD', bucket: b });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-amz-bucket-region']).toBe('us-east-1');
    const missing = await s3Request(ctx.server, { method: 'HEAD', bucket: bucketName('missing') });
    expectS3Error(missing, 404, 'NoSuchBucket', 'HEAD');
  });
});

describe('x-amz-expected-bucket-owner', () => {
  it('every bucket and object operation answers 403 when the bucket belongs to another account; a copy checks its source with x-amz-source-expected-bucket-owner', async () => {
    const owner = { credentials: owned };
    const b = bucketName('owned');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, ...owner })).status).toBe(200);
    const wrong = { 'x-amz-expected-bucket-owner': '999999999999' };
    const right = { 'x-amz-expected-bucket-owner': owned.accountId };
    expectS3Error(await s3Request(ctx.server, { method: 'HEAD', bucket: b, headers: wrong, ...owner }), 403, 'AccessDenied', 'HEAD');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, headers: wrong, ...owner }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'k', body: 'v', headers: wrong, ...owner }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', ...owner }), 404, 'NoSuchKey');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'k', body: 'v', headers: right, ...owner })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', headers: right, ...owner })).text()).toBe('v');
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket: b, headers: right, ...owner })).status).toBe(200);
    const copy = (h: Record<string, string>) => s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'c', headers: { 'x-amz-copy-source': `/${b}/k`, ...h }, ...owner });
    expectS3Error(await copy({ 'x-amz-source-expected-bucket-owner': '999999999999' }), 403, 'AccessDenied');
    expect((await copy({ 'x-amz-source-expected-bucket-owner': owned.accountId })).status).toBe(200);
    // a value that is no account id (12 digits) is a bad request, not a wrong owner
    for (const value of ['a', '01234567890']) {
      expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, headers: { 'x-amz-expected-bucket-owner': value }, ...owner }), 400, 'InvalidBucketOwnerAWSAccountID');
    }
    // an anonymous caller of a public bucket is refused whatever the value (Ceph s3-tests test_expected_bucket_owner)
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, query: 'acl', headers: { 'x-amz-acl': 'public-read-write' }, ...owner })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, credentials: null })).status).toBe(200);
    for (const value of ['999999999999', `${owned.canonicalId}foo`]) {
      const headers = { 'x-amz-expected-bucket-owner': value };
      expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, headers, credentials: null }), 403, 'AccessDenied');
      expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'anon', body: 'x', headers, credentials: null }), 403, 'AccessDenied');
    }
    expect((await s3Request(ctx.server, { method: 'GET', bucket: b, headers: right, credentials: null })).status).toBe(200);
  });
});

describe('bucket tagging', () => {
  it('Put/Get/DeleteBucketTagging through the SDK: NoSuchTagSet until set, tags in key order, up to 50, 204 on delete', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('tags');
    await s3.send(new CreateBucketCommand({ Bucket }));
    const missing = await sdkError(s3.send(new GetBucketTaggingCommand({ Bucket })));
    expect([missing.name, missing.$metadata.httpStatusCode]).toEqual(['NoSuchTagSet', 404]);
    await s3.send(new PutBucketTaggingCommand({ Bucket, Tagging: { TagSet: [{ Key: 'team', Value: 'data' }, { Key: 'env', Value: '' }] } }));
    expect((await s3.send(new GetBucketTaggingCommand({ Bucket }))).TagSet).toEqual([{ Key: 'env', Value: '' }, { Key: 'team', Value: 'data' }]);
    const many = Array.from({ length: 50 }, (_, i) => ({ Key: `k${String(i).padStart(2, '0')}`, Value: 'v' }));
    await s3.send(new PutBucketTaggingCommand({ Bucket, Tagging: { TagSet: many } }));
    expect((await s3.send(new GetBucketTaggingCommand({ Bucket }))).TagSet).toHaveLength(50);
    const tooMany = await sdkError(s3.send(new PutBucketTaggingCommand({ Bucket, Tagging: { TagSet: [...many, { Key: 'one-more', Value: 'v' }] } })));
    expect([tooMany.name, tooMany.message]).toEqual(['BadRequest', 'Bucket tag count cannot be greater than 50']);
    // S3's finer answers: an empty body, the bad key named, the malformed Content-MD5 echoed
    const md5 = (text: string) => createHash('md5').update(text).digest('base64');
    const put = (body: string, headers: Record<string, string> = { 'content-md5': md5(body) }) =>
      s3Request(ctx.server, { method: 'PUT', bucket: Bucket, query: 'tagging', body, headers });
    expectS3Error(await put(''), 400, 'MissingRequestBodyError');
    const badKey = expectS3Error(await put('<Tagging><TagSet><Tag><Key>te&amp;st</Key><Value>v</Value></Tag></TagSet></Tagging>'), 400, 'InvalidTag');
    expect(xmlText(badKey.xml, 'TagKey')).toBe('te&st');
    const badMd5 = expectS3Error(await put('<Tagging><TagSet></TagSet></Tagging>', { 'content-md5': 'dummy' }), 400, 'InvalidDigest');
    expect(xmlText(badMd5.xml, 'Content-MD5')).toBe('dummy');
    const deleted = await s3.send(new DeleteBucketTaggingCommand({ Bucket }));
    expect(deleted.$metadata.httpStatusCode).toBe(204);
    expect((await sdkError(s3.send(new GetBucketTaggingCommand({ Bucket })))).name).toBe('NoSuchTagSet');
    const otherCaller = await sdkError(s3Client(ctx.server, { credentials: other }).send(new GetBucketTaggingCommand({ Bucket })));
    expect(otherCaller.$metadata.httpStatusCode).toBe(403);
  });
});

describe('ListBuckets', () => {
  it('lists only the caller’s buckets in name order', async () => {
    const mine = [bucketName('zz'), bucketName('aa')];
    for (const b of mine) await s3Request(ctx.server, { method: 'PUT', bucket: b });
    const theirs = bucketName('other');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: theirs, credentials: other })).status).toBe(200);

    const out = await s3Client(ctx.server).send(new ListBucketsCommand({}));
    const names = (out.Buckets ?? []).map((b) => b.Name!);
    for (const b of mine) expect(names).toContain(b);
    expect(names).not.toContain(theirs);
    expect(names).toEqual([...names].sort());
    expect(out.Buckets!.every((b) => b.CreationDate instanceof Date)).toBe(true);

    const otherOut = await s3Client(ctx.server, { credentials: other }).send(new ListBucketsCommand({}));
    expect(otherOut.Buckets!.map((b) => b.Name)).toEqual([theirs]);
    const raw = await s3Request(ctx.server, { method: 'GET' });
    expect(raw.text()).toContain('<ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">');
    expect(xmlAll(raw.text(), 'Name')).toEqual(names);
  });

  it('refuses anonymous callers, before a bad max-buckets', async () => {
    expectS3Error(await s3Request(ctx.server, { method: 'GET', credentials: null }), 403, 'AccessDenied');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', query: { 'max-buckets': '0' }, credentials: null }), 403, 'AccessDenied');
  });

  it('pages with max-buckets and continuation-token, filters by prefix and bucket-region, and refuses a value that is no region', async () => {
    const mine = ['a', 'b', 'c'].map((l) => bucketName(`lst${l}`)).sort();
    for (const b of mine) expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, credentials: lister })).status).toBe(200);
    const list = (query: Record<string, string>) => s3Request(ctx.server, { method: 'GET', query, credentials: lister });
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = (await list({ 'max-buckets': '2', ...(token ? { 'continuation-token': token } : {}) })).text();
      names.push(...xmlAll(page, 'Name'));
      token = xmlText(page, 'ContinuationToken');
    } while (token);
    expect(names).toEqual(mine);
    expect(xmlAll((await list({ prefix: mine[1]! })).text(), 'Name')).toEqual([mine[1]]);
    expect(xmlAll((await list({ 'bucket-region': 'us-east-1' })).text(), 'Name')).toEqual(mine);
    expect(xmlAll((await list({ 'bucket-region': 'eu-west-1' })).text(), 'Name')).toEqual([]);
    const bad = expectS3Error(await list({ 'bucket-region': 'abc' }), 400, 'InvalidArgument');
    expect(bad.message).toBe('Argument value abc is not a valid AWS Region');
    expectS3Error(await list({ 'max-buckets': '0' }), 400, 'InvalidArgument');
  });
});

describe('GetBucketLocation', () => {
  it('answers an empty LocationConstraint for us-east-1 (§3.5)', async () => {
    const b = bucketName();
    await s3Request(ctx.server, { method: 'PUT', bucket: b });
    const raw = await s3Request(ctx.server, { method: 'GET', bucket: b, query: 'location' });
    expect(raw.status).toBe(200);
    expect(raw.text()).toMatch(/<LocationConstraint xmlns="http:\/\/s3\.amazonaws\.com\/doc\/2006-03-01\/"\s*(\/>|><\/LocationConstraint>)/);
    const out = await s3Client(ctx.server).send(new GetBucketLocationCommand({ Bucket: b }));
    expect(out.LocationConstraint ?? '').toBe('');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: bucketName('missing'), query: 'location' }), 404, 'NoSuchBucket');
  });

  it('reports the configured region of a server started with --region', async () => {
    const server = await startTusk({ region: 'eu-west-1' });
    try {
      const s3 = s3Client(server);
      const b = bucketName();
      await s3.send(new CreateBucketCommand({ Bucket: b, CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }));
      const out = await s3.send(new GetBucketLocationCommand({ Bucket: b }));
      expect(out.LocationConstraint).toBe('eu-west-1');
      const head = await s3Request(server, { method: 'HEAD', bucket: b });
      expect(head.headers['x-amz-bucket-region']).toBe('eu-west-1');
      const wrongRegion = await s3Request(server, { method: 'HEAD', bucket: b, region: 'us-east-1' });
      expect(wrongRegion.status).toBe(400);
      expect(wrongRegion.headers['x-amz-bucket-region']).toBe('eu-west-1');
    } finally {
      await server.dispose();
    }
  });
});
