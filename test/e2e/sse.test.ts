// Encryption at rest (issue 13 §5): SSE-S3 by header and by bucket default, SSE-C with the key
// checked on every read, ranges across blocks, and segment files that hold no plaintext.

import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateBucketCommand,
  DeleteBucketEncryptionCommand,
  GetBucketEncryptionCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketEncryptionCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName, randomBody } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const SIZE = 300_000; // past four 64 KiB blocks, the last one short

/** Every segment file's bytes. */
function storedBytes(server: TuskServer): Buffer {
  const dir = join(server.dataDir, 'segments');
  return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
}

/** True when some 32-byte window of `plain` (sampled every 4 KiB) is in the stored bytes. */
function leaks(stored: Buffer, plain: Buffer): boolean {
  for (let at = 0; at + 32 <= plain.length; at += 4096) if (stored.includes(plain.subarray(at, at + 32))) return true;
  return false;
}

const RANGES: Array<[number, number]> = [
  [0, 0],
  [65_530, 65_545], // across the first block boundary
  [131_072, 196_607], // exactly the third block
  [10, SIZE - 1],
  [SIZE - 7, SIZE - 1], // inside the short last block
];

async function bytesOf(s3: S3Client, input: ConstructorParameters<typeof GetObjectCommand>[0]): Promise<Buffer> {
  const got = await s3.send(new GetObjectCommand(input));
  return Buffer.from(await got.Body!.transformToByteArray());
}

describe('encryption at rest', () => {
  let server: TuskServer;
  let s3: S3Client;
  const bucket = bucketName('sse');

  beforeAll(async () => {
    server = await startTusk({ extraArgs: ['--allow-sse-c-over-http'] });
    s3 = s3Client(server);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(async () => {
    s3?.destroy();
    await server?.dispose();
  });

  it('SSE-S3: round trip with ranges, plaintext sizes in HEAD and listings, no plaintext on disk', async () => {
    const body = randomBody(SIZE);
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'sse-s3', Body: body, ServerSideEncryption: 'AES256' }));
    expect(put.ServerSideEncryption).toBe('AES256');
    expect(put.ETag).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
    expect(await bytesOf(s3, { Bucket: bucket, Key: 'sse-s3' })).toEqual(body);
    for (const [a, b] of RANGES) {
      expect(await bytesOf(s3, { Bucket: bucket, Key: 'sse-s3', Range: `bytes=${a}-${b}` }), `${a}-${b}`).toEqual(body.subarray(a, b + 1));
    }
    expect(await bytesOf(s3, { Bucket: bucket, Key: 'sse-s3', Range: 'bytes=-100' })).toEqual(body.subarray(SIZE - 100));
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'sse-s3' }));
    expect([head.ContentLength, head.ServerSideEncryption]).toEqual([SIZE, 'AES256']);
    const list = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'sse-s3' }));
    expect(list.Contents?.[0]?.Size).toBe(SIZE);
    expect(leaks(storedBytes(server), body)).toBe(false);
    // the check itself finds plaintext when it is there
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'clear', Body: body.subarray(0, 70_000) }));
    expect(leaks(storedBytes(server), body.subarray(0, 70_000))).toBe(true);
  });

  it('bucket default encryption applies to new objects until it is deleted; SSE-KMS is refused clearly', async () => {
    const b = bucketName('sse-default');
    await s3.send(new CreateBucketCommand({ Bucket: b }));
    await expect(s3.send(new GetBucketEncryptionCommand({ Bucket: b }))).rejects.toMatchObject({ name: 'ServerSideEncryptionConfigurationNotFoundError' });
    await s3.send(new PutBucketEncryptionCommand({
      Bucket: b,
      ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    }));
    const conf = await s3.send(new GetBucketEncryptionCommand({ Bucket: b }));
    expect(conf.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm).toBe('AES256');
    const body = randomBody(100_000);
    const put = await s3.send(new PutObjectCommand({ Bucket: b, Key: 'by-default', Body: body }));
    expect(put.ServerSideEncryption).toBe('AES256');
    expect(await bytesOf(s3, { Bucket: b, Key: 'by-default', Range: 'bytes=65000-66000' })).toEqual(body.subarray(65_000, 66_001));
    expect(leaks(storedBytes(server), body)).toBe(false);
    await s3.send(new DeleteBucketEncryptionCommand({ Bucket: b }));
    const plain = await s3.send(new PutObjectCommand({ Bucket: b, Key: 'after', Body: 'clear' }));
    expect(plain.ServerSideEncryption).toBeUndefined();
    // the object written under the default stays encrypted and readable
    expect((await s3.send(new HeadObjectCommand({ Bucket: b, Key: 'by-default' }))).ServerSideEncryption).toBe('AES256');

    await expect(s3.send(new PutBucketEncryptionCommand({
      Bucket: b,
      ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } }] },
    }))).rejects.toMatchObject({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } });
    await expect(s3.send(new PutObjectCommand({ Bucket: b, Key: 'kms', Body: 'x', ServerSideEncryption: 'aws:kms' }))).rejects.toMatchObject({ name: 'NotImplemented' });
    const bad = await s3Request(server, { method: 'PUT', bucket: b, key: 'bad', body: 'x', headers: { 'x-amz-server-side-encryption': 'AES512' } });
    expect(bad.status).toBe(400);
  });

  it('SSE-C: round trip with ranges, the key is required and checked on every read, no plaintext on disk', async () => {
    const key = randomBytes(32);
    const sseC = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64') } as const;
    const body = randomBody(SIZE);
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'sse-c', Body: body, ...sseC }));
    expect(put.SSECustomerAlgorithm).toBe('AES256');
    expect(put.SSECustomerKeyMD5).toBe(createHash('md5').update(key).digest('base64'));
    // the ETag says nothing about the plaintext
    expect(put.ETag).not.toBe(`"${createHash('md5').update(body).digest('hex')}"`);
    expect(await bytesOf(s3, { Bucket: bucket, Key: 'sse-c', ...sseC })).toEqual(body);
    for (const [a, b] of RANGES) {
      expect(await bytesOf(s3, { Bucket: bucket, Key: 'sse-c', Range: `bytes=${a}-${b}`, ...sseC })).toEqual(body.subarray(a, b + 1));
    }
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'sse-c', ...sseC }));
    expect([head.ContentLength, head.SSECustomerKeyMD5]).toEqual([SIZE, put.SSECustomerKeyMD5]);
    await expect(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'sse-c' }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    const wrongKey = randomBytes(32).toString('base64');
    await expect(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'sse-c', SSECustomerAlgorithm: 'AES256', SSECustomerKey: wrongKey }))).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'sse-c', SSECustomerAlgorithm: 'AES256', SSECustomerKey: wrongKey }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
    // SSE-C headers on an object stored otherwise
    await expect(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'sse-s3', ...sseC }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    expect(leaks(storedBytes(server), body)).toBe(false);

    // a key MD5 that does not match the key
    const mismatch = await s3Request(server, {
      method: 'PUT', bucket, key: 'md5', body: 'x',
      headers: { 'x-amz-server-side-encryption-customer-algorithm': 'AES256', 'x-amz-server-side-encryption-customer-key': key.toString('base64'), 'x-amz-server-side-encryption-customer-key-md5': createHash('md5').update('other').digest('base64') },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.toString()).toContain('did not match');
  });

  it('SSE-C is refused over plain HTTP without --allow-sse-c-over-http, as S3 does', async () => {
    const plain = await startTusk();
    try {
      const b = bucketName('ssec-http');
      const client = s3Client(plain);
      await client.send(new CreateBucketCommand({ Bucket: b }));
      await expect(client.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'x', SSECustomerAlgorithm: 'AES256', SSECustomerKey: randomBytes(32).toString('base64') }))).rejects.toMatchObject({
        name: 'InvalidRequest',
        message: expect.stringMatching(/secure connection/),
      });
      client.destroy();
    } finally {
      await plain.dispose();
    }
  });

  it('restarts with the same master key (created once, mode 0600)', async () => {
    const keyFile = join(server.dataDir, 'sse-master.key');
    const { statSync } = await import('node:fs');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const before = readFileSync(keyFile);
    await server.stop();
    server = await startTusk({ dataDir: server.dataDir, root: server.root, extraArgs: ['--allow-sse-c-over-http'] });
    s3.destroy();
    s3 = s3Client(server);
    expect(readFileSync(keyFile)).toEqual(before);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'sse-s3' }));
    expect(head.ContentLength).toBe(SIZE);
    expect((await bytesOf(s3, { Bucket: bucket, Key: 'sse-s3', Range: 'bytes=65530-65545' })).length).toBe(16);
  });
});
