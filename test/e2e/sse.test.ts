// Encryption at rest (issue 13 §5): SSE-S3 by header and by bucket default, SSE-C with the key
// checked on every read, ranges across blocks, multipart uploads sealed part by part, and segment
// files that hold no plaintext.

import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketEncryptionCommand,
  GetObjectAttributesCommand,
  GetBucketEncryptionCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketEncryptionCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { ensureAwsCli, runAws, s3Client, s3Request } from './helpers/clients.js';
import { bucketName, randomBody } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

const SIZE = 300_000; // past four 64 KiB blocks, the last one short

/** Every segment file's bytes. */
function storedBytes(server: TuskServer): Buffer {
  const dir = join(server.dataDir, 'segments');
  return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
}

/** True when some 32-byte window of `plain` (sampled every 4 KiB, at most 64 of them) is in the stored bytes. */
function leaks(stored: Buffer, plain: Buffer): boolean {
  const step = Math.max(4096, Math.ceil(plain.length / 64));
  for (let at = 0; at + 32 <= plain.length; at += step) if (stored.includes(plain.subarray(at, at + 32))) return true;
  return false;
}

const RANGES: Array<[number, number]> = [
  [0, 0],
  [65_530, 65_545], // across the first block boundary
  [131_072, 196_607], // exactly the third block
  [10, SIZE - 1],
  [SIZE - 7, SIZE - 1], // inside the short last block
];

/** Byte equality without the matcher's element-by-element walk (slow on megabytes). */
function expectSame(got: Buffer, want: Buffer, what = ''): void {
  expect(got.length, what).toBe(want.length);
  expect(got.equals(want), what).toBe(true);
}

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
    // a read names no encryption method (S3 refuses x-amz-server-side-encryption on GET and HEAD)
    const named = await s3Request(server, { method: 'GET', bucket, key: 'sse-s3', headers: { 'x-amz-server-side-encryption': 'AES256' } });
    expectS3Error(named, 400, 'InvalidArgument');
    expect(leaks(storedBytes(server), body)).toBe(false);
    // the check itself finds plaintext when it is there
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'clear', Body: body.subarray(0, 70_000) }));
    expect(leaks(storedBytes(server), body.subarray(0, 70_000))).toBe(true);
  });

  it('bucket default encryption applies to new objects until it is deleted; dual-layer SSE-KMS is refused clearly', async () => {
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
    // in place, with the default on (as AWS): a plain object gets encrypted where it is
    await s3.send(new PutObjectCommand({ Bucket: b, Key: 'before', Body: 'clear before' }));
    await s3.send(new PutBucketEncryptionCommand({
      Bucket: b,
      ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    }));
    const inPlace = await s3.send(new CopyObjectCommand({ Bucket: b, Key: 'before', CopySource: `${b}/before` }));
    expect(inPlace.ServerSideEncryption).toBe('AES256');
    expect((await bytesOf(s3, { Bucket: b, Key: 'before' })).toString()).toBe('clear before');
    await s3.send(new DeleteBucketEncryptionCommand({ Bucket: b }));
    // the object written under the default stays encrypted and readable
    expect((await s3.send(new HeadObjectCommand({ Bucket: b, Key: 'by-default' }))).ServerSideEncryption).toBe('AES256');

    await expect(s3.send(new PutBucketEncryptionCommand({
      Bucket: b,
      ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms:dsse' } }] },
    }))).rejects.toMatchObject({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } });
    await expect(s3.send(new PutObjectCommand({ Bucket: b, Key: 'kms', Body: 'x', ServerSideEncryption: 'aws:kms:dsse' }))).rejects.toMatchObject({ name: 'NotImplemented' });
    const bad = await s3Request(server, { method: 'PUT', bucket: b, key: 'bad', body: 'x', headers: { 'x-amz-server-side-encryption': 'AES512' } });
    expect(bad.status).toBe(400);
  });

  it('SSE-S3 with a KMS key id is 400 InvalidArgument, on PUT, multipart, copy and the bucket default, and nothing is stored', async () => {
    const b = bucketName('sse-kms-id');
    await s3.send(new CreateBucketCommand({ Bucket: b }));
    const keyId = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const withId = { ServerSideEncryption: 'AES256', SSEKMSKeyId: keyId } as const;
    const INVALID_ARGUMENT = { name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } };
    const raw = await s3Request(server, {
      method: 'PUT', bucket: b, key: 'raw', body: 'x',
      headers: { 'x-amz-server-side-encryption': 'AES256', 'x-amz-server-side-encryption-aws-kms-key-id': keyId },
    });
    expectS3Error(raw, 400, 'InvalidArgument', 'PUT');
    expect(raw.body.toString()).toContain('requires HTTP header x-amz-server-side-encryption : aws:kms');
    await expect(s3.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'x', ...withId }))).rejects.toMatchObject(INVALID_ARGUMENT);
    await expect(s3.send(new CreateMultipartUploadCommand({ Bucket: b, Key: 'm', ...withId }))).rejects.toMatchObject(INVALID_ARGUMENT);
    await s3.send(new PutObjectCommand({ Bucket: b, Key: 'src', Body: 'x' }));
    await expect(s3.send(new CopyObjectCommand({ Bucket: b, Key: 'copy', CopySource: `${b}/src`, ...withId }))).rejects.toMatchObject(INVALID_ARGUMENT);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: b }));
    expect((listed.Contents ?? []).map((o) => o.Key)).toEqual(['src']);
    await expect(s3.send(new PutBucketEncryptionCommand({
      Bucket: b,
      ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256', KMSMasterKeyID: keyId } }] },
    }))).rejects.toMatchObject(INVALID_ARGUMENT);
    await expect(s3.send(new GetBucketEncryptionCommand({ Bucket: b }))).rejects.toMatchObject({ name: 'ServerSideEncryptionConfigurationNotFoundError' });
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
    // GetObjectAttributes of an SSE-C object needs its key too
    const attributes = (extra: object) => s3.send(new GetObjectAttributesCommand({ Bucket: bucket, Key: 'sse-c', ObjectAttributes: ['ObjectSize'], ...extra }));
    await expect(attributes({})).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    expect((await attributes(sseC)).ObjectSize).toBe(SIZE);
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

  it('multipart into a bucket with default encryption: each part sealed, ranges across parts, part reads, copies, awscli', async () => {
    const b = bucketName('sse-mpu');
    await s3.send(new CreateBucketCommand({ Bucket: b }));
    await s3.send(new PutBucketEncryptionCommand({
      Bucket: b,
      ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    }));
    const parts = [randomBody(5 * 1024 * 1024 + 1000), randomBody(200_001)];
    const body = Buffer.concat(parts);
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: b, Key: 'big' }));
    expect(created.ServerSideEncryption).toBe('AES256');
    const etags: string[] = [];
    const up = await s3.send(new UploadPartCommand({ Bucket: b, Key: 'big', UploadId: created.UploadId, PartNumber: 1, Body: parts[0] }));
    expect(up.ETag).toBe(`"${createHash('md5').update(parts[0]!).digest('hex')}"`);
    expect(up.ServerSideEncryption).toBe('AES256');
    etags.push(up.ETag!);
    // part 2 copied out of a larger SSE-S3 object: read with its key, sealed anew into this upload
    const source = Buffer.concat([randomBody(1000), parts[1]!, randomBody(500)]);
    await s3.send(new PutObjectCommand({ Bucket: b, Key: 'part-source', Body: source }));
    const copied = await s3.send(new UploadPartCopyCommand({
      Bucket: b, Key: 'big', UploadId: created.UploadId, PartNumber: 2, CopySource: `${b}/part-source`, CopySourceRange: `bytes=1000-${1000 + parts[1]!.length - 1}`,
    }));
    expect(copied.CopyPartResult?.ETag).toBe(`"${createHash('md5').update(parts[1]!).digest('hex')}"`);
    expect(copied.ServerSideEncryption).toBe('AES256');
    etags.push(copied.CopyPartResult!.ETag!);
    const listed = await s3.send(new ListPartsCommand({ Bucket: b, Key: 'big', UploadId: created.UploadId }));
    expect(listed.Parts?.map((p) => p.Size)).toEqual(parts.map((p) => p.length));
    const done = await s3.send(new CompleteMultipartUploadCommand({
      Bucket: b, Key: 'big', UploadId: created.UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
    }));
    expect(done.ServerSideEncryption).toBe('AES256');
    expectSame(await bytesOf(s3, { Bucket: b, Key: 'big' }), body);
    const edge = parts[0]!.length;
    for (const [a, z] of [[edge - 10, edge + 10], [edge, edge], [65_530, 65_545], [edge - 70_000, body.length - 1], [body.length - 5, body.length - 1]] as const) {
      expectSame(await bytesOf(s3, { Bucket: b, Key: 'big', Range: `bytes=${a}-${z}` }), body.subarray(a, z + 1), `${a}-${z}`);
    }
    expectSame(await bytesOf(s3, { Bucket: b, Key: 'big', PartNumber: 2 }), parts[1]!);
    const head = await s3.send(new HeadObjectCommand({ Bucket: b, Key: 'big' }));
    expect([head.ContentLength, head.ServerSideEncryption]).toEqual([body.length, 'AES256']);
    const attrs = await s3.send(new GetObjectAttributesCommand({ Bucket: b, Key: 'big', ObjectAttributes: ['ObjectSize', 'ObjectParts'] }));
    expect(attrs.ObjectSize).toBe(body.length);
    expect(leaks(storedBytes(server), body)).toBe(false);
    // a copy shares the sealed parts and reads back the same
    await s3.send(new CopyObjectCommand({ Bucket: b, Key: 'big-copy', CopySource: `${b}/big` }));
    expect(await bytesOf(s3, { Bucket: b, Key: 'big-copy', Range: `bytes=${edge - 3}-${edge + 3}` })).toEqual(body.subarray(edge - 3, edge + 4));

    // aws s3 cp splits a large file into a multipart upload by itself
    ensureAwsCli();
    const file = join(tmpdir(), `tusk-sse-mpu-${process.pid}`);
    const big = randomBody(9 * 1024 * 1024 + 17);
    writeFileSync(file, big);
    const cp = await runAws(server, ['s3', 'cp', file, `s3://${b}/cli`], { timeoutMs: 60_000 });
    expect(cp.code, cp.stderr).toBe(0);
    const cliHead = await s3.send(new HeadObjectCommand({ Bucket: b, Key: 'cli' }));
    expect([cliHead.ContentLength, cliHead.ServerSideEncryption, cliHead.ETag?.endsWith('-2"')]).toEqual([big.length, 'AES256', true]);
    expectSame(await bytesOf(s3, { Bucket: b, Key: 'cli' }), big);
  });

  it('CopyObject between encryptions: SSE-S3 shares its bytes, anything else is read with the source key and sealed anew; part copies likewise', async () => {
    const body = randomBody(SIZE);
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    const sseC = (key: Buffer) => ({ SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64') }) as const;
    const sourceKey = (key: Buffer) => ({ CopySourceSSECustomerAlgorithm: 'AES256', CopySourceSSECustomerKey: key.toString('base64') }) as const;
    const copy = (from: string, to: string, extra: object = {}) => s3.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: `${bucket}/${from}`, ...extra }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'enc-plain', Body: body }));

    // clear → SSE-S3 → SSE-S3 (shared) → SSE-C A → SSE-C B → clear, each step read back whole and in a range
    const steps: Array<[string, string, object, object | undefined, string | undefined]> = [
      ['enc-plain', 'enc-s3', { ServerSideEncryption: 'AES256' }, undefined, 'AES256'],
      ['enc-s3', 'enc-s3-again', { ServerSideEncryption: 'AES256' }, undefined, 'AES256'],
      ['enc-s3', 'enc-c-a', { ...sseC(keyA) }, sseC(keyA), undefined],
      ['enc-c-a', 'enc-c-b', { ...sourceKey(keyA), ...sseC(keyB) }, sseC(keyB), undefined],
      ['enc-c-b', 'enc-clear', { ...sourceKey(keyB) }, undefined, undefined],
    ];
    for (const [from, to, extra, read, sse] of steps) {
      const out = await copy(from, to, extra);
      expect(out.ServerSideEncryption, `${from} → ${to}`).toBe(sse);
      expectSame(await bytesOf(s3, { Bucket: bucket, Key: to, ...read }), body, `${from} → ${to}`);
      expectSame(await bytesOf(s3, { Bucket: bucket, Key: to, Range: 'bytes=65530-131080', ...read }), body.subarray(65530, 131081), `${to} range`);
    }
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'enc-clear' }))).ServerSideEncryption).toBeUndefined();
    // an SSE-C source needs its key, the right one
    await expect(copy('enc-c-a', 'nope', {})).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    await expect(copy('enc-c-a', 'nope', sourceKey(keyB))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    // a copy source key for an object not stored with SSE-C
    await expect(copy('enc-s3', 'nope', sourceKey(keyA))).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });

    // in place (as AWS): the encryption named again renews it; an SSE-C object is re-keyed or decrypted where it is
    expect((await copy('enc-s3', 'enc-s3', { ServerSideEncryption: 'AES256' })).ServerSideEncryption).toBe('AES256');
    await copy('enc-c-a', 'enc-c-a', { ...sourceKey(keyA), ...sseC(keyA) });
    await copy('enc-c-a', 'enc-c-a', { ...sourceKey(keyA), ...sseC(keyB) });
    expectSame(await bytesOf(s3, { Bucket: bucket, Key: 'enc-c-a', ...sseC(keyB) }), body, 'enc-c-a re-keyed in place');
    expect((await copy('enc-c-a', 'enc-c-a', sourceKey(keyB))).ServerSideEncryption).toBeUndefined();
    expectSame(await bytesOf(s3, { Bucket: bucket, Key: 'enc-c-a' }), body, 'enc-c-a decrypted in place');
    // a plain object copied onto itself with nothing asked for is still refused
    await expect(copy('enc-clear', 'enc-clear')).rejects.toMatchObject({ name: 'InvalidRequest', $metadata: { httpStatusCode: 400 } });

    // a part copied from an SSE-C object into an upload in clear
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'enc-parts' }));
    const part = await s3.send(new UploadPartCopyCommand({
      Bucket: bucket, Key: 'enc-parts', UploadId: upload.UploadId, PartNumber: 1, CopySource: `${bucket}/enc-c-b`, CopySourceRange: 'bytes=100-199999', ...sourceKey(keyB),
    }));
    await s3.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: 'enc-parts', UploadId: upload.UploadId, MultipartUpload: { Parts: [{ ETag: part.CopyPartResult!.ETag!, PartNumber: 1 }] },
    }));
    expectSame(await bytesOf(s3, { Bucket: bucket, Key: 'enc-parts' }), body.subarray(100, 200_000));
  });

  it('SSE-C multipart: every part brings the upload\'s key, reads need it', async () => {
    const key = randomBytes(32);
    const sseC = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64') } as const;
    const parts = [randomBody(5 * 1024 * 1024), randomBody(70_000)];
    const body = Buffer.concat(parts);
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mpu-c', ...sseC }));
    expect(created.SSECustomerKeyMD5).toBe(createHash('md5').update(key).digest('base64'));
    // without the key, or with another one, a part is refused
    await expect(s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'mpu-c', UploadId: created.UploadId, PartNumber: 1, Body: parts[0] }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 400 },
    });
    await expect(s3.send(new UploadPartCommand({
      Bucket: bucket, Key: 'mpu-c', UploadId: created.UploadId, PartNumber: 1, Body: parts[0], SSECustomerAlgorithm: 'AES256', SSECustomerKey: randomBytes(32).toString('base64'),
    }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) {
      const up = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'mpu-c', UploadId: created.UploadId, PartNumber: i + 1, Body: part, ...sseC }));
      expect(up.ETag).not.toBe(`"${createHash('md5').update(part).digest('hex')}"`);
      etags.push(up.ETag!);
    }
    const complete = { Bucket: bucket, Key: 'mpu-c', UploadId: created.UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } };
    // Complete may bring the key (newer SDKs do), but not another one
    await expect(s3.send(new CompleteMultipartUploadCommand({ ...complete, SSECustomerAlgorithm: 'AES256', SSECustomerKey: randomBytes(32).toString('base64') })))
      .rejects.toMatchObject({ name: 'InvalidRequest', $metadata: { httpStatusCode: 400 } });
    await s3.send(new CompleteMultipartUploadCommand({ ...complete, ...sseC }));
    // and older clients (awscli's s3transfer before 0.7) complete without it, as S3 allows
    const small = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mpu-c-small', ...sseC }));
    const one = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'mpu-c-small', UploadId: small.UploadId, PartNumber: 1, Body: parts[1], ...sseC }));
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: 'mpu-c-small', UploadId: small.UploadId, MultipartUpload: { Parts: [{ ETag: one.ETag, PartNumber: 1 }] } }));
    expectSame(await bytesOf(s3, { Bucket: bucket, Key: 'mpu-c-small', ...sseC }), parts[1]!);
    const edge = parts[0]!.length;
    expect(await bytesOf(s3, { Bucket: bucket, Key: 'mpu-c', Range: `bytes=${edge - 100}-${edge + 100}`, ...sseC })).toEqual(body.subarray(edge - 100, edge + 101));
    expectSame(await bytesOf(s3, { Bucket: bucket, Key: 'mpu-c', ...sseC }), body);
    await expect(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'mpu-c' }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    expect(leaks(storedBytes(server), body)).toBe(false);
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
