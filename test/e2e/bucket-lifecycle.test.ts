// Lifecycle rules end to end with a shortened day (`--lifecycle-day 2s`): configuration round trip
// and errors, current-version expiration with prefix and size filters, noncurrent expiration with
// NewerNoncurrentVersions, expired delete-marker removal, abort of incomplete multipart uploads,
// x-amz-expiration, and object lock winning.

import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketLifecycleCommand,
  ListMultipartUploadsCommand,
  DeleteObjectCommand,
  GetBucketLifecycleConfigurationCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  ListObjectsV2Command,
  PutBucketLifecycleConfigurationCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type LifecycleRule,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3Client, s3Request, sdkError } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { md5Base64 } from './helpers/sigv4.js';
import { expectS3Error } from './helpers/xml.js';

const DAY_MS = 2000;
const ctx = useTusk({ extraArgs: ['--lifecycle-day', `${DAY_MS}ms`, '--lifecycle-interval', '300ms'] });

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; server said: ${ctx.server.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function keys(Bucket: string): Promise<string[]> {
  const out = await s3Client(ctx.server).send(new ListObjectsV2Command({ Bucket }));
  return (out.Contents ?? []).map((c) => c.Key!);
}

async function versionIds(Bucket: string, Prefix = ''): Promise<string[]> {
  const out = await s3Client(ctx.server).send(new ListObjectVersionsCommand({ Bucket, Prefix }));
  return [...(out.DeleteMarkers ?? []), ...(out.Versions ?? [])].map((v) => v.VersionId!);
}

async function configure(Bucket: string, Rules: LifecycleRule[]): Promise<void> {
  await s3Client(ctx.server).send(new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules } }));
}

describe('bucket lifecycle', () => {
  it('round-trips the configuration and refuses bad rules', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('lcconf');
    await s3.send(new CreateBucketCommand({ Bucket }));
    expect((await sdkError(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket })))).name).toBe('NoSuchLifecycleConfiguration');
    const rules: LifecycleRule[] = [
      { ID: 'logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 30 } },
      {
        ID: 'big-tagged',
        Status: 'Disabled',
        Filter: { And: { Prefix: 'data/', Tags: [{ Key: 'class', Value: 'tmp' }], ObjectSizeGreaterThan: 1024 } },
        NoncurrentVersionExpiration: { NoncurrentDays: 7, NewerNoncurrentVersions: 2 },
      },
      { ID: 'markers', Status: 'Enabled', Filter: {}, Expiration: { ExpiredObjectDeleteMarker: true }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 3 } },
      { ID: 'dated', Status: 'Enabled', Filter: { ObjectSizeLessThan: 10 }, Expiration: { Date: new Date('2030-01-01T00:00:00Z') } },
    ];
    await configure(Bucket, rules);
    const got = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }));
    expect(got.Rules).toEqual(rules);
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket }));
    expect((await sdkError(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket })))).name).toBe('NoSuchLifecycleConfiguration');

    const put = (body: string) =>
      s3Request(ctx.server, { method: 'PUT', bucket: Bucket, query: 'lifecycle', body, headers: { 'content-md5': md5Base64(body) } });
    const rule = (inner: string) => `<LifecycleConfiguration><Rule><ID>r</ID><Filter></Filter><Status>Enabled</Status>${inner}</Rule></LifecycleConfiguration>`;
    expectS3Error(await put(rule('<Expiration><Days>0</Days></Expiration>')), 400, 'InvalidArgument');
    expectS3Error(await put(rule('<Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date></Expiration>')), 400, 'MalformedXML');
    expectS3Error(await put(rule('<Expiration><Date>2030-01-01T12:00:00Z</Date></Expiration>')), 400, 'InvalidArgument');
    expectS3Error(await put(rule('')), 400, 'InvalidArgument');
    expectS3Error(await put('<LifecycleConfiguration><Rule><Status>On</Status></Rule></LifecycleConfiguration>'), 400, 'MalformedXML');
    expectS3Error(await put('<LifecycleConfiguration></LifecycleConfiguration>'), 400, 'MalformedXML');
    const unchecked = await s3Request(ctx.server, { method: 'PUT', bucket: Bucket, query: 'lifecycle', body: rule('<Expiration><Days>1</Days></Expiration>') });
    expectS3Error(unchecked, 400, 'InvalidRequest');
    // a transition: 501, but a malformed one is the client's 400 first
    expectS3Error(await put(rule('<Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition>')), 501, 'NotImplemented');
    expectS3Error(await put(rule('<Transition><Date>20220927</Date><StorageClass>GLACIER</StorageClass></Transition>')), 400, 'InvalidArgument');
  });

  it('gives a rule without an ID one of its own, as S3 does', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('lcid');
    await s3.send(new CreateBucketCommand({ Bucket }));
    await configure(Bucket, [
      { Status: 'Enabled', Filter: { Prefix: 'a/' }, Expiration: { Days: 31 } },
      { ID: 'named', Status: 'Enabled', Filter: { Prefix: 'b/' }, Expiration: { Days: 120 } },
    ]);
    const rules = (await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }))).Rules!;
    expect(rules.map((r) => r.ID)).toEqual([expect.stringMatching(/^[A-Za-z0-9+/]{48}$/), 'named']);
    const again = (await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }))).Rules!;
    expect(again[0]!.ID).toBe(rules[0]!.ID);
  });

  it('expires current objects matching prefix and size; announces it in x-amz-expiration', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('lccur');
    await s3.send(new CreateBucketCommand({ Bucket }));
    await configure(Bucket, [
      { ID: 'tmp', Status: 'Enabled', Filter: { And: { Prefix: 'tmp/', ObjectSizeGreaterThan: 4 } }, Expiration: { Days: 1 } },
    ]);
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'tmp/big', Body: 'large enough' }));
    expect(put.Expiration).toMatch(/^expiry-date="[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT", rule-id="tmp"$/);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'tmp/tiny', Body: 'abc' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'keep/big', Body: 'large enough' }));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'tmp/big' }));
    expect(head.Expiration).toBe(put.Expiration);
    expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'keep/big' }))).Expiration).toBeUndefined();
    await until('tmp/big to expire', async () => !(await keys(Bucket)).includes('tmp/big'));
    expect((await keys(Bucket)).sort()).toEqual(['keep/big', 'tmp/tiny']);
  });

  it('aborts incomplete multipart uploads DaysAfterInitiation old, only under the rule prefix', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('lcmpu');
    await s3.send(new CreateBucketCommand({ Bucket }));
    await configure(Bucket, [{ ID: 'abort', Status: 'Enabled', Filter: { Prefix: 'uploads/' }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }]);
    const stale = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'uploads/stale' }));
    const other = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'elsewhere/kept' }));
    const listed = async (): Promise<string[]> =>
      ((await s3.send(new ListMultipartUploadsCommand({ Bucket }))).Uploads ?? []).map((u) => u.UploadId!);
    expect((await listed()).sort()).toEqual([stale.UploadId!, other.UploadId!].sort());
    await until('the stale upload to be aborted', async () => !(await listed()).includes(stale.UploadId!));
    expect(await listed()).toEqual([other.UploadId!]);
  });

  it('removes noncurrent versions beyond NewerNoncurrentVersions, then the expired delete marker', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('lcnc');
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await s3.send(new PutObjectCommand({ Bucket, Key: 'hist', Body: `v${i}` }))).VersionId!);
    const gone = (await s3.send(new PutObjectCommand({ Bucket, Key: 'gone', Body: 'x' }))).VersionId!;
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'gone' }));
    await configure(Bucket, [
      { ID: 'nc', Status: 'Enabled', Filter: { Prefix: 'hist' }, NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: 1 } },
      { ID: 'nc-gone', Status: 'Enabled', Filter: { Prefix: 'gone' }, NoncurrentVersionExpiration: { NoncurrentDays: 1 } },
      { ID: 'dm', Status: 'Enabled', Filter: {}, Expiration: { ExpiredObjectDeleteMarker: true } },
    ]);
    await until('old versions to go', async () => (await versionIds(Bucket, 'hist')).length === 2);
    expect(await versionIds(Bucket, 'hist')).toEqual([ids[3], ids[2]]);
    // 'gone': its only object version expires as noncurrent, then the lone marker is removed
    await until('the expired marker to go', async () => (await versionIds(Bucket, 'gone')).length === 0);
    expect((await sdkError(s3.send(new HeadObjectCommand({ Bucket, Key: 'gone', VersionId: gone })))).$metadata.httpStatusCode).toBe(404);
  });

  it('never removes a locked version', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('lclock');
    await s3.send(new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket: true }));
    const held = (await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'held', ObjectLockLegalHoldStatus: 'ON' }))).VersionId!;
    const retained = (await s3.send(new PutObjectCommand({
      Bucket, Key: 'k', Body: 'retained', ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: new Date(Date.now() + 3_600_000),
    }))).VersionId!;
    const free = (await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'free' }))).VersionId!;
    await configure(Bucket, [
      { ID: 'all', Status: 'Enabled', Filter: {}, Expiration: { Days: 1 }, NoncurrentVersionExpiration: { NoncurrentDays: 1 } },
    ]);
    // 'free' expires (a delete marker on top), then goes as noncurrent; the locked ones stay
    await until('the unlocked version to go', async () => !(await versionIds(Bucket)).includes(free));
    await new Promise((r) => setTimeout(r, 2 * DAY_MS));
    const left = await versionIds(Bucket);
    expect(left).toContain(held);
    expect(left).toContain(retained);
    expect(left).not.toContain(free);
  });
});
