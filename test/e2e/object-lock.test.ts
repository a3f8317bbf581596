// Object lock end to end with the JS SDK (s3.md §3.0.9, §3.12; AWS Object Lock user guide): each
// retention mode and legal hold refuses what S3 refuses and allows what it allows, with S3's
// codes; default retention applies to new objects; the bucket keeps versioning Enabled and cannot
// be deleted while it holds a version.

import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectLegalHoldCommand,
  GetObjectLockConfigurationCommand,
  GetObjectRetentionCommand,
  HeadObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectLegalHoldCommand,
  PutObjectLockConfigurationCommand,
  PutObjectRetentionCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3Client, s3Request, sdkError } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { md5Base64 } from './helpers/sigv4.js';
import { useTusk } from './helpers/lifecycle.js';
import { randomCredentials } from './helpers/server.js';
import { expectS3Error, xmlText } from './helpers/xml.js';

const other = { displayName: 'other', ...randomCredentials('OTHR') };
const ctx = useTusk({ extraAccounts: [other] });
const DAY = 86_400_000;

async function lockBucket(s3: S3Client): Promise<string> {
  const Bucket = bucketName('lock');
  await s3.send(new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket: true }));
  return Bucket;
}

async function expectDenied(p: Promise<unknown>, status = 403, code = 'AccessDenied'): Promise<void> {
  const e = await sdkError(p);
  expect([e.name, e.$metadata.httpStatusCode]).toEqual([code, status]);
}

describe('object lock', () => {
  it('a lock bucket is versioned, stays Enabled, and reports its configuration', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = await lockBucket(s3);
    const config = await s3.send(new GetObjectLockConfigurationCommand({ Bucket }));
    expect(config.ObjectLockConfiguration).toEqual({ ObjectLockEnabled: 'Enabled' });
    await expectDenied(s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Suspended' } })), 409, 'InvalidBucketState');
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'x' }));
    expect(put.VersionId).toMatch(/^[0-9A-Za-z]{32}$/);

    const plain = bucketName('plain');
    await s3.send(new CreateBucketCommand({ Bucket: plain }));
    await expectDenied(s3.send(new GetObjectLockConfigurationCommand({ Bucket: plain })), 404, 'ObjectLockConfigurationNotFoundError');
    await expectDenied(
      s3.send(new PutObjectCommand({ Bucket: plain, Key: 'k', Body: 'x', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: new Date(Date.now() + DAY) })),
      400,
      'InvalidRequest',
    );
    await expectDenied(s3.send(new PutObjectLockConfigurationCommand({ Bucket: plain, ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' } })), 409, 'InvalidBucketState');
    await s3.send(new PutObjectCommand({ Bucket: plain, Key: 'k', Body: 'x' }));
    await expectDenied(s3.send(new GetObjectRetentionCommand({ Bucket: plain, Key: 'k' })), 400, 'InvalidRequest');
    // an existing bucket takes object lock once versioning is Enabled
    await s3.send(new PutBucketVersioningCommand({ Bucket: plain, VersioningConfiguration: { Status: 'Enabled' } }));
    await s3.send(new PutObjectLockConfigurationCommand({ Bucket: plain, ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' } }));
    expect((await s3.send(new GetObjectLockConfigurationCommand({ Bucket: plain }))).ObjectLockConfiguration?.ObjectLockEnabled).toBe('Enabled');
    await expectDenied(s3.send(new GetObjectRetentionCommand({ Bucket: plain, Key: 'k' })), 404, 'NoSuchObjectLockConfiguration');
    // the null version from before cannot be overwritten in place: the bucket cannot be suspended,
    // so a new write is a new version and the held null version stays
    await s3.send(new PutObjectLegalHoldCommand({ Bucket: plain, Key: 'k', VersionId: 'null', LegalHold: { Status: 'ON' } }));
    await expectDenied(s3.send(new PutBucketVersioningCommand({ Bucket: plain, VersioningConfiguration: { Status: 'Suspended' } })), 409, 'InvalidBucketState');
    const over = await s3.send(new PutObjectCommand({ Bucket: plain, Key: 'k', Body: 'new' }));
    expect(over.VersionId).not.toBe('null');
    expect(await (await s3.send(new GetObjectCommand({ Bucket: plain, Key: 'k', VersionId: 'null' }))).Body!.transformToString()).toBe('x');
    await expectDenied(s3.send(new DeleteObjectCommand({ Bucket: plain, Key: 'k', VersionId: 'null' })));
  });

  it('GOVERNANCE: no delete or shortening without the bypass header; with it, both', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = await lockBucket(s3);
    const until = new Date(Math.floor((Date.now() + DAY) / 1000) * 1000);
    const v = (await s3.send(new PutObjectCommand({ Bucket, Key: 'g', Body: 'gov', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: until }))).VersionId!;
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'g' }));
    expect([head.ObjectLockMode, head.ObjectLockRetainUntilDate?.getTime()]).toEqual(['GOVERNANCE', until.getTime()]);
    const retention = await s3.send(new GetObjectRetentionCommand({ Bucket, Key: 'g', VersionId: v }));
    expect([retention.Retention?.Mode, retention.Retention?.RetainUntilDate?.getTime()]).toEqual(['GOVERNANCE', until.getTime()]);

    const denied = await sdkError(s3.send(new DeleteObjectCommand({ Bucket, Key: 'g', VersionId: v })));
    expect([denied.name, denied.$metadata.httpStatusCode]).toEqual(['AccessDenied', 403]);
    // a delete without a version id only adds a marker: allowed
    expect((await s3.send(new DeleteObjectCommand({ Bucket, Key: 'g' }))).DeleteMarker).toBe(true);
    const shorter = new Date(until.getTime() - 3_600_000);
    await expectDenied(s3.send(new PutObjectRetentionCommand({ Bucket, Key: 'g', VersionId: v, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: shorter } })));
    const longer = new Date(until.getTime() + DAY);
    await s3.send(new PutObjectRetentionCommand({ Bucket, Key: 'g', VersionId: v, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: longer } }));
    await s3.send(new PutObjectRetentionCommand({
      Bucket, Key: 'g', VersionId: v, BypassGovernanceRetention: true, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: shorter },
    }));
    expect((await s3.send(new GetObjectRetentionCommand({ Bucket, Key: 'g', VersionId: v }))).Retention?.RetainUntilDate?.getTime()).toBe(shorter.getTime());
    // bucket cannot go while it holds the locked version
    await expectDenied(s3.send(new DeleteBucketCommand({ Bucket })), 409, 'BucketNotEmpty');
    const gone = await s3.send(new DeleteObjectCommand({ Bucket, Key: 'g', VersionId: v, BypassGovernanceRetention: true }));
    expect(gone.VersionId).toBe(v);
  });

  it('only the bucket owner may bypass GOVERNANCE retention', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('lockacl');
    await s3.send(new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket: true, ACL: 'public-read-write' }));
    const theirs = s3Client(ctx.server, { credentials: other });
    const until = new Date(Date.now() + DAY);
    const v = (await theirs.send(new PutObjectCommand({ Bucket, Key: 'o', Body: 'x', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: until }))).VersionId!;
    await expectDenied(theirs.send(new DeleteObjectCommand({ Bucket, Key: 'o', VersionId: v, BypassGovernanceRetention: true })));
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'o', VersionId: v, BypassGovernanceRetention: true }));
  });

  it('COMPLIANCE: no delete even with bypass, only extension; allowed once the date passed', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = await lockBucket(s3);
    const until = new Date(Date.now() + 3000);
    const v = (await s3.send(new PutObjectCommand({ Bucket, Key: 'c', Body: 'comp', ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: until }))).VersionId!;
    await expectDenied(s3.send(new DeleteObjectCommand({ Bucket, Key: 'c', VersionId: v })));
    await expectDenied(s3.send(new DeleteObjectCommand({ Bucket, Key: 'c', VersionId: v, BypassGovernanceRetention: true })));
    await expectDenied(s3.send(new PutObjectRetentionCommand({
      Bucket, Key: 'c', VersionId: v, BypassGovernanceRetention: true, Retention: { Mode: 'COMPLIANCE', RetainUntilDate: new Date(until.getTime() - 1000) },
    })));
    await expectDenied(s3.send(new PutObjectRetentionCommand({
      Bucket, Key: 'c', VersionId: v, BypassGovernanceRetention: true, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: new Date(until.getTime() + DAY) },
    })));
    const extended = new Date(until.getTime() + 1000);
    await s3.send(new PutObjectRetentionCommand({ Bucket, Key: 'c', VersionId: v, Retention: { Mode: 'COMPLIANCE', RetainUntilDate: extended } }));
    // the server's clock decides: once the date has passed, the version can go
    await new Promise((r) => setTimeout(r, Math.max(0, extended.getTime() - Date.now() + 200)));
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'c', VersionId: v }));
  });

  it('legal hold blocks permanent deletes, bypass or not, until it is released', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = await lockBucket(s3);
    const v = (await s3.send(new PutObjectCommand({ Bucket, Key: 'h', Body: 'held', ObjectLockLegalHoldStatus: 'ON' }))).VersionId!;
    expect((await s3.send(new GetObjectLegalHoldCommand({ Bucket, Key: 'h' }))).LegalHold?.Status).toBe('ON');
    await expectDenied(s3.send(new DeleteObjectCommand({ Bucket, Key: 'h', VersionId: v, BypassGovernanceRetention: true })));
    const other = (await s3.send(new PutObjectCommand({ Bucket, Key: 'h2', Body: 'x' }))).VersionId!;
    await expectDenied(s3.send(new GetObjectLegalHoldCommand({ Bucket, Key: 'h2' })), 404, 'NoSuchObjectLockConfiguration');
    await s3.send(new PutObjectLegalHoldCommand({ Bucket, Key: 'h2', VersionId: other, LegalHold: { Status: 'ON' } }));
    await expectDenied(s3.send(new DeleteObjectCommand({ Bucket, Key: 'h2', VersionId: other })));
    await s3.send(new PutObjectLegalHoldCommand({ Bucket, Key: 'h', VersionId: v, LegalHold: { Status: 'OFF' } }));
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'h', VersionId: v }));
    await s3.send(new PutObjectLegalHoldCommand({ Bucket, Key: 'h2', LegalHold: { Status: 'OFF' } }));
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'h2', VersionId: other }));
    await s3.send(new DeleteBucketCommand({ Bucket }));
  });

  it('default retention applies to new objects; explicit headers win', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = await lockBucket(s3);
    await s3.send(new PutObjectLockConfigurationCommand({
      Bucket,
      ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 2 } } },
    }));
    const config = await s3.send(new GetObjectLockConfigurationCommand({ Bucket }));
    expect(config.ObjectLockConfiguration?.Rule?.DefaultRetention).toEqual({ Mode: 'GOVERNANCE', Days: 2 });
    const before = Date.now();
    const v = (await s3.send(new PutObjectCommand({ Bucket, Key: 'd', Body: 'default' }))).VersionId!;
    const r = await s3.send(new GetObjectRetentionCommand({ Bucket, Key: 'd' }));
    expect(r.Retention?.Mode).toBe('GOVERNANCE');
    const t = r.Retention!.RetainUntilDate!.getTime();
    expect(t).toBeGreaterThanOrEqual(before + 2 * DAY - 1000);
    expect(t).toBeLessThanOrEqual(Date.now() + 2 * DAY);
    await expectDenied(s3.send(new DeleteObjectCommand({ Bucket, Key: 'd', VersionId: v })));
    const explicit = new Date(Math.floor((Date.now() + 5 * DAY) / 1000) * 1000);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'e', Body: 'x', ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: explicit }));
    const e = await s3.send(new GetObjectRetentionCommand({ Bucket, Key: 'e' }));
    expect([e.Retention?.Mode, e.Retention?.RetainUntilDate?.getTime()]).toEqual(['COMPLIANCE', explicit.getTime()]);
    // as S3: a body that gets a retention (here the default) or a legal hold must bring a digest
    const bare = (headers: Record<string, string> = {}) => s3Request(ctx.server, { method: 'PUT', bucket: Bucket, key: 'raw', body: 'raw', headers });
    expectS3Error(await bare(), 400, 'InvalidRequest');
    expectS3Error(await bare({ 'x-amz-object-lock-legal-hold': 'ON' }), 400, 'InvalidRequest');
    expect((await bare({ 'content-md5': md5Base64('raw') })).status).toBe(200);
  });

  it('refuses malformed lock input with S3 codes', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = await lockBucket(s3);
    const past = new Date(Date.now() - 1000);
    await expectDenied(s3.send(new PutObjectCommand({ Bucket, Key: 'p', Body: 'x', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: past })), 400, 'InvalidArgument');
    const onlyMode = await s3Request(ctx.server, { method: 'PUT', bucket: Bucket, key: 'm', body: 'x', headers: { 'x-amz-object-lock-mode': 'GOVERNANCE' } });
    expectS3Error(onlyMode, 400, 'InvalidArgument');
    const badHold = await s3Request(ctx.server, { method: 'PUT', bucket: Bucket, key: 'm', body: 'x', headers: { 'x-amz-object-lock-legal-hold': 'MAYBE' } });
    expectS3Error(badHold, 400, 'InvalidArgument');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'm', Body: 'x' }));
    const body = '<Retention><Mode>FOREVER</Mode><RetainUntilDate>2999-01-01T00:00:00Z</RetainUntilDate></Retention>';
    const bad = await s3Request(ctx.server, {
      method: 'PUT', bucket: Bucket, key: 'm', query: 'retention', body, headers: { 'content-md5': md5Base64(body) },
    });
    expectS3Error(bad, 400, 'MalformedXML');
    const rule = '<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days><Years>1</Years></DefaultRetention></Rule></ObjectLockConfiguration>';
    const lockPut = (b: string, headers: Record<string, string> = { 'content-md5': md5Base64(b) }) =>
      s3Request(ctx.server, { method: 'PUT', bucket: Bucket, query: 'object-lock', body: b, headers });
    expectS3Error(await lockPut(rule), 400, 'MalformedXML');
    // AWS requires an integrity check on these PUTs, and verifies it
    expectS3Error(await lockPut(rule, {}), 400, 'InvalidRequest');
    expectS3Error(await lockPut(rule, { 'content-md5': md5Base64('other') }), 400, 'BadDigest');
    const zero = rule.replace('<Years>1</Years>', '').replace('<Days>1</Days>', '<Days>0</Days>');
    expectS3Error(await lockPut(zero), 400, 'InvalidArgument');
  });

  it('checks the lock headers\' values before refusing them on a bucket without object lock, in S3\'s order', async () => {
    const Bucket = bucketName('nolock');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: Bucket })).status).toBe(200);
    const put = (headers: Record<string, string>) =>
      s3Request(ctx.server, { method: 'PUT', bucket: Bucket, key: 'k', body: 'x', headers: { 'content-md5': md5Base64('x'), ...headers } });
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const cases: Array<[Record<string, string>, string, string | undefined, string]> = [
      [{ 'x-amz-object-lock-mode': 'abc', 'x-amz-object-lock-retain-until-date': 'abc' }, 'must be provided in ISO 8601 format', 'x-amz-object-lock-retain-until-date', 'InvalidArgument'],
      [{ 'x-amz-object-lock-mode': 'abc', 'x-amz-object-lock-retain-until-date': '2025-12-25T12:00:00Z' }, 'must be in the future', 'x-amz-object-lock-retain-until-date', 'InvalidArgument'],
      [{ 'x-amz-object-lock-mode': 'abc', 'x-amz-object-lock-retain-until-date': future }, 'Unknown wormMode directive', 'x-amz-object-lock-mode', 'InvalidArgument'],
      [{ 'x-amz-object-lock-legal-hold': 'wrong', 'content-md5': '' }, 'Legal Hold must be either of', 'x-amz-object-lock-legal-hold', 'InvalidArgument'],
      [{ 'x-amz-object-lock-mode': 'GOVERNANCE', 'x-amz-object-lock-retain-until-date': future }, 'Bucket is missing Object Lock Configuration', undefined, 'InvalidRequest'],
      [{ 'x-amz-object-lock-legal-hold': 'ON' }, 'Bucket is missing Object Lock Configuration', undefined, 'InvalidRequest'],
    ];
    for (const [headers, message, argument, code] of cases) {
      const res = await put(Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== '')));
      expectS3Error(res, 400, code);
      expect(xmlText(res.text(), 'Message')).toContain(message);
      if (argument) expect(xmlText(res.text(), 'ArgumentName')).toBe(argument);
    }
    expect((await s3Request(ctx.server, { method: 'GET', bucket: Bucket, key: 'k' })).status).toBe(404);
    // nor does a delete there take the governance bypass
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: Bucket, key: 'd', body: 'x' })).status).toBe(200);
    const bypass = { 'x-amz-bypass-governance-retention': 'true' };
    const refused = expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: Bucket, key: 'd', headers: bypass }), 400, 'InvalidArgument');
    expect(refused.message).toContain('only applicable to Object Lock enabled buckets');
    expect((await s3Request(ctx.server, { method: 'GET', bucket: Bucket, key: 'd' })).status).toBe(200);
  });
});
