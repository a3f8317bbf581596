// The aggregator's streamed read (OpenedBlob.stream): at n = 100 (34 rows) a blob goes out a run of
// rows at a time, each row checked; a row that cannot be had makes it decode the blob once and go
// on from that; a row that does not match its hash is never sent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobCodec, type NativeBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import { openLocalNetwork, type StorageNetwork } from '../../../../src/publisher/nodes/network.js';
import { openBlob } from '../../../../src/publisher/service/aggregator.js';
import type { BlobReadContext } from '../../../../src/publisher/service/context.js';
import { randomBytes } from '../codec/vector-input.js';

const N = 100;
let dir: string;
let codec: NativeBlobCodec;
let network: StorageNetwork;
let ctx: BlobReadContext;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-aggregator-stream-'));
  codec = await openBlobCodec({ threads: 2 });
  network = await openLocalNetwork({ dir, nShards: N, nodeCount: 10, durability: 'relaxed', completionGraceMs: 50 });
  ctx = { backend: { slivers: network }, codec, nShards: N };
});
afterAll(async () => {
  await network?.close();
  await codec?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function store(data: Buffer): Promise<Buffer> {
  const e = await codec.encode(data, N);
  await network.storeBlob(e.blobId, e.metadataBcs, (p) => e.sliverPair(p), { kind: 'permanent' }, 1);
  return e.blobId;
}

async function streamed(id: Buffer): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await openBlob(ctx, id.toString('base64url'))).stream()) chunks.push(chunk);
  return chunks;
}

describe('OpenedBlob.stream', () => {
  it('yields the blob in runs of rows, identical to the whole read', async () => {
    const data = randomBytes(11, 200_000);
    const id = await store(data);
    const chunks = await streamed(id);
    expect(chunks.length).toBe(3); // 34 rows, 16 at a time
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    expect((await (await openBlob(ctx, id.toString('base64url'))).whole()).equals(data)).toBe(true);
  });

  it('decodes once and goes on when a row is missing, and never sends a row that does not match its hash', async () => {
    const data = randomBytes(12, 150_000);
    const id = await store(data);
    // row 20 lost: its node forgets the blob
    await network.nodeForPair(id, 20).client.deleteBlob(id);
    expect(Buffer.concat(await streamed(id)).equals(data)).toBe(true);
    // row 3 wrong on its node: the row check leaves it out, the decode rebuilds it
    const e = await codec.encode(data, N);
    const owner = network.nodeForPair(id, 3).client;
    await owner.deleteBlob(id);
    await owner.putMetadata(id, e.metadataBcs);
    const bad = Buffer.from(e.sliverPair(3).primary);
    bad[bad.length - 7]! ^= 0x55;
    await owner.putSliver(id, 3, 'primary', bad);
    expect(Buffer.concat(await streamed(id)).equals(data)).toBe(true);
  });
});
