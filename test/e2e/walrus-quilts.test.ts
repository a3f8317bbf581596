// Small objects of storage class WALRUS batched into quilts (issue #34 item 2, README "S3 objects
// on Walrus"): 100 concurrent 4 KiB PUTs share a few quilts (100 shards: 66 patches a quilt at
// most), every object reads back byte-identical (ranges too) through its quilt patch, HEAD names
// the quilt and the patch, the aggregator serves each patch by its id and lists the patches' tags
// (bucket, key, content type, ETag, checksum), and an object above the patch size is a blob of its own.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client, type StorageClass } from '@aws-sdk/client-s3';
import { admin } from './helpers/admin-cli.js';
import { bucketName, randomBody } from './helpers/fixtures.js';
import { makeTempDir, type TuskServer } from './helpers/server.js';
import { objectBytes, patchRead, rawHead as rawHeadOf, startWalrusTusk } from './helpers/walrus.js';

const WALRUS = 'WALRUS' as StorageClass;
const COUNT = 100;
const SMALL = 4096;

let server: TuskServer;
let s3: S3Client;
let publisherUrl: string;
const bucket = bucketName('quilts');

/** 1 MiB blobs, so that a 2.5 MB object spans three (and 'big' two) while 1 MiB objects stay patches */
const SERVER_ARGS = ['--n-shards', '100', '--max-blob-size', String(1024 * 1024)];

beforeAll(async () => {
  ({ server, s3, publisherUrl } = await startWalrusTusk(bucket, SERVER_ARGS));
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await server?.dispose();
});

function getBytes(key: string, range?: string): Promise<Buffer> {
  return objectBytes(s3, bucket, key, range);
}

function rawHead(key: string): Promise<Record<string, string>> {
  return rawHeadOf(server, bucket, key);
}

const LARGE_KEY = 'large/2.5 MB +%';
const large = randomBody(2_500_000);
const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

describe('small WALRUS objects in quilts', () => {
  const bodies = new Map(Array.from({ length: COUNT }, (_, i) => [`small/${String(i).padStart(4, '0')} +%`, randomBody(SMALL)] as const));

  it('concurrent PUTs share a few quilts; each object reads back through its patch', async () => {
    await Promise.all([...bodies].map(([Key, Body]) => s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body, StorageClass: WALRUS, ContentType: 'text/x-small' }))));
    const heads = new Map<string, Record<string, string>>();
    for (const key of bodies.keys()) heads.set(key, await rawHead(key));
    const quilts = new Set([...heads.values()].map((h) => h['x-tusk-walrus-blob-id']));
    const patches = new Set([...heads.values()].map((h) => h['x-tusk-walrus-patch-id']));
    // a handful of quilts, not one blob each (a slow machine may spread the PUTs over a few windows)
    expect(quilts.size).toBeLessThanOrEqual(10);
    expect(patches.size).toBe(COUNT);
    for (const h of heads.values()) {
      expect(h['x-amz-storage-class']).toBe('WALRUS');
      expect(h['x-tusk-walrus-patch-id']).toMatch(/^[A-Za-z0-9_-]{50}$/);
      // the patch id begins with its quilt's id (walrus.md §10.1)
      expect(Buffer.from(h['x-tusk-walrus-patch-id']!, 'base64url').subarray(0, 32).toString('base64url')).toBe(h['x-tusk-walrus-blob-id']);
    }
    for (const [key, body] of bodies) expect((await getBytes(key)).equals(body), key).toBe(true);
    const [key, body] = [...bodies][7]!;
    expect((await getBytes(key, 'bytes=100-2100')).equals(body.subarray(100, 2101))).toBe(true);
    expect((await getBytes(key, 'bytes=-5')).equals(body.subarray(SMALL - 5))).toBe(true);

    // the aggregator serves the patch by its id, with the object's content type from the patch's tags
    const patchId = heads.get(key)!['x-tusk-walrus-patch-id']!;
    const res = await patchRead(publisherUrl, patchId);
    expect(res.headers.get('content-type')).toBe('text/x-small');
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);

    // the quilt's patches carry the object's bucket, key, ETag and checksum as tags
    const quiltId = heads.get(key)!['x-tusk-walrus-blob-id']!;
    const listed = (await (await fetch(`${publisherUrl}/v1/quilts/${quiltId}/patches`)).json()) as Array<{ patch_id: string; tags: Record<string, string> }>;
    const mine = listed.find((p) => p.patch_id === patchId)!;
    expect(mine.tags).toMatchObject({
      'tusk-bucket': bucket,
      'tusk-key': key,
      'content-type': 'text/x-small',
      'tusk-etag': md5(body),
    });
    expect(mine.tags['tusk-checksum']).toMatch(/^[A-Z0-9]+:FULL_OBJECT:/);
  }, 60_000);

  it('a lone small PUT is acknowledged after its window; a larger object is a blob of its own', async () => {
    const lone = randomBody(10);
    const t0 = Date.now();
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'lone', Body: lone, StorageClass: WALRUS }));
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await getBytes('lone')).equals(lone)).toBe(true);
    expect((await rawHead('lone'))['x-tusk-walrus-patch-id']).toBeDefined();

    const big = randomBody(1024 * 1024 + 1);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'big', Body: big, StorageClass: WALRUS }));
    const head = await rawHead('big');
    expect(head['x-tusk-walrus-patch-id']).toBeUndefined();
    expect((await getBytes('big', 'bytes=1048570-')).equals(big.subarray(1048570))).toBe(true);

    // a larger object's blobs carry its facts as blob attributes on their Blob objects, set before the PUT is answered
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: LARGE_KEY, Body: large, StorageClass: WALRUS, ContentType: 'video/x-large' }));
    const ids = (await rawHead(LARGE_KEY))['x-tusk-walrus-blob-id']!.split(',');
    expect(ids).toHaveLength(3);
    const views = await Promise.all(ids.map(async (id) => ((await (await fetch(`${publisherUrl}/v1/ledger/blobs/${id}`)).json()) as { objects: Array<{ object: { attributes?: Record<string, string> } }> }).objects[0]!));
    expect(views.map((v) => v.object.attributes)).toEqual(
      [0, 1, 2].map((i) =>
        expect.objectContaining({
          'tusk-bucket': bucket,
          'tusk-key': LARGE_KEY,
          'content-type': 'video/x-large',
          'tusk-etag': md5(large),
          'tusk-size': String(large.length),
          'tusk-blob-index': String(i),
          'tusk-blob-offset': String(i * 1024 * 1024),
        }),
      ),
    );
  }, 30_000);

  it('tusk admin buckets walrus-import rebuilds the objects on a fresh Tusk given only the network', async () => {
    // the embedded network is the data directory's ledger/ (the wallet's Blob objects) and nodes/
    // (the slivers): copied without the S3 engine's index and segments
    await server.stop();
    const fresh = makeTempDir();
    for (const part of ['ledger', 'nodes']) cpSync(join(server.dataDir, part), join(fresh, part), { recursive: true });
    const second = await startWalrusTusk(bucket, SERVER_ARGS, fresh);
    try {
      expect((await second.s3.send(new ListObjectsV2Command({ Bucket: bucket }))).KeyCount).toBe(0);
      const run = await admin(second.server, ['buckets', 'walrus-import', bucket]);
      expect(run.stderr).toBe('');
      // the 100 objects and 'lone' from their patches, 'big' and the large one from their blobs' attributes
      expect(run.json).toEqual({ bucket, imported: COUNT + 3, present: 0, incomplete: [] });
      const listed = await second.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
      expect(listed.Contents?.map((o) => o.Key).sort()).toEqual([...bodies.keys(), 'lone', 'big', LARGE_KEY].sort());
      expect(listed.Contents?.find((o) => o.Key === LARGE_KEY)?.Size).toBe(large.length);
      const got = await second.s3.send(new GetObjectCommand({ Bucket: bucket, Key: LARGE_KEY }));
      expect([got.StorageClass, got.ContentType, got.ETag]).toEqual(['WALRUS', 'video/x-large', `"${md5(large)}"`]);
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(large)).toBe(true);
      // a range across the first blob boundary
      const ranged = await second.s3.send(new GetObjectCommand({ Bucket: bucket, Key: LARGE_KEY, Range: 'bytes=1048000-1049999' }));
      expect(Buffer.from(await ranged.Body!.transformToByteArray()).equals(large.subarray(1048000, 1050000))).toBe(true);
      // every tenth object read back (each read decodes its whole quilt)
      for (const [key, body] of [...bodies].filter((_, i) => i % 10 === 0)) {
        const got = await second.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        expect(got.StorageClass).toBe('WALRUS');
        expect(got.ContentType).toBe('text/x-small');
        expect(got.ETag).toBe(`"${md5(body)}"`);
        expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body), key).toBe(true);
      }
      // run again: nothing new
      expect((await admin(second.server, ['buckets', 'walrus-import', bucket])).json).toEqual({ bucket, imported: 0, present: COUNT + 3, incomplete: [] });
    } finally {
      second.s3.destroy();
      await second.server.dispose();
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 60_000);
});
