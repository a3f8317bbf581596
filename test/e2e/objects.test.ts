// PutObject / GetObject / HeadObject / DeleteObject through the SDK at default settings, with the
// nasty keys of style.md §11: s3.md §3.0.1–3.0.4, §3.13–3.16.

import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { NASTY_KEYS, bucketName, crc32Base64, md5Hex, randomBody } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { md5Base64 } from './helpers/sigv4.js';
import { expectS3Error } from './helpers/xml.js';

const ctx = useTusk();
const bucket = bucketName('objects');

async function bodyOf(out: { Body?: { transformToByteArray(): Promise<Uint8Array> } }): Promise<Buffer> {
  return Buffer.from(await out.Body!.transformToByteArray());
}

beforeAll(async () => {
  await s3Client(ctx.server).send(new CreateBucketCommand({ Bucket: bucket }));
});

describe('PutObject and GetObject round trip', () => {
  it.each(NASTY_KEYS.map((k) => [k.length > 40 ? `${k.slice(0, 20)}…(${Buffer.byteLength(k)} bytes)` : k, k]))(
    'stores, reads, lists and deletes the key %s',
    async (_label, key) => {
      const s3 = s3Client(ctx.server);
      const body = randomBody(1000 + Buffer.byteLength(key));
      const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
      expect(put.ETag).toBe(`"${md5Hex(body)}"`);
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      expect(md5Hex(await bodyOf(got))).toBe(md5Hex(body));
      expect(got.ETag).toBe(put.ETag);
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key }));
      expect(listed.Contents?.map((c) => c.Key)).toContain(key);
      const del = await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      expect(del.$metadata.httpStatusCode).toBe(204);
      await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 404 },
      });
    },
  );

  it('stores Content-Type (default binary/octet-stream), system headers, metadata and storage class (§3.0.3)', async () => {
    const s3 = s3Client(ctx.server);
    // raw request: the SDK itself sends application/octet-stream when no ContentType is given
    expect((await s3Request(ctx.server, { method: 'PUT', bucket, key: 'plain', body: 'abc' })).status).toBe(200);
    const plain = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'plain' }));
    expect(plain.ContentType).toBe('binary/octet-stream');
    expect(plain.StorageClass).toBeUndefined();

    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'decorated',
        Body: 'hello',
        ContentType: 'text/plain; charset=utf-8',
        CacheControl: 'max-age=60',
        ContentDisposition: 'attachment; filename="x.txt"',
        ContentLanguage: 'en',
        StorageClass: 'STANDARD_IA',
        Metadata: { Color: 'blue', 'multi-word': 'a b  c' },
      }),
    );
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'decorated' }));
    expect(got.ContentType).toBe('text/plain; charset=utf-8');
    expect(got.CacheControl).toBe('max-age=60');
    expect(got.ContentDisposition).toBe('attachment; filename="x.txt"');
    expect(got.ContentLanguage).toBe('en');
    expect(got.StorageClass).toBe('STANDARD_IA');
    expect(got.Metadata).toEqual({ color: 'blue', 'multi-word': 'a b  c' });
    expect(got.ContentLength).toBe(5);
    expect(got.AcceptRanges).toBe('bytes');
    expect(got.LastModified).toBeInstanceOf(Date);
    expect(await got.Body!.transformToString()).toBe('hello');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'decorated' }));
    expect(listed.Contents?.[0]?.StorageClass).toBe('STANDARD_IA');
  });

  it('stores an empty object', async () => {
    const s3 = s3Client(ctx.server);
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'empty', Body: Buffer.alloc(0) }));
    expect(put.ETag).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'empty' }));
    expect(got.ContentLength).toBe(0);
    expect((await bodyOf(got)).length).toBe(0);
  });

  it('overwrites: the last PUT wins', async () => {
    const s3 = s3Client(ctx.server);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'over', Body: 'first version' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'over', Body: 'second' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'over' }));
    expect(await got.Body!.transformToString()).toBe('second');
  });

  it('verifies and echoes flexible checksums; returns them with checksum mode (§3.0.2)', async () => {
    const s3 = s3Client(ctx.server);
    const body = randomBody(70_000);
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'crc', Body: body }));
    expect(put.ChecksumCRC32).toBe(crc32Base64(body));
    const sha = createHash('sha256').update(body).digest('base64');
    const put2 = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'sha', Body: body, ChecksumSHA256: sha }));
    expect(put2.ChecksumSHA256).toBe(sha);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'sha', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumSHA256).toBe(sha);
    expect(head.ChecksumType).toBe('FULL_OBJECT');
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'crc', ChecksumMode: 'ENABLED' }));
    expect(got.ChecksumCRC32).toBe(crc32Base64(body));
    expect(md5Hex(await bodyOf(got))).toBe(md5Hex(body));
    // without checksum mode no checksum header is sent
    const plain = await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'crc' });
    expect(plain.headers['x-amz-checksum-crc32']).toBeUndefined();
  });

  it('accepts a correct Content-MD5', async () => {
    const body = Buffer.from('md5 checked');
    const res = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'md5', body, headers: { 'content-md5': md5Base64(body) } });
    expect(res.status).toBe(200);
    expect(res.headers['etag']).toBe(`"${md5Hex(body)}"`);
  });

  it('accepts UNSIGNED-PAYLOAD bodies', async () => {
    const res = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'unsigned', body: 'u', payloadHash: 'UNSIGNED-PAYLOAD' });
    expect(res.status).toBe(200);
    const got = await s3Request(ctx.server, { method: 'GET', bucket, key: 'unsigned' });
    expect(got.text()).toBe('u');
  });
});

describe('DeleteObject', () => {
  it('is idempotent: 204 for a missing key', async () => {
    const res = await s3Request(ctx.server, { method: 'DELETE', bucket, key: 'never-existed' });
    expect(res.status).toBe(204);
    expect(res.body.length).toBe(0);
  });

  it('answers NoSuchBucket for a missing bucket', async () => {
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket: bucketName('missing'), key: 'k' }), 404, 'NoSuchBucket');
  });
});

describe('GetObject errors', () => {
  it('answers NoSuchKey with the Key element', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', bucket, key: 'no such key' });
    const err = expectS3Error(res, 404, 'NoSuchKey');
    expect(err.xml).toContain('<Key>no such key</Key>');
    try {
      await s3Client(ctx.server).send(new GetObjectCommand({ Bucket: bucket, Key: 'no such key' }));
      expect.unreachable();
    } catch (e) {
      expect((e as S3ServiceException).name).toBe('NoSuchKey');
    }
  });

  it('HEAD of a missing key is a bodiless 404', async () => {
    expectS3Error(await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'nope' }), 404, 'NoSuchKey', 'HEAD');
  });
});
