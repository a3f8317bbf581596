// Storage class WALRUS (issue #34, README "S3 objects on Walrus") on the Walrus network double:
// `tusk serve --network local` (an in-memory Sui ledger and storage nodes reached through the
// unmodified @mysten/walrus SDK) instead of the embedded network. The AWS SDK at its default
// settings puts small objects (quilt patches) and a large one (several blobs at a small
// --max-blob-size) with the class; they read back byte-identical, ranges across blob boundaries
// included, HEAD names the class and the blob ids, and a lifecycle Transition moves a STANDARD object.
//
// The local network needs Node 22 (@mysten/sui 2.x): skipped on Node 20, as
// walrus-local-network.test.ts is (which checks the refusal there).

import { createHash } from 'node:crypto';
import path from 'node:path';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { WalrusClient } from '@mysten/walrus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client, type StorageClass } from '@aws-sdk/client-s3';
import { LOCAL_NETWORK_DIR } from '../../src/publisher/local-network/serve.js';
import { parseBlobObject } from '../../src/publisher/walrus/move-objects.js';
import { deriveSubWallet } from '../../src/publisher/walrus/wallet-pool.js';
import { loadWallet } from '../../src/publisher/walrus/wallet.js';
import { NEEDS_NODE_22 } from '../double/walrus/node-version.js';
import { s3Request } from './helpers/clients.js';
import { bucketName, randomBody } from './helpers/fixtures.js';
import type { TuskServer } from './helpers/server.js';
import { md5Base64 } from './helpers/sigv4.js';
import { blobRead, localClientConfig, objectBytes, patchRead, rawHead, startWalrusTusk } from './helpers/walrus.js';

const SKIP_REASON = NEEDS_NODE_22 ? '@mysten/sui 2.x needs Node 22' : '';
const WALRUS = 'WALRUS' as StorageClass;
const MAX_BLOB = 256 * 1024;
const BIG = 2 * MAX_BLOB + 12_345;
const SUB_WALLETS = 2;
const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');

let server: TuskServer;
let s3: S3Client;
let publisherUrl: string;
const bucket = bucketName('walrus-net');

beforeAll(async () => {
  if (SKIP_REASON) return;
  ({ server, s3, publisherUrl } = await startWalrusTusk(bucket, ['--network', 'local', '--sub-wallets', `${SUB_WALLETS}`, '--max-blob-size', `${MAX_BLOB}`, '--lifecycle-day', '1s', '--lifecycle-interval', '300ms'], undefined, 90_000));
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await server?.dispose();
});

function getBytes(key: string, range?: string): Promise<Buffer> {
  return objectBytes(s3, bucket, key, range);
}

function aggregatorRead(blobId: string): Promise<Buffer> {
  return blobRead(publisherUrl, blobId);
}

/** The attributes of the Blob objects of `blobIds` the publisher's wallet and sub-wallets own on the network's ledger, by blob id. */
async function blobAttributes(blobIds: string[]): Promise<Map<string, Record<string, string> | null>> {
  const printed = await localClientConfig(server);
  const sui = new SuiGrpcClient({ network: 'local', baseUrl: printed.suiGrpcUrl });
  const walrus = new WalrusClient({ packageConfig: printed.packageConfig, suiClient: sui });
  const main = loadWallet(path.join(server.dataDir, LOCAL_NETWORK_DIR, 'sui.keystore'));
  const owners = [main, ...Array.from({ length: SUB_WALLETS }, (_, i) => deriveSubWallet(main, i))].map((k) => k.toSuiAddress());
  const type = await walrus.getBlobType();
  const out = new Map<string, Record<string, string> | null>();
  for (const owner of owners) {
    const { objects } = await sui.core.listOwnedObjects({ owner, type, limit: 50, include: { content: true } });
    for (const o of objects) {
      const { blobId } = parseBlobObject(o.content, owner);
      // the SDK's readBlobAttributes throws for a Blob object without attributes (the quilts here)
      if (blobIds.includes(blobId)) out.set(blobId, await walrus.readBlobAttributes({ blobObjectId: o.objectId }));
    }
  }
  return out;
}

describe.skipIf(SKIP_REASON !== '')(`storage class WALRUS on --network local${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  it('puts small objects as quilt patches; they read back with the class, the aggregator serves each patch', async () => {
    const bodies = Array.from({ length: 4 }, (_, i) => randomBody(4096 + i));
    await Promise.all(bodies.map((Body, i) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: `small/${i}`, Body, StorageClass: WALRUS }))));
    for (const [i, body] of bodies.entries()) {
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `small/${i}` }));
      expect(head.StorageClass).toBe('WALRUS');
      const raw = await rawHead(server, bucket, `small/${i}`);
      expect(raw['x-tusk-walrus-blob-id']).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await getBytes(`small/${i}`)).equals(body)).toBe(true);
      expect(Buffer.from(await (await patchRead(publisherUrl, raw['x-tusk-walrus-patch-id']!)).arrayBuffer()).equals(body)).toBe(true);
    }
  }, 30_000);

  it('splits a large object into blobs; reads and ranges across blob boundaries agree', async () => {
    const body = randomBody(BIG);
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'big', Body: body, StorageClass: WALRUS }));
    expect(put.ETag).toBe(`"${md5(body)}"`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'big' }));
    expect([head.StorageClass, head.ContentLength]).toEqual(['WALRUS', BIG]);
    const ids = (await rawHead(server, bucket, 'big'))['x-tusk-walrus-blob-id']!.split(',');
    expect(ids).toHaveLength(3);
    expect((await getBytes('big')).equals(body)).toBe(true);
    for (const [start, end] of [
      [MAX_BLOB - 10, MAX_BLOB + 9],
      [MAX_BLOB - 1, 2 * MAX_BLOB],
      [BIG - 5, BIG - 1],
    ] as const) {
      expect((await getBytes('big', `bytes=${start}-${end}`)).equals(body.subarray(start, end + 1)), `${start}-${end}`).toBe(true);
    }
    expect((await aggregatorRead(ids[2]!)).equals(body.subarray(2 * MAX_BLOB))).toBe(true);

    // each blob's Blob object on the ledger carries attributes naming the object and its place in it
    const attributes = await blobAttributes(ids);
    for (const [i, id] of ids.entries()) {
      expect(attributes.get(id), id).toMatchObject({ 'tusk-bucket': bucket, 'tusk-key': 'big', 'tusk-etag': md5(body), 'tusk-size': String(BIG), 'tusk-blob-index': String(i), 'tusk-blob-offset': String(i * MAX_BLOB) });
    }
  }, 30_000);

  it('a lifecycle Transition moves a STANDARD object to WALRUS', async () => {
    const tb = `${bucket}-t`;
    expect((await s3Request(server, { method: 'PUT', bucket: tb })).status).toBe(200);
    const body = randomBody(MAX_BLOB + 1000);
    await s3.send(new PutObjectCommand({ Bucket: tb, Key: 'moved', Body: body }));
    const xml =
      '<LifecycleConfiguration><Rule><ID>to-walrus</ID><Filter></Filter><Status>Enabled</Status>' +
      '<Transition><Days>0</Days><StorageClass>WALRUS</StorageClass></Transition></Rule></LifecycleConfiguration>';
    const configured = await s3Request(server, { method: 'PUT', bucket: tb, query: { lifecycle: '' }, body: xml, headers: { 'content-md5': md5Base64(Buffer.from(xml)) } });
    expect(configured.status, configured.body.toString()).toBe(200);
    const end = Date.now() + 15_000;
    let head: Record<string, string> = {};
    while ((head = await rawHead(server, tb, 'moved'))['x-amz-storage-class'] !== 'WALRUS') {
      if (Date.now() > end) throw new Error(`no transition; server said: ${server.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const ids = head['x-tusk-walrus-blob-id']!.split(',');
    expect(ids).toHaveLength(2);
    expect((await blobAttributes(ids)).get(ids[1]!)).toMatchObject({ 'tusk-bucket': tb, 'tusk-key': 'moved', 'tusk-blob-index': '1', 'tusk-blob-offset': String(MAX_BLOB) });
    const got = await s3.send(new GetObjectCommand({ Bucket: tb, Key: 'moved', Range: `bytes=${MAX_BLOB - 3}-${MAX_BLOB + 3}` }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body.subarray(MAX_BLOB - 3, MAX_BLOB + 4))).toBe(true);
  }, 30_000);
});
