// The renewal worker of storage class WALRUS (issue #34 item 3, README "S3 objects on Walrus"): with
// 2 s epochs and storage bought 3 epochs ahead, the blobs that objects still name (a quilt shared by
// two small objects, a large object's own blob) are extended before their end epoch, each once per
// renewal, and the objects stay readable past their first purchase's end; a deleted object's blob is
// not extended and lapses. A second server with a budget of 1 FROST extends nothing: it skips, logs
// and counts, and its object's blob lapses.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client, type StorageClass } from '@aws-sdk/client-s3';
import { bucketName, randomBody } from './helpers/fixtures.js';
import type { TuskServer } from './helpers/server.js';
import { rawHead, startWalrusTusk, type WalrusTusk } from './helpers/walrus.js';

const WALRUS = 'WALRUS' as StorageClass;
const EPOCH_MS = Number(process.env['TUSK_RENEWAL_EPOCH_MS'] ?? 2000);
const AHEAD = 3;
/** epochs past the first purchase the objects are read through (at least AHEAD + 2: each live blob renewed once) */
const SPAN = Math.max(AHEAD + 2, Number(process.env['TUSK_RENEWAL_EPOCHS'] ?? 0));
const args = (extra: string[]): string[] => [
  '--n-shards', '100', '--epoch-length', `${EPOCH_MS / 1000}s`, '--max-epochs-ahead', String(AHEAD),
  '--walrus-renew-interval', '300ms', '--walrus-renew-ahead', '1', ...extra,
];
const bucket = bucketName('renew');

let renewing: WalrusTusk;
let budgeted: WalrusTusk;

beforeAll(async () => {
  [renewing, budgeted] = await Promise.all([startWalrusTusk(bucket, args([])), startWalrusTusk(bucket, args(['--walrus-renew-max-wal', '1']))]);
}, 60_000);

afterAll(async () => {
  for (const t of [renewing, budgeted]) {
    t?.s3.destroy();
    await t?.server.dispose();
  }
});

interface LedgerBlob {
  objects: Array<{ object: { id: string; storage: { endEpoch: number } }; certifiedBy: { txDigest: string } | null; state: string }>;
}

async function ledgerBlob(publisherUrl: string, blobId: string): Promise<LedgerBlob['objects'][number]> {
  const res = await fetch(`${publisherUrl}/v1/ledger/blobs/${blobId}`);
  expect(res.status).toBe(200);
  const { objects } = (await res.json()) as LedgerBlob;
  expect(objects).toHaveLength(1);
  return objects[0]!;
}

async function epoch(publisherUrl: string): Promise<number> {
  return ((await (await fetch(`${publisherUrl}/v1/ledger/status`)).json()) as { epoch: number }).epoch;
}

async function put(s3: S3Client, Key: string, Body: Buffer): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body, StorageClass: WALRUS }));
}

async function getBytes(s3: S3Client, Key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

/** GET's status: 200 with the whole body read, else the error's (-1: the connection broke off). */
async function readStatus(s3: S3Client, Key: string): Promise<number> {
  try {
    await getBytes(s3, Key);
    return 200;
  } catch (e) {
    return (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? -1;
  }
}

async function blobOf(server: TuskServer, key: string): Promise<string> {
  return (await rawHead(server, bucket, key))['x-tusk-walrus-blob-id']!;
}

/** The renewal log lines of one blob: the end epoch each extension reached. */
function extensionsOf(server: TuskServer, blobId: string): number[] {
  const re = new RegExp(`blob ${blobId} extended by \\d+ epochs to end epoch (\\d+)`, 'g');
  return [...server.output().matchAll(re)].map((m) => Number(m[1]));
}

async function waitForEpoch(publisherUrl: string, target: number): Promise<void> {
  while ((await epoch(publisherUrl)) < target) await new Promise((r) => setTimeout(r, 200));
}

async function metric(server: TuskServer, name: string): Promise<number> {
  const text = await (await fetch(`${server.endpoint}/tusk/metrics`)).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

describe('renewal of WALRUS blobs', () => {
  it('extends the blobs objects still use, each once per renewal; a deleted object lapses; a budget skips', async () => {
    const small = [randomBody(4096), randomBody(4096)];
    const large = randomBody(1_200_000);
    const gone = randomBody(1_100_000);
    await Promise.all([put(renewing.s3, 'small/0', small[0]!), put(renewing.s3, 'small/1', small[1]!)]);
    await put(renewing.s3, 'large', large);
    await put(renewing.s3, 'gone', gone);
    const lone = randomBody(1_100_000);
    await put(budgeted.s3, 'lone', lone);

    const quilts = new Set([await blobOf(renewing.server, 'small/0'), await blobOf(renewing.server, 'small/1')]);
    const ids = [...quilts, await blobOf(renewing.server, 'large')];
    const goneId = await blobOf(renewing.server, 'gone');
    const loneId = await blobOf(budgeted.server, 'lone');
    const firstEnd = new Map<string, number>();
    for (const id of [...ids, goneId]) firstEnd.set(id, (await ledgerBlob(renewing.publisherUrl, id)).object.storage.endEpoch);
    const loneEnd = (await ledgerBlob(budgeted.publisherUrl, loneId)).object.storage.endEpoch;
    await renewing.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'gone' }));

    // SPAN epochs past the first purchase, and two past the latest first end: every live blob
    // needed (at least) one renewal; each epoch on the way, every live object reads back whole
    const start = await epoch(renewing.publisherUrl);
    const last = Math.max(...firstEnd.values(), loneEnd);
    for (let e = start + 1; e <= Math.max(start + SPAN, last + 2); e++) {
      await waitForEpoch(renewing.publisherUrl, e);
      expect((await getBytes(renewing.s3, 'small/0')).equals(small[0]!), `epoch ${e}`).toBe(true);
      expect((await getBytes(renewing.s3, 'large')).equals(large), `epoch ${e}`).toBe(true);
    }
    await waitForEpoch(budgeted.publisherUrl, loneEnd + 1);

    for (const id of ids) {
      const view = await ledgerBlob(renewing.publisherUrl, id);
      expect(view.state, id).toBe('certified');
      // each renewal once: distinct, rising end epochs, the last one the ledger's
      const ends = extensionsOf(renewing.server, id);
      expect(ends.length, id).toBeGreaterThanOrEqual(1);
      expect(new Set(ends).size, id).toBe(ends.length);
      expect([...ends].sort((a, b) => a - b)).toEqual(ends);
      expect(ends.at(-1)).toBe(view.object.storage.endEpoch);
      expect(view.object.storage.endEpoch).toBeGreaterThan(firstEnd.get(id)!);
      // the ledger's last word on the blob is an ExtendBlob transaction
      const tx = (await (await fetch(`${renewing.publisherUrl}/v1/ledger/transactions/${view.certifiedBy!.txDigest}`)).json()) as { kind: string };
      expect(JSON.stringify(tx)).toContain('ExtendBlob');
    }
    // readable past the first purchase's end
    expect((await getBytes(renewing.s3, 'small/0')).equals(small[0]!)).toBe(true);
    expect((await getBytes(renewing.s3, 'small/1')).equals(small[1]!)).toBe(true);
    expect((await getBytes(renewing.s3, 'large')).equals(large)).toBe(true);

    // the deleted object's blob: never extended, expired at its first end
    expect(extensionsOf(renewing.server, goneId)).toEqual([]);
    const goneView = await ledgerBlob(renewing.publisherUrl, goneId);
    expect(goneView.object.storage.endEpoch).toBe(firstEnd.get(goneId));
    expect(goneView.state).not.toBe('certified');

    const extended = await metric(renewing.server, 'tusk_walrus_renewal_extensions_total');
    expect(extended).toBeGreaterThanOrEqual(ids.length);
    expect(await metric(renewing.server, 'tusk_walrus_renewal_frost_total')).toBeGreaterThan(0);

    // over budget: skipped, logged, counted; the blob lapsed and the object reads as damaged
    expect(budgeted.server.output()).toMatch(new RegExp(`blob ${loneId} .*beyond this pass's budget`));
    expect(await metric(budgeted.server, 'tusk_walrus_renewal_skipped_budget_total')).toBeGreaterThanOrEqual(1);
    expect(await metric(budgeted.server, 'tusk_walrus_renewal_extensions_total')).toBe(0);
    expect((await ledgerBlob(budgeted.publisherUrl, loneId)).object.storage.endEpoch).toBe(loneEnd);
    // the reclaimer (each epoch) removes the lapsed blob's slivers: the object can no longer be read
    // (an S3 error before the status line, not a body that breaks off: the first blob is read first)
    let status = 200;
    for (let i = 0; status === 200 && i < 20; i++) {
      status = await readStatus(budgeted.s3, 'lone');
      if (status === 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(500);
  }, 30_000 + (SPAN + 3) * EPOCH_MS);
});
