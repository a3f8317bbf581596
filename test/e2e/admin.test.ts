// `tusk admin` over the admin API (issue 13 §6): accounts and keys apply at once and survive a
// restart, quotas refuse writes past them, and only the root key administers.

import { afterAll, describe, expect, it } from 'vitest';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListBucketsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { admin } from './helpers/admin-cli.js';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName, makeTempDirFixture, randomBody } from './helpers/fixtures.js';
import { startTusk, type Credentials, type TuskServer } from './helpers/server.js';

async function listsBuckets(server: TuskServer, creds: Credentials): Promise<string> {
  const client = s3Client(server, { credentials: creds });
  try {
    await client.send(new ListBucketsCommand({}));
    return 'ok';
  } catch (e) {
    return (e as Error).name;
  } finally {
    client.destroy();
  }
}

describe('tusk admin', () => {
  const dir = makeTempDirFixture();
  let server: TuskServer;
  afterAll(async () => {
    await server?.stop();
    dir.remove();
  });

  it('creates an account whose key works at once, survives a restart, rotates, disables, and stops working when deleted', async () => {
    server = await startTusk({ dataDir: dir.path });
    const created = await admin(server, ['accounts', 'create', 'alice']);
    expect(created.code, created.stderr).toBe(0);
    const alice: Credentials = { accessKeyId: created.json.accessKeyId, secretAccessKey: created.json.secretAccessKey };
    expect(alice.accessKeyId).toMatch(/^TUSK[A-Z2-7]{16}$/);
    expect(await listsBuckets(server, alice)).toBe('ok');
    const s3 = s3Client(server, { credentials: alice });
    const bucket = bucketName('adm');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    s3.destroy();

    const listed = await admin(server, ['accounts', 'list']);
    expect(listed.json.accounts).toEqual([expect.objectContaining({ displayName: 'alice', accessKeyIds: [alice.accessKeyId], disabled: false })]);
    expect(JSON.stringify(listed.json)).not.toContain(alice.secretAccessKey);
    expect((await admin(server, ['accounts', 'create', 'alice'])).stderr).toMatch(/HTTP 409/);

    // survives a restart
    await server.stop();
    server = await startTusk({ dataDir: dir.path, root: server.root });
    expect(await listsBuckets(server, alice)).toBe('ok');

    const rotated = await admin(server, ['keys', 'rotate', alice.accessKeyId]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const alice2: Credentials = { accessKeyId: rotated.json.accessKeyId, secretAccessKey: rotated.json.secretAccessKey };
    expect(await listsBuckets(server, alice)).toBe('InvalidAccessKeyId');
    expect(await listsBuckets(server, alice2)).toBe('ok');

    expect((await admin(server, ['accounts', 'disable', 'alice'])).code).toBe(0);
    expect(await listsBuckets(server, alice2)).toBe('InvalidAccessKeyId');
    expect((await admin(server, ['accounts', 'enable', 'alice'])).code).toBe(0);
    expect(await listsBuckets(server, alice2)).toBe('ok');

    const second = await admin(server, ['keys', 'create', 'alice']);
    expect(await listsBuckets(server, { accessKeyId: second.json.accessKeyId, secretAccessKey: second.json.secretAccessKey })).toBe('ok');
    expect((await admin(server, ['keys', 'delete', second.json.accessKeyId])).code).toBe(0);
    expect(await listsBuckets(server, { accessKeyId: second.json.accessKeyId, secretAccessKey: second.json.secretAccessKey })).toBe('InvalidAccessKeyId');

    // an account that owns buckets is not deleted
    expect((await admin(server, ['accounts', 'delete', 'alice'])).stderr).toMatch(/HTTP 409[\s\S]*owns 1 bucket/);
    const s3b = s3Client(server, { credentials: alice2 });
    await s3b.send(new DeleteBucketCommand({ Bucket: bucket }));
    s3b.destroy();
    expect((await admin(server, ['accounts', 'delete', 'alice'])).code).toBe(0);
    expect(await listsBuckets(server, alice2)).toBe('InvalidAccessKeyId');
    expect((await admin(server, ['accounts', 'list'])).json.accounts).toEqual([]);
  });

  it('reports bucket usage and refuses writes past a quota with 403 QuotaExceeded', async () => {
    const s3 = s3Client(server);
    const bucket = bucketName('quota');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    try {
      expect((await admin(server, ['buckets', 'quota', bucket, '--max-bytes', '10000', '--max-objects', '3'])).code).toBe(0);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: randomBody(6000) }));
      await expect(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b', Body: randomBody(6000) }))).rejects.toMatchObject({
        name: 'QuotaExceeded',
        $metadata: { httpStatusCode: 403 },
      });
      // overwriting within the quota is allowed
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: randomBody(9000) }));
      const usage = await admin(server, ['buckets', 'usage', bucket]);
      expect(usage.json).toMatchObject({ bucket, objects: 1, bytes: 9000, versions: 1, incompleteUploads: 0, quota: { maxBytes: 10000, maxObjects: 3 } });
      expect((await admin(server, ['buckets', 'quota', bucket])).json.quota).toEqual({ maxBytes: 10000, maxObjects: 3 });
      // a copy, a part and a completed multipart upload count as writes too
      await expect(s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy', CopySource: `${bucket}/a` }))).rejects.toMatchObject({ name: 'QuotaExceeded' });
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mp' }));
      await expect(s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'mp', UploadId, PartNumber: 1, Body: randomBody(2000) }))).rejects.toMatchObject({ name: 'QuotaExceeded' });
      const MiB = 1 << 20;
      expect((await admin(server, ['buckets', 'quota', bucket, '--max-bytes', String(9000 + 8 * MiB), '--max-objects', '3'])).code).toBe(0);
      const parts = [];
      for (const [PartNumber, size] of [[1, 5 * MiB], [2, 4 * MiB]] as const) {
        const { ETag } = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'mp', UploadId, PartNumber, Body: randomBody(size) }));
        parts.push({ PartNumber, ETag });
      }
      // each part fits on its own; together they pass the quota, so Complete refuses and the upload stays
      const complete = new CompleteMultipartUploadCommand({ Bucket: bucket, Key: 'mp', UploadId, MultipartUpload: { Parts: parts } });
      await expect(s3.send(complete)).rejects.toMatchObject({ name: 'QuotaExceeded' });
      expect((await admin(server, ['buckets', 'usage', bucket])).json).toMatchObject({ objects: 1, versions: 1, incompleteUploads: 1 });
      await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'mp', UploadId }));
      expect((await admin(server, ['buckets', 'quota', bucket, '--clear'])).code).toBe(0);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b', Body: randomBody(6000) }));
      expect((await admin(server, ['buckets', 'usage', 'no-such-bucket-here'])).stderr).toMatch(/HTTP 404/);
      // the WALRUS import needs a network whose Blob objects it can list: none here (no publisher)
      expect((await admin(server, ['buckets', 'walrus-import', bucket])).stderr).toMatch(/HTTP 400[\s\S]*NotAvailable/);
      expect((await admin(server, ['buckets', 'walrus-import', 'no-such-bucket-here'])).stderr).toMatch(/HTTP 404[\s\S]*NoSuchBucket/);
      for (const key of ['a', 'b']) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } finally {
      s3.destroy();
    }
  });

  it('answers info, and only to the root key', async () => {
    const info = await admin(server, ['info']);
    expect(info.json).toMatchObject({ version: expect.any(String), formatVersions: { segments: 1, index: 2 }, ready: true });
    expect(info.json.disk.freeBytes).toBeGreaterThan(0);
    expect(info.json.uptimeSeconds).toBeGreaterThanOrEqual(0);
    const wrong = await admin(server, ['info'], { accessKeyId: server.root.accessKeyId, secretAccessKey: 'not-the-secret-0000000000000000' });
    expect(wrong.stderr).toMatch(/HTTP 403[\s\S]*SignatureDoesNotMatch/);
    const unsigned = await fetch(`${server.endpoint}/tusk/admin/v1/info`);
    expect(unsigned.status).toBe(403);
    // a signed request of another key is refused as an unknown key
    const other = await s3Request(server, { method: 'GET', path: '/tusk/admin/v1/accounts', credentials: { accessKeyId: 'TUSKNOTROOT000000000', secretAccessKey: 'x'.repeat(40) } });
    expect(other.status).toBe(403);
    expect((await admin(server, ['nonsense'])).stderr).toMatch(/unknown command/);
  });

  it('routes only exact paths under /tusk/admin/v1/ (issue 30: /tusk/admin/<two characters>/info answered info)', async () => {
    const ok = await s3Request(server, { method: 'GET', path: '/tusk/admin/v1/info' });
    expect(ok.status, 'the check can pass').toBe(200);
    for (const path of ['/tusk/admin/xx/info', '/tusk/admin/v2/info', '/tusk/admin/..info', '/tusk/admin/v1/info/', '/tusk/admin/v1//info', '/tusk/admin/info']) {
      const res = await s3Request(server, { method: 'GET', path });
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.text()).error, path).toBe('NoSuchRoute');
    }
  });
});
