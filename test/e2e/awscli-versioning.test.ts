// Debian's aws-cli against versioning, object lock and lifecycle (s3.md §3.8, §3.9, §3.12, "Tested
// by"): the s3api calls named there, including the checksum-required PUTs (botocore's Content-MD5).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAwsCli, runAws } from './helpers/clients.js';
import { bucketName, makeTempDirFixture } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';

const ctx = useTusk();
const dir = makeTempDirFixture();

async function api(args: string[]): Promise<Record<string, unknown>> {
  const res = await runAws(ctx.server, ['s3api', ...args, '--output', 'json']);
  expect(res.code, `aws s3api ${args.join(' ')}\n${res.stderr}`).toBe(0);
  const text = res.stdout.toString().trim();
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

beforeAll(() => {
  ensureAwsCli();
}, 300_000);
afterAll(() => dir.remove());

describe('aws s3api: versioning, object lock, lifecycle', () => {
  it('versions, markers, listing, permanent delete; lock configuration and retention; lifecycle', async () => {
    const bucket = bucketName('cliver');
    const file = join(dir.path, 'body');
    writeFileSync(file, 'one');
    await api(['create-bucket', '--bucket', bucket, '--object-lock-enabled-for-bucket']);
    expect(await api(['get-bucket-versioning', '--bucket', bucket])).toEqual({ Status: 'Enabled' });
    const v1 = (await api(['put-object', '--bucket', bucket, '--key', 'k e+y', '--body', file])).VersionId as string;
    const v2 = (await api(['put-object', '--bucket', bucket, '--key', 'k e+y', '--body', file])).VersionId as string;
    const marker = await api(['delete-object', '--bucket', bucket, '--key', 'k e+y']);
    expect(marker.DeleteMarker).toBe(true);
    const listed = await api(['list-object-versions', '--bucket', bucket, '--prefix', 'k']);
    expect((listed.Versions as Array<{ Key: string; VersionId: string }>).map((v) => [v.Key, v.VersionId])).toEqual([['k e+y', v2], ['k e+y', v1]]);
    expect((listed.DeleteMarkers as Array<{ VersionId: string; IsLatest: boolean }>)[0]).toMatchObject({ VersionId: marker.VersionId, IsLatest: true });

    await api(['put-object-lock-configuration', '--bucket', bucket, '--object-lock-configuration',
      '{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"GOVERNANCE","Days":1}}}']);
    expect(await api(['get-object-lock-configuration', '--bucket', bucket])).toEqual({
      ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1 } } },
    });
    const until = new Date(Date.now() + 86_400_000).toISOString();
    await api(['put-object-retention', '--bucket', bucket, '--key', 'k e+y', '--version-id', v1, '--retention', `{"Mode":"GOVERNANCE","RetainUntilDate":"${until}"}`]);
    expect(((await api(['get-object-retention', '--bucket', bucket, '--key', 'k e+y', '--version-id', v1])).Retention as { Mode: string }).Mode).toBe('GOVERNANCE');
    const refused = await runAws(ctx.server, ['s3api', 'delete-object', '--bucket', bucket, '--key', 'k e+y', '--version-id', v1]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('AccessDenied');
    await api(['delete-object', '--bucket', bucket, '--key', 'k e+y', '--version-id', v1, '--bypass-governance-retention']);
    await api(['delete-object', '--bucket', bucket, '--key', 'k e+y', '--version-id', v2]);

    await api(['put-bucket-lifecycle-configuration', '--bucket', bucket, '--lifecycle-configuration',
      '{"Rules":[{"ID":"old","Status":"Enabled","Filter":{"Prefix":"logs/"},"NoncurrentVersionExpiration":{"NoncurrentDays":30}}]}']);
    const lc = await api(['get-bucket-lifecycle-configuration', '--bucket', bucket]);
    expect(lc.Rules).toEqual([{ ID: 'old', Status: 'Enabled', Filter: { Prefix: 'logs/' }, NoncurrentVersionExpiration: { NoncurrentDays: 30 } }]);
    await api(['delete-bucket-lifecycle', '--bucket', bucket]);
    await api(['delete-object', '--bucket', bucket, '--key', 'k e+y', '--version-id', marker.VersionId as string]);
    await api(['delete-bucket', '--bucket', bucket]);
  }, 240_000);
});
