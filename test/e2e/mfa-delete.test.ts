// MFA delete end to end (s3.md §2.14): a device provisioned by `tusk mfa create` on the running
// server's data directory, then the JS SDK and boto3 with missing, wrong, reused and valid codes.

import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectVersionsCommand,
  GetBucketVersioningCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base32Decode, hotp, TOTP_STEP_MS } from '../../src/identity/totp.js';
import { runBoto3 } from './helpers/boto3.js';
import { REPO_ROOT } from './helpers/child-process.js';
import { s3Client, s3Request, sdkError } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import type { TuskServer } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

const ctx = useTusk();

function createDevice(server: TuskServer): { serial: string; secret: string } {
  const out = execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'tusk.js'), 'mfa', 'create', '--data-dir', server.dataDir], {
    encoding: 'utf8',
  });
  const serial = /^serial: (\S+)$/m.exec(out)?.[1];
  const secret = /^secret: ([A-Z2-7]+)/m.exec(out)?.[1];
  if (!serial || !secret) throw new Error(`unexpected tusk mfa output: ${out}`);
  return { serial, secret };
}

/** Three codes usable in a row (steps s-1, s, s+1 of the ±1 window), taken well inside a step. */
async function threeCodes(secret: string): Promise<[string, string, string]> {
  while (Date.now() % TOTP_STEP_MS > TOTP_STEP_MS - 8000) await new Promise((r) => setTimeout(r, 500));
  const step = Math.floor(Date.now() / TOTP_STEP_MS);
  const key = base32Decode(secret);
  return [hotp(key, step - 1), hotp(key, step), hotp(key, step + 1)];
}

describe('MFA delete', () => {
  it('MfaDelete is refused while the owner has no device; tusk mfa shows the secret once and stores it', async () => {
    const Bucket = bucketName('nodev');
    await s3Client(ctx.server).send(new CreateBucketCommand({ Bucket }));
    const noDevice = await s3Request(ctx.server, {
      method: 'PUT', bucket: Bucket, query: 'versioning', headers: { 'x-amz-mfa': 'arn:x 123456' },
      body: '<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>',
    });
    const err = expectS3Error(noDevice, 400, 'InvalidRequest');
    expect(err.message).toBe('MFA delete cannot be enabled: no MFA device is configured for the bucket owner');
    // MfaDelete Disabled where it is off changes nothing: no device, no code (boto3 scripts and Terraform send it)
    await s3Client(ctx.server).send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled', MFADelete: 'Disabled' } }));
    expect((await s3Client(ctx.server).send(new GetBucketVersioningCommand({ Bucket }))).Status).toBe('Enabled');
    const device = createDevice(ctx.server);
    const list = execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'tusk.js'), 'mfa', 'list', '--data-dir', ctx.server.dataDir], {
      encoding: 'utf8',
    });
    expect(list).toContain(device.serial);
    expect(list).not.toContain(device.secret);
    const file = JSON.parse(readFileSync(join(ctx.server.dataDir, 'mfa-devices.json'), 'utf8')) as { devices: Array<{ serial: string }> };
    expect(file.devices.map((d) => d.serial)).toContain(device.serial);
  });

  it('JS SDK: enabling needs a device and a code; version deletes need a fresh valid code', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('mfa');
    await s3.send(new CreateBucketCommand({ Bucket }));
    const enable = (MFA?: string, MFADelete: 'Enabled' | 'Disabled' = 'Enabled') =>
      s3.send(new PutBucketVersioningCommand({ Bucket, MFA, VersioningConfiguration: { Status: 'Enabled', MFADelete } }));
    const device = createDevice(ctx.server);
    const [older, current, newer] = await threeCodes(device.secret);
    const missing = await sdkError(enable(undefined));
    expect([missing.name, missing.message]).toEqual(['AccessDenied', 'Mfa Authentication must be used for this request']);
    await enable(`${device.serial} ${older}`);
    const state = await s3.send(new GetBucketVersioningCommand({ Bucket }));
    expect([state.Status, state.MFADelete]).toEqual(['Enabled', 'Enabled']);

    const v1 = (await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: '1' }))).VersionId!;
    const v2 = (await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: '2' }))).VersionId!;
    const noCode = await sdkError(s3.send(new DeleteObjectCommand({ Bucket, Key: 'k', VersionId: v1 })));
    expect([noCode.name, noCode.$metadata.httpStatusCode, noCode.message]).toEqual([
      'AccessDenied', 403, 'Mfa Authentication must be used for this request',
    ]);
    const wrongCode = String((Number(current) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await sdkError(s3.send(new DeleteObjectCommand({ Bucket, Key: 'k', VersionId: v1, MFA: `${device.serial} ${wrongCode === newer || wrongCode === older ? '000000' : wrongCode}` })));
    expect([wrong.name, wrong.message]).toEqual(['AccessDenied', 'The provided MFA token is invalid']);
    const otherSerial = await sdkError(s3.send(new DeleteObjectCommand({ Bucket, Key: 'k', VersionId: v1, MFA: `arn:aws:iam::1:mfa/nope ${current}` })));
    expect(otherSerial.message).toBe('The provided MFA token is invalid');
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'k', VersionId: v1, MFA: `${device.serial} ${current}` }));
    // each code works once, and an older one is not accepted after a newer one
    for (const reused of [current, older]) {
      const again = await sdkError(s3.send(new DeleteObjectCommand({ Bucket, Key: 'k', VersionId: v2, MFA: `${device.serial} ${reused}` })));
      expect(again.message).toBe('The provided MFA token is invalid');
    }
    // a marker needs no MFA; changing the versioning state does
    expect((await s3.send(new DeleteObjectCommand({ Bucket, Key: 'k' }))).DeleteMarker).toBe(true);
    const suspend = await sdkError(s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Suspended' } })));
    expect(suspend.name).toBe('AccessDenied');
    await enable(`${device.serial} ${newer}`, 'Disabled');
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket }))).MFADelete).toBe('Disabled');
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'k', VersionId: v2 }));
    for (const v of (await s3.send(new ListObjectVersionsCommand({ Bucket }))).DeleteMarkers ?? []) {
      await s3.send(new DeleteObjectCommand({ Bucket, Key: v.Key!, VersionId: v.VersionId! }));
    }
    // DeleteBucket never needs MFA, but a code sent with it is checked (§2.14)
    const badMfa = await s3Request(ctx.server, { method: 'DELETE', bucket: Bucket, headers: { 'x-amz-mfa': `${device.serial} ${current}` } });
    expectS3Error(badMfa, 403, 'AccessDenied');
    await s3.send(new DeleteBucketCommand({ Bucket }));
  });

  it('boto3: versioning scenario and MFA delete with missing, wrong, reused and valid codes', async () => {
    const device = createDevice(ctx.server);
    const out = await runBoto3(ctx.server, 'versioning.py', { BUCKET: bucketName('boto'), MFA_SERIAL: device.serial, MFA_SECRET: device.secret });
    expect(out.ok).toBe(true);
  }, 120_000);
});
