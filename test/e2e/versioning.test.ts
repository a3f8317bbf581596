// Versioned buckets end to end with the AWS JS SDK (s3.md §3.0.7, §3.8, §3.9): three versions read
// back by id, delete markers (404 + header, 405 by id), ListObjectVersions order and paging,
// permanent deletes by id, the suspended bucket's null version, DeleteBucket refused until every
// version and marker is gone, and concurrent writers each getting their own version.

import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3Client, s3Request, sdkError } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { expectS3Error, versionEntries, xmlAll, xmlText } from './helpers/xml.js';

const ctx = useTusk();

describe('versioning with the JS SDK', () => {
  it('three versions, a marker, listing order, permanent deletes, suspended null version, DeleteBucket', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('ver');
    const Key = 'dir/a key+with %signs é';
    await s3.send(new CreateBucketCommand({ Bucket }));
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket }))).Status).toBeUndefined();
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket }))).Status).toBe('Enabled');

    const ids: string[] = [];
    for (const body of ['one', 'two', 'three']) {
      const put = await s3.send(new PutObjectCommand({ Bucket, Key, Body: body }));
      expect(put.VersionId).toMatch(/^[0-9A-Za-z]{32}$/);
      ids.push(put.VersionId!);
    }
    expect(new Set(ids).size).toBe(3);
    for (const [i, body] of ['one', 'two', 'three'].entries()) {
      const got = await s3.send(new GetObjectCommand({ Bucket, Key, VersionId: ids[i] }));
      expect(await got.Body!.transformToString()).toBe(body);
      expect(got.VersionId).toBe(ids[i]);
    }
    const latest = await s3.send(new GetObjectCommand({ Bucket, Key }));
    expect([await latest.Body!.transformToString(), latest.VersionId]).toEqual(['three', ids[2]]);

    // a delete without an id adds a marker; the key then reads as missing, naming the marker
    const del = await s3.send(new DeleteObjectCommand({ Bucket, Key }));
    expect(del.DeleteMarker).toBe(true);
    const markerId = del.VersionId!;
    expect(markerId).toMatch(/^[0-9A-Za-z]{32}$/);
    const plain = await s3Request(ctx.server, { method: 'GET', bucket: Bucket, key: Key });
    expectS3Error(plain, 404, 'NoSuchKey');
    expect(plain.headers['x-amz-delete-marker']).toBe('true');
    expect(plain.headers['x-amz-version-id']).toBe(markerId);
    const byId = await s3Request(ctx.server, { method: 'GET', bucket: Bucket, key: Key, query: { versionId: markerId } });
    expectS3Error(byId, 405, 'MethodNotAllowed');
    expect(byId.headers['x-amz-delete-marker']).toBe('true');
    const head = await sdkError(s3.send(new HeadObjectCommand({ Bucket, Key, VersionId: markerId })));
    expect(head.$metadata.httpStatusCode).toBe(405);

    // S3's order: key ascending, newest first, markers interleaved
    const listing = await s3Request(ctx.server, { method: 'GET', bucket: Bucket, query: 'versions' });
    expect(listing.status).toBe(200);
    expect(versionEntries(listing.text())).toEqual([
      { kind: 'DeleteMarker', key: Key, versionId: markerId, isLatest: true },
      { kind: 'Version', key: Key, versionId: ids[2], isLatest: false },
      { kind: 'Version', key: Key, versionId: ids[1], isLatest: false },
      { kind: 'Version', key: Key, versionId: ids[0], isLatest: false },
    ]);
    const sdkList = await s3.send(new ListObjectVersionsCommand({ Bucket }));
    expect(sdkList.Versions!.map((v) => v.VersionId)).toEqual([ids[2], ids[1], ids[0]]);
    expect(sdkList.DeleteMarkers!.map((m) => [m.VersionId, m.IsLatest])).toEqual([[markerId, true]]);

    // paging by key and version-id markers
    const seen: string[] = [];
    let KeyMarker: string | undefined;
    let VersionIdMarker: string | undefined;
    for (;;) {
      const page = await s3.send(new ListObjectVersionsCommand({ Bucket, MaxKeys: 3, KeyMarker, VersionIdMarker }));
      seen.push(...(page.DeleteMarkers ?? []).map((m) => m.VersionId!), ...(page.Versions ?? []).map((v) => v.VersionId!));
      if (!page.IsTruncated) break;
      KeyMarker = page.NextKeyMarker;
      VersionIdMarker = page.NextVersionIdMarker;
    }
    expect(seen.sort()).toEqual([markerId, ...ids].sort());

    // deleting by id is permanent; deleting the marker by id makes the newest version current again
    const gone = await s3.send(new DeleteObjectCommand({ Bucket, Key, VersionId: ids[1] }));
    expect(gone.VersionId).toBe(ids[1]);
    expect((await sdkError(s3.send(new GetObjectCommand({ Bucket, Key, VersionId: ids[1] })))).name).toBe('NoSuchVersion');
    const unmark = await s3.send(new DeleteObjectCommand({ Bucket, Key, VersionId: markerId }));
    expect([unmark.VersionId, unmark.DeleteMarker]).toEqual([markerId, true]);
    expect(await (await s3.send(new GetObjectCommand({ Bucket, Key }))).Body!.transformToString()).toBe('three');

    // suspended: writes replace the one null version, older versions stay
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Suspended' } }));
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket }))).Status).toBe('Suspended');
    await s3.send(new PutObjectCommand({ Bucket, Key, Body: 'null-1' }));
    await s3.send(new PutObjectCommand({ Bucket, Key, Body: 'null-2' }));
    const nullGet = await s3.send(new GetObjectCommand({ Bucket, Key, VersionId: 'null' }));
    expect([await nullGet.Body!.transformToString(), nullGet.VersionId]).toEqual(['null-2', 'null']);
    const afterSuspend = await s3.send(new ListObjectVersionsCommand({ Bucket }));
    expect(afterSuspend.Versions!.map((v) => [v.VersionId, v.IsLatest])).toEqual([
      ['null', true],
      [ids[2], false],
      [ids[0], false],
    ]);
    const nullMarker = await s3.send(new DeleteObjectCommand({ Bucket, Key }));
    expect([nullMarker.DeleteMarker, nullMarker.VersionId]).toEqual([true, 'null']);

    // DeleteBucket is refused while any version or marker remains (seed rule)
    const notEmpty = await sdkError(s3.send(new DeleteBucketCommand({ Bucket })));
    expect([notEmpty.name, notEmpty.$metadata.httpStatusCode]).toEqual(['BucketNotEmpty', 409]);
    for (const id of [ids[2], ids[0]]) await s3.send(new DeleteObjectCommand({ Bucket, Key, VersionId: id }));
    expect((await sdkError(s3.send(new DeleteBucketCommand({ Bucket })))).name).toBe('BucketNotEmpty');
    await s3.send(new DeleteObjectCommand({ Bucket, Key, VersionId: 'null' }));
    const empty = await s3.send(new ListObjectVersionsCommand({ Bucket }));
    expect([empty.Versions, empty.DeleteMarkers]).toEqual([undefined, undefined]);
    await s3.send(new DeleteBucketCommand({ Bucket }));
  });

  it('concurrent writers to one key each get their own version; the latest is the last committed', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('race');
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    const puts = await Promise.all(
      Array.from({ length: 12 }, (_, i) => s3.send(new PutObjectCommand({ Bucket, Key: 'hot', Body: `writer ${i}` }))),
    );
    const ids = puts.map((p) => p.VersionId!);
    expect(new Set(ids).size).toBe(12);
    const listed = (await s3.send(new ListObjectVersionsCommand({ Bucket }))).Versions!;
    expect(listed.map((v) => v.VersionId).sort()).toEqual([...ids].sort());
    expect(listed.filter((v) => v.IsLatest)).toHaveLength(1);
    // ids are time-ordered: newest first in the listing, and the latest is what a plain GET reads
    const order = listed.map((v) => v.VersionId!);
    expect(order).toEqual([...order].sort().reverse());
    const current = await s3.send(new GetObjectCommand({ Bucket, Key: 'hot' }));
    expect(current.VersionId).toBe(order[0]);
    expect(await current.Body!.transformToString()).toBe(`writer ${ids.indexOf(order[0]!)}`);
  });

  it('lists with prefix, delimiter and encoding-type=url; refuses bad markers, ids and configurations', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('vlist');
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'plain+key x', Body: 'u' }));
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'plain+key x', Body: 'v' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'p/one', Body: '1' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'p/two', Body: '2' }));
    const raw = await s3Request(ctx.server, { method: 'GET', bucket: Bucket, query: { versions: '', 'encoding-type': 'url', delimiter: '/' } });
    const xml = raw.text();
    expect(xmlAll(xml, 'Key')).toEqual(['plain%2Bkey%20x', 'plain%2Bkey%20x']);
    expect(xmlAll(xml, 'VersionId')[1]).toBe('null');
    expect(xmlAll(xml, 'Prefix')).toEqual(['', 'p/']);
    expect(xmlText(xml, 'EncodingType')).toBe('url');
    // the SDK decodes url-encoded keys itself
    const sdk = await s3.send(new ListObjectVersionsCommand({ Bucket, Prefix: 'plain' }));
    expect(sdk.Versions!.map((v) => [v.Key, v.VersionId === 'null', v.IsLatest])).toEqual([
      ['plain+key x', false, true],
      ['plain+key x', true, false],
    ]);
    // a version of the never-versioned era names itself once versioning is on (§3.0.7)
    const oldNull = await s3Request(ctx.server, { method: 'HEAD', bucket: Bucket, key: 'plain+key x', query: { versionId: 'null' } });
    expect([oldNull.status, oldNull.headers['x-amz-version-id']]).toEqual([200, 'null']);

    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: Bucket, query: { versions: '', 'version-id-marker': 'x' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: Bucket, key: 'p/one', query: { versionId: 'bad!' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: Bucket, key: 'p/one', query: { versionId: 'A'.repeat(32) } }), 404, 'NoSuchVersion');
    const put = (body: string) => s3Request(ctx.server, { method: 'PUT', bucket: Bucket, query: 'versioning', body });
    expectS3Error(await put('<VersioningConfiguration><Status>Sometimes</Status></VersioningConfiguration>'), 400, 'IllegalVersioningConfigurationException');
    expectS3Error(await put('<VersioningConfiguration><Status>Enabled'), 400, 'MalformedXML');
    expectS3Error(await put(''), 400, 'MissingRequestBodyError');
    // never back to unversioned: the state stays Enabled
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket }))).Status).toBe('Enabled');
  });
});
