// aws-chunked uploads: the SDK's stream upload (STREAMING-UNSIGNED-PAYLOAD-TRAILER + CRC32 trailer)
// and the signed variants the SDK never sends, plus every way to break them: s3.md §2.6–2.8, §3.0.2.

import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { AwsCrc32c } from '@aws-crypto/crc32c';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { putAwsChunked } from './helpers/chunked.js';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName, crc32Base64, md5Hex, randomBody } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER } from './helpers/sigv4.js';
import { expectS3Error } from './helpers/xml.js';

const ctx = useTusk();
const bucket = bucketName('chunked');

async function crc32cB64(data: Buffer): Promise<string> {
  const h = new AwsCrc32c();
  h.update(data);
  return Buffer.from(await h.digest()).toString('base64');
}

async function readBack(key: string): Promise<Buffer | undefined> {
  const res = await s3Request(ctx.server, { method: 'GET', bucket, key });
  return res.status === 200 ? res.body : undefined;
}

beforeAll(async () => {
  expect((await s3Request(ctx.server, { method: 'PUT', bucket })).status).toBe(200);
});

describe('SDK stream upload', () => {
  it('sends STREAMING-UNSIGNED-PAYLOAD-TRAILER with a CRC32 trailer, and the server stores the bytes', async () => {
    const s3 = s3Client(ctx.server);
    let sentHeaders: Record<string, string> = {};
    s3.middlewareStack.add(
      (next) => async (args) => {
        sentHeaders = { ...(args.request as { headers: Record<string, string> }).headers };
        return next(args);
      },
      { step: 'deserialize', name: 'captureHeaders' },
    );
    const data = randomBody(300_001);
    const key = 'sdk stream/\u{1F418}+x';
    const put = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: Readable.from([data.subarray(0, 100_000), data.subarray(100_000)]), ContentLength: data.length }),
    );
    expect(sentHeaders['x-amz-content-sha256']).toBe(STREAMING_UNSIGNED_TRAILER);
    expect(sentHeaders['x-amz-trailer']).toBe('x-amz-checksum-crc32');
    expect(put.ETag).toBe(`"${md5Hex(data)}"`);
    expect(put.ChecksumCRC32).toBe(crc32Base64(data));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect(got.ChecksumCRC32).toBe(crc32Base64(data));
    expect(got.ContentEncoding).toBeUndefined();
    expect(md5Hex(Buffer.from(await got.Body!.transformToByteArray()))).toBe(md5Hex(data));
  });
});

describe('hand-encoded aws-chunked uploads', () => {
  const data = randomBody(40_000);

  it('STREAMING-AWS4-HMAC-SHA256-PAYLOAD (signed chunks, no trailer)', async () => {
    const res = await putAwsChunked(ctx.server, { bucket, key: 'signed', data, mode: STREAMING_SIGNED, chunkSize: 16_384 });
    expect(res.status, res.text()).toBe(200);
    expect(res.headers['etag']).toBe(`"${md5Hex(data)}"`);
    expect(md5Hex((await readBack('signed'))!)).toBe(md5Hex(data));
  });

  it('STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER (signed chunks and signed CRC32C trailer)', async () => {
    const trailer = { name: 'x-amz-checksum-crc32c', value: await crc32cB64(data) };
    const res = await putAwsChunked(ctx.server, { bucket, key: 'signed-trailer', data, mode: STREAMING_SIGNED_TRAILER, trailer });
    expect(res.status, res.text()).toBe(200);
    expect(res.headers['x-amz-checksum-crc32c']).toBe(trailer.value);
    const head = await s3Client(ctx.server).send(new HeadObjectCommand({ Bucket: bucket, Key: 'signed-trailer', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumCRC32C).toBe(trailer.value);
    expect(md5Hex((await readBack('signed-trailer'))!)).toBe(md5Hex(data));
  });

  it('STREAMING-UNSIGNED-PAYLOAD-TRAILER with a SHA256 trailer, odd chunk sizes', async () => {
    const trailer = { name: 'x-amz-checksum-sha256', value: createHash('sha256').update(data).digest('base64') };
    const res = await putAwsChunked(ctx.server, { bucket, key: 'unsigned-trailer', data, mode: STREAMING_UNSIGNED_TRAILER, trailer, chunkSize: 777 });
    expect(res.status, res.text()).toBe(200);
    expect(md5Hex((await readBack('unsigned-trailer'))!)).toBe(md5Hex(data));
  });

  it('an empty payload (only the final chunk)', async () => {
    const res = await putAwsChunked(ctx.server, { bucket, key: 'empty-chunked', data: Buffer.alloc(0), mode: STREAMING_SIGNED });
    expect(res.status, res.text()).toBe(200);
    expect((await readBack('empty-chunked'))!.length).toBe(0);
  });

  it('strips aws-chunked from a stored Content-Encoding list (§2.7)', async () => {
    const res = await putAwsChunked(ctx.server, { bucket, key: 'gz', data, mode: STREAMING_SIGNED, contentEncoding: 'aws-chunked,gzip' });
    expect(res.status, res.text()).toBe(200);
    const head = await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'gz' });
    expect(head.headers['content-encoding']).toBe('gzip');
  });

  it('accepts the body with Transfer-Encoding: chunked instead of Content-Length', async () => {
    const res = await putAwsChunked(ctx.server, { bucket, key: 'te-chunked', data, mode: STREAMING_SIGNED, httpChunked: true });
    expect(res.status, res.text()).toBe(200);
    expect(md5Hex((await readBack('te-chunked'))!)).toBe(md5Hex(data));
  });
});

describe('broken aws-chunked uploads store nothing', () => {
  const data = randomBody(30_000);
  const crc = () => ({ name: 'x-amz-checksum-crc32', value: crc32Base64(data) });

  async function rejected(key: string, status: number, code: string, p: Omit<Parameters<typeof putAwsChunked>[1], 'bucket' | 'key'>) {
    const res = await putAwsChunked(ctx.server, { bucket, key, ...p });
    expectS3Error(res, status, code);
    expect(await readBack(key), `${key} must not be stored`).toBeUndefined();
  }

  it('SignatureDoesNotMatch for a bad middle chunk, final chunk or trailer signature', async () => {
    await rejected('bad-chunk-1', 403, 'SignatureDoesNotMatch', { data, mode: STREAMING_SIGNED, badChunkSignatureAt: 1 });
    await rejected('bad-chunk-final', 403, 'SignatureDoesNotMatch', { data, mode: STREAMING_SIGNED, chunkSize: 10_000, badChunkSignatureAt: 3 });
    await rejected('bad-trailer-sig', 403, 'SignatureDoesNotMatch', { data, mode: STREAMING_SIGNED_TRAILER, trailer: crc(), badTrailerSignature: true });
  });

  it('IncompleteBody when the chunks do not add up to x-amz-decoded-content-length, or framing is broken', async () => {
    await rejected('short', 400, 'IncompleteBody', { data, mode: STREAMING_SIGNED, decodedLength: data.length + 5 });
    await rejected('long', 400, 'IncompleteBody', { data, mode: STREAMING_UNSIGNED_TRAILER, trailer: crc(), decodedLength: data.length - 5 });
    await rejected('framing', 400, 'IncompleteBody', {
      data: Buffer.from('hello'),
      mode: STREAMING_UNSIGNED_TRAILER,
      declaredTrailer: null,
      rawBody: Buffer.from('zz\r\nhello\r\n0\r\n\r\n'),
    });
  });

  it('IncompleteBody when the body ends before its final CRLF or the closing line of its trailer', async () => {
    await rejected('no-final-crlf-signed', 400, 'IncompleteBody', { data, mode: STREAMING_SIGNED, dropLastBytes: 2 });
    await rejected('no-final-lf-signed-trailer', 400, 'IncompleteBody', { data, mode: STREAMING_SIGNED_TRAILER, trailer: crc(), dropLastBytes: 1 });
    await rejected('no-closing-line', 400, 'IncompleteBody', { data, mode: STREAMING_UNSIGNED_TRAILER, trailer: crc(), dropLastBytes: 2 });
    const hello = Buffer.from('hello');
    await rejected('no-final-crlf-unsigned', 400, 'IncompleteBody', {
      data: hello,
      mode: STREAMING_UNSIGNED_TRAILER,
      declaredTrailer: null,
      rawBody: Buffer.from('5\r\nhello\r\n0\r\n'),
    });
    await rejected('trailer-line-cut', 400, 'IncompleteBody', {
      data: hello,
      mode: STREAMING_UNSIGNED_TRAILER,
      declaredTrailer: 'x-amz-checksum-crc32',
      rawBody: Buffer.from(`5\r\nhello\r\n0\r\nx-amz-checksum-crc32:${crc32Base64(hello)}`),
    });
  });

  it('MalformedTrailerError for a missing, renamed or unsigned trailer', async () => {
    await rejected('no-trailer', 400, 'MalformedTrailerError', { data, mode: STREAMING_UNSIGNED_TRAILER, declaredTrailer: 'x-amz-checksum-crc32' });
    await rejected('renamed-trailer', 400, 'MalformedTrailerError', {
      data,
      mode: STREAMING_UNSIGNED_TRAILER,
      trailer: { name: 'x-amz-checksum-sha1', value: crc().value },
      declaredTrailer: 'x-amz-checksum-crc32',
    });
    await rejected('trailer-sig-missing', 400, 'MalformedTrailerError', { data, mode: STREAMING_SIGNED_TRAILER, trailer: crc(), omitTrailerSignature: true });
  });

  it('BadDigest when the trailer checksum is wrong', async () => {
    await rejected('bad-crc', 400, 'BadDigest', { data, mode: STREAMING_UNSIGNED_TRAILER, trailer: { name: 'x-amz-checksum-crc32', value: 'AAAAAA==' } });
    await rejected('bad-crc-signed', 400, 'BadDigest', { data, mode: STREAMING_SIGNED_TRAILER, trailer: { name: 'x-amz-checksum-crc32', value: 'AAAAAA==' } });
  });

  it('MissingContentLength (411) without x-amz-decoded-content-length', async () => {
    await rejected('no-decoded-length', 411, 'MissingContentLength', { data, mode: STREAMING_SIGNED, decodedLength: null });
  });

  it('InvalidRequest for Content-Encoding: aws-chunked with a plain payload hash', async () => {
    const res = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'ce-plain', body: 'abc', headers: { 'content-encoding': 'aws-chunked' } });
    expectS3Error(res, 400, 'InvalidRequest');
    expect(await readBack('ce-plain')).toBeUndefined();
  });

  it('the server keeps serving', async () => {
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket })).status).toBe(200);
  });
});
