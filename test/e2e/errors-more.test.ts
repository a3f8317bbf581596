// The rest of the handlers' error codes, each provoked through HTTP (status, Code, RequestId), with
// nothing stored and the server still serving afterwards.

import { truncateSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

let server: TuskServer;
const bucket = bucketName('errmore');

beforeAll(async () => {
  server = await startTusk({ region: 'eu-west-1', extraArgs: ['--max-buckets', '3'] });
  const created = await s3Request(server, { method: 'PUT', bucket, region: 'eu-west-1' });
  expect(created.status).toBe(200);
  expect((await s3Request(server, { method: 'PUT', bucket, key: 'small', body: 'twelve bytes', region: 'eu-west-1' })).status).toBe(200);
});
afterAll(() => server?.dispose());

const req = (o: Parameters<typeof s3Request>[1]) => s3Request(server, { region: 'eu-west-1', ...o });

async function stillServing(): Promise<void> {
  const res = await req({ method: 'GET', bucket, key: 'small' });
  expect(res.status).toBe(200);
}

describe('more error codes', () => {
  it('InvalidRequest for a copy that brings a body; the connection goes on serving', async () => {
    const copy = await req({ method: 'PUT', bucket, key: 'copied', body: 'a body', headers: { 'x-amz-copy-source': `/${bucket}/small` } });
    expectS3Error(copy, 400, 'InvalidRequest');
    expect(copy.text()).toContain('must not include a non-empty body');
    expectS3Error(await req({ method: 'HEAD', bucket, key: 'copied' }), 404, 'NoSuchKey', 'HEAD');
    expect((await req({ method: 'PUT', bucket, key: 'copied', headers: { 'x-amz-copy-source': `/${bucket}/small` } })).status).toBe(200);
  });

  it('BucketAlreadyOwnedByYou when the owner re-creates outside us-east-1 (s3.md §3.2)', async () => {
    expectS3Error(await req({ method: 'PUT', bucket }), 409, 'BucketAlreadyOwnedByYou');
  });

  it('TooManyBuckets past max-buckets, and no bucket is created', async () => {
    const more = [bucketName('m1'), bucketName('m2'), bucketName('m3')];
    expect((await req({ method: 'PUT', bucket: more[0] })).status).toBe(200);
    expect((await req({ method: 'PUT', bucket: more[1] })).status).toBe(200);
    expectS3Error(await req({ method: 'PUT', bucket: more[2] }), 400, 'TooManyBuckets');
    expectS3Error(await req({ method: 'HEAD', bucket: more[2] }), 404, 'NoSuchBucket', 'HEAD');
    for (const b of more.slice(0, 2)) expect((await req({ method: 'DELETE', bucket: b })).status).toBe(204);
  });

  it('InvalidBucketAclWithObjectOwnership for a public ACL with BucketOwnerEnforced (s3.md §2.12)', async () => {
    const b = bucketName('own');
    const res = await req({ method: 'PUT', bucket: b, headers: { 'x-amz-acl': 'public-read', 'x-amz-object-ownership': 'BucketOwnerEnforced' } });
    expectS3Error(res, 400, 'InvalidBucketAclWithObjectOwnership');
    expectS3Error(await req({ method: 'HEAD', bucket: b }), 404, 'NoSuchBucket', 'HEAD');
  });

  it('MaxMessageLengthExceeded for a CreateBucket body over 1 MiB (s3.md §4, §6)', async () => {
    const b = bucketName('big');
    const body = `<CreateBucketConfiguration>${' '.repeat(1 << 20)}</CreateBucketConfiguration>`;
    expectS3Error(await req({ method: 'PUT', bucket: b, body }), 400, 'MaxMessageLengthExceeded');
    expectS3Error(await req({ method: 'HEAD', bucket: b }), 404, 'NoSuchBucket', 'HEAD');
    await stillServing();
  });

  it('InvalidPartNumber (416) for part 2 of a single-part object (s3.md §3.0.6)', async () => {
    const res = await req({ method: 'GET', bucket, key: 'small', query: { partNumber: '2' } });
    expectS3Error(res, 416, 'InvalidPartNumber');
    const one = await req({ method: 'GET', bucket, key: 'small', query: { partNumber: '1' } });
    expect([one.status, one.headers['x-amz-mp-parts-count'], one.text()]).toEqual([206, '1', 'twelve bytes']);
  });

  it('NoSuchVersion for a well-formed version id that does not exist (s3.md §3.0.7)', async () => {
    const res = await req({ method: 'GET', bucket, key: 'small', query: { versionId: 'A'.repeat(32) } });
    expectS3Error(res, 404, 'NoSuchVersion');
    const nul = await req({ method: 'GET', bucket, key: 'small', query: { versionId: 'null' } });
    expect(nul.status).toBe(200);
  });

  // a read of missing bytes is damage, answered as damage (segment-damage.test.ts), no longer as InternalError
  it('500 XTuskObjectDamaged when the stored bytes are gone underneath, and the server keeps serving', async () => {
    expect((await req({ method: 'PUT', bucket, key: 'doomed', body: 'x'.repeat(5000) })).status).toBe(200);
    // Cut every segment file back to its header: the index still points at bytes that no longer exist.
    const segments = join(server.dataDir, 'segments');
    for (const f of readdirSync(segments)) truncateSync(join(segments, f), 64);
    expectS3Error(await req({ method: 'GET', bucket, key: 'doomed' }), 500, 'XTuskObjectDamaged');
    expect((await req({ method: 'PUT', bucket, key: 'after', body: 'fine' })).status).toBe(200);
    const after = await req({ method: 'GET', bucket, key: 'after' });
    expect([after.status, after.text()]).toEqual([200, 'fine']);
  });
});
