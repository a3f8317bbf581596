// Requests produced by the real aws-sdk-js v3 S3 client (captured before they hit the network) and
// by its presigner: authenticate() must accept them, and aws-chunked bodies must decode.

import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { HttpRequest } from '@smithy/core/protocols';
import { authenticate } from '../../../src/s3/sigv4/authenticate.js';
import { AwsChunkedDecoder } from '../../../src/s3/sigv4/aws-chunked.js';
import { describeBody } from '../../../src/s3/sigv4/body-description.js';
import { DOC_AK, DOC_SECRET, ctx, head } from './helpers.js';
import { toHead } from './smithy.js';
import { NASTY_KEYS } from './nasty-keys.js';

interface Captured {
  head: ReturnType<typeof toHead>;
  body: Buffer;
}

function client(forcePathStyle: boolean, sink: Captured[]): S3Client {
  return new S3Client({
    region: 'us-east-1',
    endpoint: forcePathStyle ? 'http://127.0.0.1:9000' : 'http://s3.example.test',
    forcePathStyle,
    credentials: { accessKeyId: DOC_AK, secretAccessKey: DOC_SECRET },
    maxAttempts: 1,
    requestHandler: {
      async handle(req: HttpRequest) {
        let body = Buffer.alloc(0);
        if (req.body instanceof Readable || (req.body && typeof req.body[Symbol.asyncIterator] === 'function')) {
          const parts: Buffer[] = [];
          for await (const p of req.body as AsyncIterable<Buffer | string>) parts.push(Buffer.from(p));
          body = Buffer.concat(parts);
        } else if (req.body !== undefined) {
          body = Buffer.from(req.body as string | Uint8Array);
        }
        sink.push({ head: toHead(req as never), body });
        throw new Error('captured');
      },
    } as never,
  });
}

async function capture(forcePathStyle: boolean, command: unknown): Promise<Captured> {
  const sink: Captured[] = [];
  await expect(client(forcePathStyle, sink).send(command as never)).rejects.toThrow('captured');
  expect(sink).toHaveLength(1);
  return sink[0]!;
}

describe('aws-sdk-js v3 S3Client requests', () => {
  it.each(NASTY_KEYS)('PutObject + GetObject(Range) of %j, path and virtual style', async (key) => {
    for (const pathStyle of [true, false]) {
      const put = await capture(pathStyle, new PutObjectCommand({ Bucket: 'bkt', Key: key, Body: 'hello', Metadata: { a: 'b c' } }));
      const r = authenticate(put.head, ctx(Date.now()));
      expect(r.kind).toBe('signed');
      const desc = describeBody(put.head, r);
      expect(desc).toMatchObject({ encoding: 'raw', decodedLength: 5 });
      if (r.kind === 'signed' && r.payload.kind === 'sha256') {
        expect(r.payload.expectedHex).toBe(createHash('sha256').update('hello').digest('hex'));
      }
      const get = await capture(pathStyle, new GetObjectCommand({ Bucket: 'bkt', Key: key, Range: 'bytes=0-9', IfMatch: '"x"' }));
      expect(authenticate(get.head, ctx(Date.now())).kind).toBe('signed');
    }
  });

  it('ListObjectsV2, DeleteObjects, CopyObject with awkward values', async () => {
    const commands = [
      new ListObjectsV2Command({ Bucket: 'bkt', Prefix: 'a b+c/%ü😀', Delimiter: '/', StartAfter: 'x&y=z', MaxKeys: 3 }),
      new DeleteObjectsCommand({ Bucket: 'bkt', Delete: { Objects: [{ Key: 'a b' }, { Key: 'c+d', VersionId: 'v1' }] } }),
      new CopyObjectCommand({ Bucket: 'bkt', Key: 'dst key', CopySource: 'src/a b+c%d😀?versionId=1' }),
    ];
    for (const pathStyle of [true, false]) {
      for (const command of commands) {
        const c = await capture(pathStyle, command);
        expect(authenticate(c.head, ctx(Date.now())).kind, c.head.rawPath).toBe('signed');
      }
    }
  });

  it('streaming PutObject → STREAMING-UNSIGNED-PAYLOAD-TRAILER, decoded with its CRC32 trailer', async () => {
    const data = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) & 255));
    const c = await capture(
      true,
      new PutObjectCommand({
        Bucket: 'bkt',
        Key: 'stream key',
        Body: Readable.from([data.subarray(0, 70_000), data.subarray(70_000)]),
        ContentLength: data.length,
      }),
    );
    expect(c.head.headers['x-amz-content-sha256']).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
    const r = authenticate(c.head, ctx(Date.now()));
    expect(r.kind === 'signed' && r.payload).toEqual({ kind: 'streaming-unsigned-trailer' });
    const desc = describeBody(c.head, r);
    expect(desc).toMatchObject({ encoding: 'aws-chunked', decodedLength: data.length, declaredTrailer: 'x-amz-checksum-crc32' });
    expect(desc.storedContentEncoding).toBeUndefined();
    const d = new AwsChunkedDecoder({ decodedLength: desc.decodedLength, trailer: desc.declaredTrailer });
    const out: Buffer[] = [];
    for (let i = 0; i < c.body.length; i += 1000) d.push(c.body.subarray(i, i + 1000), (s) => out.push(Buffer.from(s)));
    const { trailers } = d.end();
    expect(Buffer.concat(out).equals(data)).toBe(true);
    const expected = Buffer.alloc(4);
    expected.writeUInt32BE(crc32(data));
    expect(trailers).toEqual({ 'x-amz-checksum-crc32': expected.toString('base64') });
  });
});

describe('@aws-sdk/s3-request-presigner URLs', () => {
  function urlHead(method: string, url: string, extra: Array<[string, string]> = []) {
    const u = new URL(url);
    return head(method, url.slice(url.indexOf('/', 'http://'.length)), [['host', u.host], ...extra]);
  }

  it.each(NASTY_KEYS)('GetObject %j with response overrides', async (key) => {
    for (const pathStyle of [true, false]) {
      const url = await getSignedUrl(
        client(pathStyle, []),
        new GetObjectCommand({ Bucket: 'bkt', Key: key, ResponseContentDisposition: 'attachment; filename="a b.txt"' }),
        { expiresIn: 300 },
      );
      const r = authenticate(urlHead('GET', url), ctx(Date.now()));
      expect(r.kind === 'signed' && r.presigned, url).toBe(true);
    }
  });

  it('PutObject with ACL, metadata and a checksum: x-amz-* parameters are hoisted', async () => {
    const url = await getSignedUrl(
      client(true, []),
      new PutObjectCommand({ Bucket: 'bkt', Key: 'k', ACL: 'public-read', Metadata: { who: 'ü b' } }),
      { expiresIn: 300 },
    );
    const r = authenticate(urlHead('PUT', url, [['content-length', '0']]), ctx(Date.now()));
    expect(r.kind).toBe('signed');
    if (r.kind !== 'signed') return;
    expect(r.hoistedHeaders).toMatchObject({ 'x-amz-acl': 'public-read', 'x-amz-meta-who': 'ü b' });
    expect(describeBody(urlHead('PUT', url, [['content-length', '0']]), r)).toMatchObject({ encoding: 'raw', decodedLength: 0 });
  });
});
