// A full disk is an answer, not a crash (issue 8, defect 4): with the data directory on a small
// tmpfs, PUTs and DELETEs that cannot be stored answer 507 XTuskStorageFull (XML with RequestId),
// and the server keeps serving what it holds. A DELETE on a full disk used to end the process (an
// index commit failing with ENOSPC left lmdb-js rejections unhandled). The publisher refuses a
// store that does not fit with 429 RESOURCE_EXHAUSTED STORAGE_FULL before it pays for it (issue 30:
// it answered 504 after registering, and paying for, every refused blob).

import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { getBytes, getJson, putBlob, type JsonAnswer } from './helpers/publisher-client.js';
import { publisherOf, startTusk, type TuskServer } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

const DISK_BYTES = 8 << 20;
/** Many small objects: deleting them rewrites enough index pages that LMDB must grow its file. */
const EARLY_OBJECTS = 200;

let server: TuskServer;
beforeAll(async () => {
  // no disk reserve: this test is about the disk really filling up (storage-full.test.ts covers the reserve)
  server = await startTusk({ tmpfsBytes: DISK_BYTES, durability: 'strict', extraArgs: ['--disk-reserve', '1'] });
});
afterAll(async () => {
  await server?.dispose();
});

/** HTTP status of an SDK call: 2xx, or the S3 error's (0 when there was no HTTP answer). */
async function statusOf(call: Promise<{ $metadata: { httpStatusCode?: number } }>): Promise<{ status: number; code?: string }> {
  try {
    return { status: (await call).$metadata.httpStatusCode ?? 0 };
  } catch (e) {
    if (e instanceof S3ServiceException) return { status: e.$metadata.httpStatusCode ?? 0, code: e.name };
    return { status: 0, code: (e as Error).message };
  }
}

const earlyBody = (i: number) => Buffer.alloc(100, i);

/** What a store paid shows in: the ledger's balance and transaction count. */
async function ledgerState(url: string): Promise<{ balance: string; transactions: number }> {
  const { balance, transactions } = (await getJson(url, '/v1/ledger/status')).json;
  return { balance, transactions };
}

function expectStorageFull(r: JsonAnswer): void {
  expect(r.status, r.text).toBe(429);
  expect(r.json.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ reason: 'STORAGE_FULL', domain: 'daemon.walrus.space' }] });
}

describe('a full disk', () => {
  it('answers 507 to writes and deletes that cannot be stored, and keeps serving reads', async () => {
    const client = s3Client(server, { maxAttempts: 1 });
    const bucket = bucketName('full');
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    for (let i = 0; i < EARLY_OBJECTS; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => client.send(new PutObjectCommand({ Bucket: bucket, Key: `early/${i + j}`, Body: earlyBody(i + j) }))),
      );
    }

    // fill the file system, down to the last bytes
    let n = 0;
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1]) {
      for (;;) {
        const put = await statusOf(client.send(new PutObjectCommand({ Bucket: bucket, Key: `fill/${n++}`, Body: Buffer.alloc(size, 7) })));
        if (put.status === 200) continue;
        expect(put, `PUT of ${size} bytes`).toEqual({ status: 507, code: 'XTuskStorageFull' });
        break;
      }
      expect(n, 'the disk never filled').toBeLessThan(10_000);
    }

    // delete until the index itself has no room to commit
    const deleted = new Set<number>();
    let refused = false;
    for (let i = 0; i < EARLY_OBJECTS && !refused; i++) {
      const del = await statusOf(client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `early/${i}` })));
      expect([204, 507], `DELETE early/${i}: ${JSON.stringify(del)}\n${server.output().slice(-2000)}`).toContain(del.status);
      if (del.status === 204) deleted.add(i);
      else {
        expect(del.code).toBe('XTuskStorageFull');
        refused = true;
      }
    }
    expect(refused, 'no DELETE ran out of space: the test did not reach a full index').toBe(true);
    expect(server.alive()).toBe(true);

    // the error is S3's XML, with a RequestId
    const raw = await s3Request(server, { method: 'PUT', bucket, key: 'one-more', body: Buffer.alloc(64 << 10, 1) });
    expectS3Error(raw, 507, 'XTuskStorageFull', 'PUT');

    // everything not deleted still reads back
    for (let i = 0; i < EARLY_OBJECTS; i++) {
      if (deleted.has(i)) continue;
      const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `early/${i}` }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(earlyBody(i)), `early/${i}`).toBe(true);
    }
    expect(server.alive()).toBe(true);
  }, 120_000);
});

describe('a full disk under the publisher', () => {
  it('refuses blob stores that cannot be kept with 429 STORAGE_FULL, unpaid, and keeps serving stored blobs', async () => {
    const pub = await startTusk({ tmpfsBytes: DISK_BYTES, durability: 'strict', publisherListen: '127.0.0.1:0', extraArgs: ['--n-shards', '10', '--disk-reserve', '1'] });
    try {
      const { url, key } = await publisherOf(pub);
      const firstBody = Buffer.alloc(1000, 1);
      const first = await putBlob(url, `/${key}/v1/blobs`, firstBody);
      expect(first.status, first.text).toBe(200);
      const blobId: string = first.json.newlyCreated.blobObject.blobId;

      let full = false;
      for (let i = 0; i < 40 && !full; i++) {
        const before = await ledgerState(url);
        const r = await putBlob(url, `/${key}/v1/blobs`, Buffer.alloc(512 << 10, i + 2));
        if (r.status === 200) continue;
        // the check before paying estimates; a store whose slivers the nodes could not keep after all
        // misses its confirmations (504), paid, as on Walrus
        if (r.status === 504) continue;
        expectStorageFull(r);
        expect(await ledgerState(url)).toEqual(before);
        full = true;
      }
      expect(full, 'the disk never filled').toBe(true);
      expect(pub.alive(), pub.output().slice(-3000)).toBe(true);
      const back = await getBytes(url, `/v1/blobs/${blobId}`);
      expect(back.status).toBe(200);
      expect(back.body.equals(firstBody)).toBe(true);
      // an already certified blob needs no room: it is answered as before
      const again = await putBlob(url, `/${key}/v1/blobs`, firstBody);
      expect(again.status, again.text).toBe(200);
      expect(again.json.alreadyCertified.blobId).toBe(blobId);
    } finally {
      await pub.dispose();
    }
  }, 120_000);

  it('refuses a store below the disk reserve before registering it: the ledger is not charged', async () => {
    const pub = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs: ['--n-shards', '10', '--disk-reserve', '1000000GiB'] });
    try {
      const { url, key } = await publisherOf(pub);
      const before = await ledgerState(url);
      for (const path of [`/${key}/v1/blobs?epochs=2`, `/${key}/v1/blobs?deletable=true`]) {
        expectStorageFull(await putBlob(url, path, Buffer.alloc(200_000, 9)));
      }
      expect(await ledgerState(url)).toEqual(before);
      expect(pub.output()).toMatch(/"level":40,[^\n]*publisher: PUT \/<endpoint_key>\/v1\/blobs: the publisher has no storage space left: storing \d+ encoded bytes/);
    } finally {
      await pub.dispose();
    }
  });
});
