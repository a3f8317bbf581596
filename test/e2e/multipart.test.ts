// Multipart uploads, copies, batch deletes and tagging through the AWS JS SDK at default settings
// (s3.md §3.17–3.26): @aws-sdk/lib-storage's Upload of a stream of unknown length, the low-level
// commands with every checksum type, part reads, listings, and what stays invisible until Complete.

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  DeleteObjectTaggingCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type ChecksumAlgorithm,
  type S3Client,
} from '@aws-sdk/client-s3';
import { crc32c as awsCrc32c } from '@aws-crypto/crc32c';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from './helpers/clients.js';
import { bucketName, crc32Base64, generatedStream, md5Hex, NASTY_KEYS, randomBody } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';

const ctx = useTusk();
const bucket = bucketName('mpu');
const other = bucketName('mpu-other');
const MiB = 1024 * 1024;

async function bodyOf(out: { Body?: { transformToByteArray(): Promise<Uint8Array> } }): Promise<Buffer> {
  return Buffer.from(await out.Body!.transformToByteArray());
}

function md5s(parts: Buffer[]): string {
  const joined = Buffer.concat(parts.map((p) => createHash('md5').update(p).digest()));
  return `"${createHash('md5').update(joined).digest('hex')}-${parts.length}"`;
}

/** Create → UploadPart × n → Complete with the low-level commands; returns the Complete output. */
async function uploadParts(s3: S3Client, key: string, parts: Buffer[], algorithm?: ChecksumAlgorithm, type?: 'COMPOSITE' | 'FULL_OBJECT') {
  const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ChecksumAlgorithm: algorithm, ChecksumType: type }));
  const done = [];
  for (let i = 0; i < parts.length; i++) {
    const out = await s3.send(new UploadPartCommand({
      Bucket: bucket, Key: key, UploadId: created.UploadId, PartNumber: i + 1, Body: parts[i], ChecksumAlgorithm: algorithm,
    }));
    done.push({ PartNumber: i + 1, ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C,
      ChecksumCRC64NVME: out.ChecksumCRC64NVME, ChecksumSHA1: out.ChecksumSHA1, ChecksumSHA256: out.ChecksumSHA256 });
  }
  return s3.send(new CompleteMultipartUploadCommand({
    Bucket: bucket, Key: key, UploadId: created.UploadId, MultipartUpload: { Parts: done }, ChecksumType: type,
  }));
}

beforeAll(async () => {
  const s3 = s3Client(ctx.server);
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new CreateBucketCommand({ Bucket: other }));
});

describe('@aws-sdk/lib-storage Upload of a stream of unknown length', () => {
  it('round-trips byte-identical; the ETag is "<md5 of md5s>-N"; ?partNumber reads each part as a range', async () => {
    const s3 = s3Client(ctx.server);
    const size = 17 * MiB + 12345;
    const gen = generatedStream(size);
    const upload = new Upload({ client: s3, params: { Bucket: bucket, Key: 'streamed/big file+1', Body: gen.stream } });
    const out = await upload.done();
    expect(out.ETag).toMatch(/^"[0-9a-f]{32}-4"$/);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'streamed/big file+1' }));
    const body = await bodyOf(got);
    expect(body.length).toBe(size);
    expect(md5Hex(body)).toBe(gen.md5());
    const parts = [0, 1, 2, 3].map((i) => body.subarray(i * 5 * MiB, Math.min(size, (i + 1) * 5 * MiB)));
    expect(out.ETag).toBe(md5s(parts));
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'streamed/big file+1', PartNumber: 4 }));
    expect(head.PartsCount).toBe(4);
    expect(head.ContentLength).toBe(size - 15 * MiB);
    expect(head.ETag).toBe(out.ETag);
    const part2 = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'streamed/big file+1', PartNumber: 2 }));
    expect(part2.ContentRange).toBe(`bytes ${5 * MiB}-${10 * MiB - 1}/${size}`);
    expect((await bodyOf(part2)).equals(parts[1]!)).toBe(true);
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'streamed/big file+1', PartNumber: 5 }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 416 },
    });
  }, 180_000);
});

describe('nasty keys (style.md §11)', () => {
  it.each(NASTY_KEYS.map((k) => [k.length > 40 ? `${k.slice(0, 20)}…(${Buffer.byteLength(k)} bytes)` : k, k]))(
    'uploads, lists, completes, copies and deletes %s',
    async (_label, key) => {
      const s3 = s3Client(ctx.server);
      const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      const listed = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }));
      expect(listed.Uploads?.map((u) => u.Key)).toEqual([key]);
      const body = randomBody(100);
      const part = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: created.UploadId, PartNumber: 1, Body: body }));
      const parts = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: created.UploadId }));
      expect(parts.Key).toBe(key);
      const done = await s3.send(new CompleteMultipartUploadCommand({
        Bucket: bucket, Key: key, UploadId: created.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }));
      expect(done.Key).toBe(key);
      await s3.send(new CopyObjectCommand({ Bucket: other, Key: key, CopySource: encodeURIComponent(`${bucket}/${key}`) }));
      expect((await bodyOf(await s3.send(new GetObjectCommand({ Bucket: other, Key: key })))).equals(body)).toBe(true);
      const deleted = await s3.send(new DeleteObjectsCommand({ Bucket: other, Delete: { Objects: [{ Key: key }] } }));
      expect(deleted.Deleted?.map((d) => d.Key)).toEqual([key]);
    },
  );
});

describe('checksums of completed uploads (s3.md §3.23)', () => {
  const parts = [randomBody(5 * MiB), randomBody(5 * MiB + 7), randomBody(1000)];
  const whole = Buffer.concat(parts);

  it('CRC32 COMPOSITE: CRC32 of the part CRC32s, "-3"; GET validates nothing composite and returns the bytes', async () => {
    const s3 = s3Client(ctx.server);
    const out = await uploadParts(s3, 'sum/composite', parts, 'CRC32');
    const partCrcs = Buffer.concat(parts.map((p) => Buffer.from(crc32Base64(p), 'base64')));
    expect(out.ChecksumCRC32).toBe(`${crc32Base64(partCrcs)}-3`);
    expect(out.ChecksumType).toBe('COMPOSITE');
    expect(out.ETag).toBe(md5s(parts));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'sum/composite', ChecksumMode: 'ENABLED' }));
    expect((await bodyOf(got)).equals(whole)).toBe(true);
  }, 60_000);

  it('CRC32C FULL_OBJECT: the CRC32C of the whole object, validated by the SDK on GET', async () => {
    const s3 = s3Client(ctx.server);
    const out = await uploadParts(s3, 'sum/full32c', parts, 'CRC32C', 'FULL_OBJECT');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(awsCrc32c(whole));
    expect(out.ChecksumCRC32C).toBe(crc.toString('base64'));
    expect(out.ChecksumType).toBe('FULL_OBJECT');
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'sum/full32c', ChecksumMode: 'ENABLED' }));
    expect(got.ChecksumCRC32C).toBe(crc.toString('base64'));
    expect((await bodyOf(got)).equals(whole)).toBe(true);
  }, 60_000);

  it('CRC64NVME FULL_OBJECT equals the SDK CRC64NVME of the whole object', async () => {
    const s3 = s3Client(ctx.server);
    const out = await uploadParts(s3, 'sum/full64', parts, 'CRC64NVME');
    const c = new Crc64Nvme();
    c.update(whole);
    expect(out.ChecksumCRC64NVME).toBe(Buffer.from(await c.digest()).toString('base64'));
    expect(out.ChecksumType).toBe('FULL_OBJECT');
  }, 60_000);

  it('SHA256 COMPOSITE and GetObjectAttributes lists the parts with their checksums', async () => {
    const s3 = s3Client(ctx.server);
    const out = await uploadParts(s3, 'sum/sha', parts, 'SHA256');
    const digests = parts.map((p) => createHash('sha256').update(p).digest());
    expect(out.ChecksumSHA256).toBe(`${createHash('sha256').update(Buffer.concat(digests)).digest('base64')}-3`);
    const attrs = await s3.send(new GetObjectAttributesCommand({
      Bucket: bucket, Key: 'sum/sha', ObjectAttributes: ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'],
    }));
    expect(attrs.ETag).toBe(out.ETag!.slice(1, -1));
    expect(attrs.ObjectSize).toBe(whole.length);
    expect(attrs.StorageClass).toBe('STANDARD');
    expect(attrs.Checksum).toMatchObject({ ChecksumSHA256: out.ChecksumSHA256, ChecksumType: 'COMPOSITE' });
    expect(attrs.ObjectParts?.TotalPartsCount).toBe(3);
    expect(attrs.ObjectParts?.Parts?.map((p) => [p.PartNumber, p.Size, p.ChecksumSHA256])).toEqual(
      parts.map((p, i) => [i + 1, p.length, digests[i]!.toString('base64')]),
    );
    // a copy asking for another algorithm gets the whole object's checksum in it, computed from the bytes
    const copy = await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'sum/sha-copy', CopySource: `${bucket}/sum/sha`, ChecksumAlgorithm: 'CRC32' }));
    expect(copy.CopyObjectResult?.ChecksumCRC32).toBe(crc32Base64(whole));
    const copied = await s3.send(new GetObjectAttributesCommand({ Bucket: bucket, Key: 'sum/sha-copy', ObjectAttributes: ['Checksum', 'ObjectParts'] }));
    expect(copied.Checksum).toMatchObject({ ChecksumCRC32: crc32Base64(whole), ChecksumType: 'FULL_OBJECT' });
    expect(copied.ObjectParts?.Parts?.map((p) => [p.Size, p.ChecksumCRC32, p.ChecksumSHA256])).toEqual(parts.map((p) => [p.length, undefined, undefined]));
  }, 60_000);
});

describe('uploads in progress', () => {
  it('are invisible to GET and listing, listed with ListMultipartUploads and ListParts, replaceable parts, abortable', async () => {
    const s3 = s3Client(ctx.server);
    const key = 'pending/a';
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'text/plain', Metadata: { m: 'v' } }));
    const second = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'pending/b/c' }));
    const id = created.UploadId!;
    const first = randomBody(5 * MiB);
    await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: id, PartNumber: 1, Body: randomBody(5 * MiB) }));
    const replaced = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: id, PartNumber: 1, Body: first }));
    const last = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: id, PartNumber: 3, Body: Buffer.from('tail') }));
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'pending/' }));
    expect(listed.KeyCount).toBe(0);

    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: 'pending/', Delimiter: '/' }));
    expect(uploads.Uploads?.map((u) => [u.Key, u.UploadId])).toEqual([[key, id]]);
    expect(uploads.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['pending/b/']);
    const page1 = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: 'pending/', MaxUploads: 1 }));
    expect(page1.IsTruncated).toBe(true);
    const page2 = await s3.send(new ListMultipartUploadsCommand({
      Bucket: bucket, Prefix: 'pending/', KeyMarker: page1.NextKeyMarker, UploadIdMarker: page1.NextUploadIdMarker,
    }));
    expect(page2.Uploads?.map((u) => u.UploadId)).toEqual([second.UploadId]);
    // the last page names its last upload too, as S3 does
    expect([page2.IsTruncated, page2.NextKeyMarker, page2.NextUploadIdMarker]).toEqual([false, page2.Uploads![0]!.Key, second.UploadId]);

    const partsPage = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id, MaxParts: 1 }));
    expect(partsPage.IsTruncated).toBe(true);
    expect(partsPage.Parts?.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([[1, replaced.ETag, 5 * MiB]]);
    const rest = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id, PartNumberMarker: partsPage.NextPartNumberMarker }));
    expect(rest.Parts?.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([[3, last.ETag, 4]]);

    const done = await s3.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: key, UploadId: id,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: replaced.ETag }, { PartNumber: 3, ETag: last.ETag }] },
    }));
    expect(done.Key).toBe(key);
    expect(done.Location).toContain(`/${bucket}/pending/a`);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(got.ContentType).toBe('text/plain');
    expect(got.Metadata).toEqual({ m: 'v' });
    expect((await bodyOf(got)).equals(Buffer.concat([first, Buffer.from('tail')]))).toBe(true);

    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'pending/b/c', UploadId: second.UploadId }));
    const none = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: 'pending/' }));
    expect(none.Uploads ?? []).toEqual([]);
  }, 60_000);

  it('concurrent uploads of one key: the last Complete wins', async () => {
    const s3 = s3Client(ctx.server);
    const a = [randomBody(5 * MiB), randomBody(10)];
    const b = [randomBody(5 * MiB), randomBody(20)];
    const ua = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'race' }));
    const ub = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'race' }));
    const send = async (id: string, parts: Buffer[]) => {
      const etags = [];
      for (let i = 0; i < parts.length; i++) {
        etags.push((await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'race', UploadId: id, PartNumber: i + 1, Body: parts[i] }))).ETag);
      }
      return etags.map((ETag, i) => ({ PartNumber: i + 1, ETag }));
    };
    const [pa, pb] = await Promise.all([send(ua.UploadId!, a), send(ub.UploadId!, b)]);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: 'race', UploadId: ub.UploadId, MultipartUpload: { Parts: pb } }));
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: 'race', UploadId: ua.UploadId, MultipartUpload: { Parts: pa } }));
    const got = await bodyOf(await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'race' })));
    expect(got.equals(Buffer.concat(a))).toBe(true);
  }, 60_000);
});

describe('CopyObject and UploadPartCopy (s3.md §3.18, §3.22)', () => {
  it('copies within and across buckets, COPY and REPLACE metadata, tagging directives, onto itself', async () => {
    const s3 = s3Client(ctx.server);
    const body = randomBody(70_000);
    await s3.send(new PutObjectCommand({
      Bucket: bucket, Key: 'src', Body: body, ContentType: 'image/png', Metadata: { a: '1' }, Tagging: 'k=v&x=y z',
    }));
    const copy = await s3.send(new CopyObjectCommand({ Bucket: other, Key: 'dst', CopySource: `${bucket}/src` }));
    expect(copy.CopyObjectResult?.ETag).toBe(`"${md5Hex(body)}"`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: other, Key: 'dst' }));
    expect([head.ContentType, head.Metadata, head.TagCount]).toEqual(['image/png', { a: '1' }, 2]);
    expect((await bodyOf(await s3.send(new GetObjectCommand({ Bucket: other, Key: 'dst' })))).equals(body)).toBe(true);

    await s3.send(new CopyObjectCommand({
      Bucket: bucket, Key: 'replaced', CopySource: `${bucket}/src`, MetadataDirective: 'REPLACE', ContentType: 'text/plain',
      Metadata: { b: '2' }, TaggingDirective: 'REPLACE', Tagging: 'only=1',
    }));
    const replaced = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'replaced' }));
    expect([replaced.ContentType, replaced.Metadata, replaced.TagCount]).toEqual(['text/plain', { b: '2' }, 1]);
    const tags = await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'replaced' }));
    expect(tags.TagSet).toEqual([{ Key: 'only', Value: '1' }]);

    await expect(s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'src', CopySource: `${bucket}/src` }))).rejects.toMatchObject({
      name: 'InvalidRequest', $metadata: { httpStatusCode: 400 },
    });
    // a storage class named in the request is a change, even the source's own (as AWS)
    await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'src', CopySource: `${bucket}/src`, StorageClass: 'STANDARD' }));
    await s3.send(new CopyObjectCommand({
      Bucket: bucket, Key: 'src', CopySource: `${bucket}/src`, MetadataDirective: 'REPLACE', ContentType: 'text/csv',
    }));
    const self = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'src' }));
    expect(self.ContentType).toBe('text/csv');
    expect((await bodyOf(self)).equals(body)).toBe(true);

    await expect(s3.send(new CopyObjectCommand({
      Bucket: bucket, Key: 'never', CopySource: `${bucket}/src`, CopySourceIfNoneMatch: `"${md5Hex(body)}"`,
    }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 412 } });
    await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'matched', CopySource: `${bucket}/src`, CopySourceIfMatch: `"${md5Hex(body)}"` }));
  });

  it('a multipart source keeps its parts; UploadPartCopy of ranges builds a new object', async () => {
    const s3 = s3Client(ctx.server);
    const parts = [randomBody(5 * MiB), randomBody(3 * MiB)];
    await uploadParts(s3, 'mp-src', parts);
    const whole = Buffer.concat(parts);
    await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'mp-copy', CopySource: `${bucket}/mp-src` }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'mp-copy', PartNumber: 2 }));
    expect([head.PartsCount, head.ContentLength]).toEqual([2, 3 * MiB]);

    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: other, Key: 'assembled' }));
    const ranges: Array<[number, number]> = [[1000, 1000 + 5 * MiB - 1], [0, 999]];
    const done = [];
    for (let i = 0; i < ranges.length; i++) {
      const [a, b] = ranges[i]!;
      const out = await s3.send(new UploadPartCopyCommand({
        Bucket: other, Key: 'assembled', UploadId: created.UploadId, PartNumber: i + 1,
        CopySource: `${bucket}/mp-src`, CopySourceRange: `bytes=${a}-${b}`,
      }));
      expect(out.CopyPartResult?.ETag).toBe(`"${md5Hex(whole.subarray(a, b + 1))}"`);
      done.push({ PartNumber: i + 1, ETag: out.CopyPartResult?.ETag });
    }
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: other, Key: 'assembled', UploadId: created.UploadId, MultipartUpload: { Parts: done } }));
    const got = await bodyOf(await s3.send(new GetObjectCommand({ Bucket: other, Key: 'assembled' })));
    expect(got.equals(Buffer.concat([whole.subarray(1000, 1000 + 5 * MiB), whole.subarray(0, 1000)]))).toBe(true);
  }, 60_000);
});

describe('DeleteObjects (s3.md §3.17)', () => {
  it('deletes many keys (CRC32 header from the SDK), reports missing ones as Deleted, per-key errors, quiet mode', async () => {
    const s3 = s3Client(ctx.server);
    const keys = Array.from({ length: 30 }, (_, i) => `batch/${i} +%`);
    await Promise.all(keys.map((k) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: k, Body: k }))));
    const out = await s3.send(new DeleteObjectsCommand({
      Bucket: bucket,
      Delete: { Objects: [...keys.map((Key) => ({ Key })), { Key: 'batch/missing' }, { Key: 'batch/0 +%', VersionId: 'not-a-version' }] },
    }));
    expect(out.Deleted?.map((d) => d.Key)).toEqual([...keys, 'batch/missing']);
    expect(out.Errors?.map((e) => [e.Key, e.VersionId, e.Code])).toEqual([['batch/0 +%', 'not-a-version', 'NoSuchVersion']]);
    const left = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'batch/' }));
    expect(left.KeyCount).toBe(0);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'batch/q', Body: 'q' }));
    const quiet = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Quiet: true, Objects: [{ Key: 'batch/q' }] } }));
    expect(quiet.Deleted ?? []).toEqual([]);
    expect(quiet.Errors ?? []).toEqual([]);
  });
  it('an entry with an ETag is deleted only while the ETag matches; a mismatch is that key\'s PreconditionFailed', async () => {
    const s3 = s3Client(ctx.server);
    const keys = ['cond/quoted', 'cond/wrong +%é', 'cond/bare', 'cond/star', 'cond/plain'];
    const etags = await Promise.all(keys.map(async (Key) => (await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: Key }))).ETag!));
    const out = await s3.send(new DeleteObjectsCommand({
      Bucket: bucket,
      Delete: {
        Objects: [
          { Key: keys[0], ETag: etags[0] },
          { Key: keys[1], ETag: etags[0] },
          { Key: keys[2], ETag: etags[2].replaceAll('"', '') },
          { Key: keys[3], ETag: '*' },
          { Key: keys[4] },
          // no such key: nothing to delete, as DeleteObject with If-Match answers
          { Key: 'cond/missing', ETag: etags[0] },
        ],
      },
    }));
    expect(out.Deleted?.map((d) => d.Key)).toEqual([keys[0], keys[2], keys[3], keys[4], 'cond/missing']);
    expect(out.Errors).toEqual([{ Key: keys[1], Code: 'PreconditionFailed', Message: 'At least one of the pre-conditions you specified did not hold' }]);
    const left = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'cond/' }));
    expect(left.Contents?.map((o) => [o.Key, o.ETag])).toEqual([[keys[1], etags[1]]]);
  });
});

describe('object tagging (s3.md §3.19)', () => {
  it('x-amz-tagging on PUT and create-multipart, tag count on HEAD, Get/Put/DeleteObjectTagging, limits', async () => {
    const s3 = s3Client(ctx.server);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'tagged', Body: 'x', Tagging: 'a=1&b=%20two' }));
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'tagged' }))).TagCount).toBe(2);
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'tagged' }))).TagSet).toEqual([
      { Key: 'a', Value: '1' }, { Key: 'b', Value: ' two' },
    ]);
    await s3.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: 'tagged', Tagging: { TagSet: [{ Key: 'é 日本 +-=._:/@', Value: '' }] } }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'tagged' }))).TagSet).toEqual([{ Key: 'é 日本 +-=._:/@', Value: '' }]);
    await s3.send(new DeleteObjectTaggingCommand({ Bucket: bucket, Key: 'tagged' }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'tagged' }))).TagSet).toEqual([]);
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'tagged' }))).TagCount).toBeUndefined();

    const eleven = Array.from({ length: 11 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
    await expect(s3.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: 'tagged', Tagging: { TagSet: eleven } }))).rejects.toMatchObject({
      name: 'InvalidTag', $metadata: { httpStatusCode: 400 },
    });
    await expect(s3.send(new PutObjectTaggingCommand({
      Bucket: bucket, Key: 'tagged', Tagging: { TagSet: [{ Key: 'd', Value: '1' }, { Key: 'd', Value: '2' }] },
    }))).rejects.toMatchObject({ name: 'InvalidTag' });
    await expect(s3.send(new PutObjectTaggingCommand({
      Bucket: bucket, Key: 'tagged', Tagging: { TagSet: [{ Key: 'k'.repeat(129), Value: '1' }] },
    }))).rejects.toMatchObject({ name: 'InvalidTag' });
    await expect(s3.send(new PutObjectTaggingCommand({
      Bucket: bucket, Key: 'tagged', Tagging: { TagSet: [{ Key: 'te&st', Value: '1' }] },
    }))).rejects.toMatchObject({ name: 'InvalidTag', message: 'The TagKey you have provided is invalid' });
    await expect(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'tagged', Body: 'y', Tagging: 'k=a%09b' }))).rejects.toMatchObject({
      name: 'InvalidTag', message: 'The TagValue you have provided is invalid',
    });
    await expect(s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'no-such' }))).rejects.toMatchObject({ name: 'NoSuchKey' });

    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'tagged-mp', Tagging: 'mp=yes' }));
    const part = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'tagged-mp', UploadId: created.UploadId, PartNumber: 1, Body: 'p' }));
    await s3.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: 'tagged-mp', UploadId: created.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
    }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'tagged-mp' }))).TagSet).toEqual([{ Key: 'mp', Value: 'yes' }]);
  });
});
