// Storage class WALRUS's renewal and import on a Walrus network (issue #34 items 3 and 5, README
// "S3 objects on Walrus"), on the network double: `tusk serve --network local` with 5 s epochs and
// storage sold 5 epochs ahead. The renewal worker extends, on chain, the Blob objects the objects
// still use (signed by the wallet or sub-wallet that owns each), so they stay readable past their
// first purchase's end; a deleted object's blob is not extended. Then a fresh Tusk given only that
// wallet (a Walrus client config naming the first server's network and keystore) imports the
// bucket from the wallet's Blob objects: quilt patches and a large object's blobs, by their
// attributes, and serves every object byte-identical.
//
// The local network needs Node 22 (@mysten/sui 2.x): skipped on Node 20, as walrus-class-network.test.ts is.

import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { WalrusClient } from '@mysten/walrus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client, type StorageClass } from '@aws-sdk/client-s3';
import { LOCAL_NETWORK_DIR, type LocalClientConfig } from '../../src/publisher/local-network/serve.js';
import { parseBlobObject } from '../../src/publisher/walrus/move-objects.js';
import { deriveSubWallet } from '../../src/publisher/walrus/wallet-pool.js';
import { loadWallet } from '../../src/publisher/walrus/wallet.js';
import { NEEDS_NODE_22 } from '../double/walrus/node-version.js';
import { admin } from './helpers/admin-cli.js';
import { s3Client } from './helpers/clients.js';
import { bucketName, randomBody } from './helpers/fixtures.js';
import { makeTempDir, startTusk, type TuskServer } from './helpers/server.js';
import { localClientConfig, objectBytes, rawHead, startWalrusTusk } from './helpers/walrus.js';

// Renewal and import run on the writer thread alone, and walrus-class-network.test.ts already reads
// WALRUS objects through front-end threads: the threads-4 project does not repeat this one (it
// would add a minute and a half of CI for nothing new).
const SKIP_REASON = NEEDS_NODE_22 ? '@mysten/sui 2.x needs Node 22' : process.env['TUSK_THREADS'] === '4' ? 'renewal and import run on the writer thread alone' : '';
const WALRUS = 'WALRUS' as StorageClass;
// stores on a loaded machine take seconds (and are written again when an epoch ends under them):
// a blob's first purchase must outlast its object's PUT, which is when renewal first sees it
const EPOCH_MS = 5000;
const AHEAD = 5;
const MAX_BLOB = 64 * 1024;
const SUB_WALLETS = 3;

let server: TuskServer;
let s3: S3Client;
let printed: LocalClientConfig;
let chain: { sui: SuiGrpcClient; walrus: WalrusClient; owners: string[]; blobType: string };
const bucket = bucketName('walrus-chain');

beforeAll(async () => {
  if (SKIP_REASON) return;
  ({ server, s3 } = await startWalrusTusk(
    bucket,
    [
      '--network', 'local', '--sub-wallets', `${SUB_WALLETS}`, '--max-blob-size', `${MAX_BLOB}`,
      '--epoch-length', `${EPOCH_MS / 1000}s`, '--max-epochs-ahead', `${AHEAD}`,
      '--walrus-renew-interval', '300ms', '--walrus-renew-ahead', `${AHEAD - 1}`,
    ],
    undefined,
    90_000,
  ));
  printed = await localClientConfig(server);
  const sui = new SuiGrpcClient({ network: 'local', baseUrl: printed.suiGrpcUrl });
  const walrus = new WalrusClient({ packageConfig: printed.packageConfig, suiClient: sui });
  const main = loadWallet(keystore());
  const owners = [main, ...Array.from({ length: SUB_WALLETS }, (_, i) => deriveSubWallet(main, i))].map((k) => k.toSuiAddress());
  chain = { sui, walrus, owners, blobType: await walrus.getBlobType() };
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await server?.dispose();
});

function keystore(): string {
  return path.join(server.dataDir, LOCAL_NETWORK_DIR, 'sui.keystore');
}

/** The network's epoch, from the chain. */
async function epoch(): Promise<number> {
  chain.walrus.reset();
  return (await chain.walrus.systemState()).committee.epoch;
}

async function waitForEpoch(target: number): Promise<void> {
  while ((await epoch()) < target) await new Promise((r) => setTimeout(r, 200));
}

/** The latest end epoch of each blob id among the Blob objects the wallet and its sub-wallets own, from the chain. */
async function endEpochs(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const owner of chain.owners) {
    const { objects } = await chain.sui.core.listOwnedObjects({ owner, type: chain.blobType, limit: 50, include: { content: true } });
    expect(objects.length).toBeLessThan(50);
    for (const o of objects) {
      const { blobId, storage } = parseBlobObject(o.content, owner);
      out.set(blobId, Math.max(out.get(blobId) ?? 0, storage.endEpoch));
    }
  }
  return out;
}

async function put(Key: string, Body: Buffer): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body, StorageClass: WALRUS, ContentType: 'text/x-walrus' }));
}

async function blobsOf(key: string): Promise<string[]> {
  return (await rawHead(server, bucket, key))['x-tusk-walrus-blob-id']!.split(',');
}

describe.skipIf(SKIP_REASON !== '')(`WALRUS renewal and import on --network local${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  const small = Array.from({ length: 3 }, (_, i) => randomBody(3000 + i));
  const large = randomBody(2 * MAX_BLOB + 777);
  const gone = randomBody(MAX_BLOB + 10);
  let goneEnd = 0;

  it('extends on chain the blobs objects still use; they stay readable past their first end; a deleted object is not extended', async () => {
    // a blob is extended from the epoch after its purchase on, each epoch by one (--walrus-renew-ahead AHEAD - 1)
    await Promise.all([...small.map((b, i) => put(`small/${i}`, b)), put('large', large)]);
    await put('gone', gone);
    const goneIds = await blobsOf('gone');
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'gone' }));
    // every blob was bought before now, for AHEAD epochs: at `target` each first purchase has ended
    const target = (await epoch()) + AHEAD;
    const first = await endEpochs();
    const ids = [...new Set([...(await Promise.all(small.map((_, i) => blobsOf(`small/${i}`)))).flat(), ...(await blobsOf('large'))])];
    expect(ids.length).toBeGreaterThanOrEqual(4); // a quilt or more, and the large object's 3 blobs

    await waitForEpoch(target);
    const now = await endEpochs();
    for (const id of ids) expect(now.get(id), id).toBeGreaterThan(Math.max(target, first.get(id)!));
    // the deleted object's blob: not extended since the delete, and lapsed by now
    for (const id of goneIds) expect(now.get(id), id).toBe(first.get(id));
    goneEnd = Math.max(...goneIds.map((id) => now.get(id)!));
    for (const id of ids) expect(server.output()).toMatch(new RegExp(`blob ${id} extended by \\d+ epochs to end epoch \\d+`));
    for (const [i, body] of small.entries()) expect((await objectBytes(s3, bucket, `small/${i}`)).equals(body)).toBe(true);
    expect((await objectBytes(s3, bucket, 'large')).equals(large)).toBe(true);
  }, 90_000);

  it('a fresh Tusk given only the wallet imports the bucket from its Blob objects and serves every object', async () => {
    // the first server's network as a Walrus client config, its wallet as the keystore
    // the deleted object's blob lapses unextended (it is no longer the wallet's to list)
    await waitForEpoch(goneEnd);
    const fresh = makeTempDir();
    const config = path.join(fresh, 'client_config.yaml');
    writeFileSync(
      config,
      `system_object: "${printed.packageConfig.systemObjectId}"\nstaking_object: "${printed.packageConfig.stakingPoolId}"\n` +
        `rpc_urls: ["${printed.suiGrpcUrl}"]\nwallet_config:\n  path: "${keystore()}"\n`,
    );
    const second = await startTusk({
      publisherListen: '127.0.0.1:0',
      dataDir: path.join(fresh, 'data'),
      extraArgs: ['--network', config, '--sub-wallets', `${SUB_WALLETS}`],
      env: { NODE_EXTRA_CA_CERTS: printed.nodeCaFile },
      startTimeoutMs: 60_000,
    });
    const s3b = s3Client(second);
    try {
      await s3b.send(new CreateBucketCommand({ Bucket: bucket }));
      const run = await admin(second, ['buckets', 'walrus-import', bucket]);
      expect(run.stderr).toBe('');
      // the small objects from their quilt patches, 'large' from its blobs' attributes; not 'gone',
      // whose blob lapsed unextended
      expect(run.json).toEqual({ bucket, imported: small.length + 1, present: 0, incomplete: [] });
      const listed = await s3b.send(new ListObjectsV2Command({ Bucket: bucket }));
      expect(listed.Contents?.map((o) => o.Key).sort()).toEqual(['large', 'small/0', 'small/1', 'small/2']);
      for (const [i, body] of small.entries()) expect((await objectBytes(s3b, bucket, `small/${i}`)).equals(body), `small/${i}`).toBe(true);
      expect((await objectBytes(s3b, bucket, 'large')).equals(large)).toBe(true);
      expect((await objectBytes(s3b, bucket, 'large', `bytes=${MAX_BLOB - 5}-${MAX_BLOB + 5}`)).equals(large.subarray(MAX_BLOB - 5, MAX_BLOB + 6))).toBe(true);
      expect((await rawHead(second, bucket, 'large'))['content-type']).toBe('text/x-walrus');
      // run again: nothing new
      expect((await admin(second, ['buckets', 'walrus-import', bucket])).json).toEqual({ bucket, imported: 0, present: small.length + 1, incomplete: [] });
    } finally {
      s3b.destroy();
      await second.dispose();
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 60_000);
});
