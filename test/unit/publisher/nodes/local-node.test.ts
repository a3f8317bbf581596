import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyConfirmation } from '../../../../src/publisher/nodes/confirmation.js';
import { openLocalNode, type LocalNode } from '../../../../src/publisher/nodes/local-node.js';
import { pairToShard, shardToPair } from '../../../../src/publisher/nodes/rotation.js';
import { fakeBlob, tempDir } from './helpers.js';

const N = 10;
const SHARDS = [2, 3, 4];

describe('local storage node', () => {
  let dir: string;
  let node: LocalNode;

  beforeEach(async () => {
    dir = tempDir();
    node = await openLocalNode({ dir, nodeId: 'n1', shards: SHARDS, nShards: N, durability: 'relaxed' });
  });
  afterEach(async () => {
    await node.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ownPairs = (blobId: Buffer) => SHARDS.map((s) => shardToPair(s, blobId, N));

  async function storeAll(blob: ReturnType<typeof fakeBlob>): Promise<void> {
    await node.putMetadata(blob.blobId, blob.metadata);
    for (const pair of ownPairs(blob.blobId)) {
      await node.putSliver(blob.blobId, pair, 'primary', blob.slivers(pair).primary);
      await node.putSliver(blob.blobId, pair, 'secondary', blob.slivers(pair).secondary);
    }
  }

  it('reports its identity', async () => {
    const info = await node.info();
    expect(info).toEqual({ nodeId: 'n1', publicKey: node.publicKey, shards: SHARDS, nShards: N });
    expect(Buffer.from(info.publicKey, 'base64').length).toBe(32);
    expect(await node.health()).toMatchObject({ status: 'ready', nodeId: 'n1', shards: SHARDS });
  });

  it('stores and returns metadata and slivers; a second put is already-stored', async () => {
    const blob = fakeBlob(N, 500);
    expect(await node.getMetadata(blob.blobId)).toBeUndefined();
    expect(await node.putMetadata(blob.blobId, blob.metadata)).toBe('stored');
    expect(await node.putMetadata(blob.blobId, blob.metadata)).toBe('already-stored');
    expect((await node.getMetadata(blob.blobId))!.equals(blob.metadata)).toBe(true);
    const pair = ownPairs(blob.blobId)[0]!;
    expect(await node.getSliver(blob.blobId, pair, 'primary')).toBeUndefined();
    expect(await node.putSliver(blob.blobId, pair, 'primary', blob.slivers(pair).primary)).toBe('stored');
    expect(await node.putSliver(blob.blobId, pair, 'primary', blob.slivers(pair).primary)).toBe('already-stored');
    expect((await node.getSliver(blob.blobId, pair, 'primary'))!.equals(blob.slivers(pair).primary)).toBe(true);
    expect(await node.getSliver(blob.blobId, pair, 'secondary')).toBeUndefined();
  });

  it('refuses slivers of shards it does not hold, and slivers before metadata', async () => {
    const blob = fakeBlob(N, 500);
    const foreign = Array.from({ length: N }, (_, p) => p).find((p) => !SHARDS.includes(pairToShard(p, blob.blobId, N)))!;
    const own = ownPairs(blob.blobId)[0]!;
    await expect(node.putSliver(blob.blobId, own, 'primary', blob.slivers(own).primary)).rejects.toMatchObject({ code: 'MISSING_METADATA' });
    await node.putMetadata(blob.blobId, blob.metadata);
    await expect(node.putSliver(blob.blobId, foreign, 'primary', blob.slivers(foreign).primary)).rejects.toMatchObject({
      code: 'SHARD_NOT_ASSIGNED',
      status: 400,
    });
    await expect(node.getSliver(blob.blobId, foreign, 'primary')).rejects.toMatchObject({ code: 'SHARD_NOT_ASSIGNED' });
    await expect(node.putSliver(blob.blobId, N, 'primary', blob.slivers(own).primary)).rejects.toMatchObject({ code: 'INVALID_PAIR_INDEX' });
    // A sliver of the right pair but the wrong axis shape is refused by the verifier.
    await expect(node.putSliver(blob.blobId, own, 'secondary', blob.slivers(own).primary)).rejects.toMatchObject({ code: 'INVALID_SLIVER' });
  });

  it('refuses metadata for another shard count or another blob id', async () => {
    const blob = fakeBlob(N, 500);
    const other = fakeBlob(7, 500, blob.blobId);
    await expect(node.putMetadata(blob.blobId, other.metadata)).rejects.toMatchObject({ code: 'INVALID_METADATA' });
    await expect(node.putMetadata(fakeBlob(N, 1).blobId, blob.metadata)).rejects.toMatchObject({ code: 'INVALID_METADATA' });
    expect(await node.getMetadata(blob.blobId)).toBeUndefined();
  });

  it('signs a confirmation only once every shard holds both slivers of its pair', async () => {
    const blob = fakeBlob(N, 500);
    const blobType = { kind: 'permanent' as const };
    await expect(node.getConfirmation(blob.blobId, blobType, 1)).rejects.toMatchObject({ code: 'NOT_FULLY_STORED' });
    await node.putMetadata(blob.blobId, blob.metadata);
    const pairs = ownPairs(blob.blobId);
    for (const pair of pairs) await node.putSliver(blob.blobId, pair, 'primary', blob.slivers(pair).primary);
    for (const pair of pairs.slice(0, -1)) await node.putSliver(blob.blobId, pair, 'secondary', blob.slivers(pair).secondary);
    await expect(node.getConfirmation(blob.blobId, blobType, 1)).rejects.toMatchObject({ code: 'NOT_FULLY_STORED' });
    const last = pairs.at(-1)!;
    await node.putSliver(blob.blobId, last, 'secondary', blob.slivers(last).secondary);
    const confirmation = await node.getConfirmation(blob.blobId, blobType, 1);
    expect(await verifyConfirmation(node.publicKey, { epoch: 1, blobId: blob.blobId, blobType }, confirmation)).toBe(true);
    await expect(node.getConfirmation(blob.blobId, blobType, -1)).rejects.toMatchObject({ code: 'INVALID_EPOCH' });
  });

  it('reclaims a blob without touching others', async () => {
    const a = fakeBlob(N, 500);
    const b = fakeBlob(N, 700);
    await storeAll(a);
    await storeAll(b);
    expect(await node.deleteBlob(a.blobId)).toBe(1 + 2 * SHARDS.length);
    expect(await node.deleteBlob(a.blobId)).toBe(0);
    expect(await node.getMetadata(a.blobId)).toBeUndefined();
    await expect(node.getConfirmation(a.blobId, { kind: 'permanent' }, 1)).rejects.toMatchObject({ code: 'NOT_FULLY_STORED' });
    await expect(node.putSliver(a.blobId, ownPairs(a.blobId)[0]!, 'primary', a.slivers(ownPairs(a.blobId)[0]!).primary)).rejects.toMatchObject({
      code: 'MISSING_METADATA',
    });
    expect(await node.getConfirmation(b.blobId, { kind: 'permanent' }, 1)).toBeDefined();
  });

  it('keeps its data and key across a reopen, and refuses another shard count', async () => {
    const blob = fakeBlob(N, 500);
    await storeAll(blob);
    const publicKey = node.publicKey;
    await node.close();
    await expect(node.info()).rejects.toMatchObject({ code: 'NODE_UNAVAILABLE' });
    await expect(openLocalNode({ dir, nodeId: 'n1', shards: SHARDS, nShards: 7, durability: 'relaxed' })).rejects.toThrow(/n_shards=10/);
    node = await openLocalNode({ dir, nodeId: 'n1', shards: SHARDS, nShards: N, durability: 'strict' });
    expect(node.publicKey).toBe(publicKey);
    expect((await node.getMetadata(blob.blobId))!.equals(blob.metadata)).toBe(true);
    const pair = ownPairs(blob.blobId)[1]!;
    expect((await node.getSliver(blob.blobId, pair, 'secondary'))!.equals(blob.slivers(pair).secondary)).toBe(true);
    const confirmation = await node.getConfirmation(blob.blobId, { kind: 'permanent' }, 2);
    expect(await verifyConfirmation(publicKey, { epoch: 2, blobId: blob.blobId, blobType: { kind: 'permanent' } }, confirmation)).toBe(true);
  });

  it('lets exactly one of two concurrent puts of the same sliver store it', async () => {
    const blob = fakeBlob(N, 500);
    await node.putMetadata(blob.blobId, blob.metadata);
    const pair = ownPairs(blob.blobId)[0]!;
    const outcomes = await Promise.all([1, 2, 3].map(() => node.putSliver(blob.blobId, pair, 'primary', blob.slivers(pair).primary)));
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(1);
  });

  describe('whole share in one record (putShare)', () => {
    const share = (blob: ReturnType<typeof fakeBlob>) => ownPairs(blob.blobId).map((pairIndex) => ({ pairIndex, ...blob.slivers(pairIndex) }));

    it('stores metadata and every pair as one record; each part reads back alone; confirmation signs', async () => {
      const blob = fakeBlob(N, 500);
      expect(await node.putShare!(blob.blobId, blob.metadata, share(blob))).toBe('stored');
      expect(await node.putShare!(blob.blobId, blob.metadata, share(blob))).toBe('already-stored');
      expect((await node.getMetadata(blob.blobId))!.equals(blob.metadata)).toBe(true);
      for (const pair of ownPairs(blob.blobId)) {
        expect((await node.getSliver(blob.blobId, pair, 'primary'))!.equals(blob.slivers(pair).primary)).toBe(true);
        expect((await node.getSliver(blob.blobId, pair, 'secondary'))!.equals(blob.slivers(pair).secondary)).toBe(true);
      }
      const blobType = { kind: 'permanent' as const };
      const confirmation = await node.getConfirmation(blob.blobId, blobType, 3);
      expect(await verifyConfirmation(node.publicKey, { epoch: 3, blobId: blob.blobId, blobType }, confirmation)).toBe(true);
      // One stored item: reclaim removes the bundle and nothing is left.
      expect(await node.deleteBlob(blob.blobId)).toBe(1);
      expect(await node.getMetadata(blob.blobId)).toBeUndefined();
      expect(await node.getSliver(blob.blobId, ownPairs(blob.blobId)[0]!, 'primary')).toBeUndefined();
      await expect(node.getConfirmation(blob.blobId, blobType, 3)).rejects.toMatchObject({ code: 'NOT_FULLY_STORED' });
      // Stored again after a reclaim, the new body is read, not a stale cached index.
      expect(await node.putShare!(blob.blobId, blob.metadata, share(blob))).toBe('stored');
      const pair = ownPairs(blob.blobId)[2]!;
      expect((await node.getSliver(blob.blobId, pair, 'secondary'))!.equals(blob.slivers(pair).secondary)).toBe(true);
    });

    it('reads several slivers at once (getSlivers): from the bundle, one by one when stored so, leaving out what it lacks', async () => {
      const blob = fakeBlob(N, 500);
      const pairs = ownPairs(blob.blobId);
      expect(await node.getSlivers(blob.blobId, pairs, 'primary')).toEqual(new Map());
      await node.putShare!(blob.blobId, blob.metadata, share(blob));
      for (const axis of ['primary', 'secondary'] as const) {
        const got = await node.getSlivers(blob.blobId, [pairs[2]!, pairs[0]!], axis);
        expect([...got.keys()]).toEqual([pairs[2], pairs[0]]);
        for (const [pair, sliver] of got) expect(sliver.equals(blob.slivers(pair)[axis]), `${axis} ${pair}`).toBe(true);
      }
      const foreign = Array.from({ length: N }, (_, p) => p).find((p) => !pairs.includes(p))!;
      await expect(node.getSlivers(blob.blobId, [pairs[0]!, foreign], 'primary')).rejects.toMatchObject({ code: 'SHARD_NOT_ASSIGNED' });
      // slivers that came one by one (over HTTP) are read as such
      const other = fakeBlob(N, 700);
      await storeAll(other);
      const loose = await node.getSlivers(other.blobId, ownPairs(other.blobId), 'secondary');
      expect([...loose].every(([pair, sliver]) => sliver.equals(other.slivers(pair).secondary))).toBe(true);
      expect(loose.size).toBe(3);
    });

    it('refuses an incomplete share, a repeated pair, a foreign pair and a bad sliver, storing nothing', async () => {
      const blob = fakeBlob(N, 500);
      const full = share(blob);
      const foreign = Array.from({ length: N }, (_, p) => p).find((p) => !SHARDS.includes(pairToShard(p, blob.blobId, N)))!;
      await expect(node.putShare!(blob.blobId, blob.metadata, full.slice(1))).rejects.toMatchObject({ code: 'INVALID_SLIVER' });
      await expect(node.putShare!(blob.blobId, blob.metadata, [...full, full[0]!])).rejects.toMatchObject({ code: 'INVALID_SLIVER' });
      await expect(node.putShare!(blob.blobId, blob.metadata, [...full, { pairIndex: foreign, ...blob.slivers(foreign) }])).rejects.toMatchObject({
        code: 'SHARD_NOT_ASSIGNED',
      });
      const swapped = full.map((p, i) => (i === 0 ? { ...p, secondary: p.primary } : p));
      await expect(node.putShare!(blob.blobId, blob.metadata, swapped)).rejects.toMatchObject({ code: 'INVALID_SLIVER' });
      await expect(node.putShare!(blob.blobId, fakeBlob(N, 500).metadata, full)).rejects.toMatchObject({ code: 'INVALID_METADATA' });
      expect(await node.getMetadata(blob.blobId)).toBeUndefined();
      expect(await node.deleteBlob(blob.blobId)).toBe(0);
    });

    it('keeps the share across a reopen', async () => {
      const blob = fakeBlob(N, 900);
      await node.putShare!(blob.blobId, blob.metadata, share(blob));
      await node.close();
      node = await openLocalNode({ dir, nodeId: 'n1', shards: SHARDS, nShards: N, durability: 'relaxed' });
      const pair = ownPairs(blob.blobId)[1]!;
      expect((await node.getSliver(blob.blobId, pair, 'primary'))!.equals(blob.slivers(pair).primary)).toBe(true);
      expect(await node.getConfirmation(blob.blobId, { kind: 'permanent' }, 1)).toBeDefined();
    });
  });
});
