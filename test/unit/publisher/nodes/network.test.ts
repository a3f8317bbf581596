import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSliverData } from '../../../../src/publisher/nodes/bcs.js';
import { verifyConfirmation } from '../../../../src/publisher/nodes/confirmation.js';
import { encodingParams } from '../../../../src/publisher/nodes/encoding-params.js';
import { StorageNodeError } from '../../../../src/publisher/nodes/errors.js';
import type { LocalNode } from '../../../../src/publisher/nodes/local-node.js';
import {
  InsufficientConfirmationsError,
  NotEnoughSliversError,
  openLocalNetwork,
  StorageNetwork,
  type NetworkMember,
} from '../../../../src/publisher/nodes/network.js';
import type { StorageNodeClient } from '../../../../src/publisher/nodes/types.js';
import { fakeBlob, tempDir } from './helpers.js';

const PERMANENT = { kind: 'permanent' } as const;

describe('storage network over in-process nodes', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function network(nShards: number, nodeCount = 10): Promise<StorageNetwork> {
    const dir = tempDir();
    const net = await openLocalNetwork({ dir, nShards, nodeCount, durability: 'relaxed', completionGraceMs: 50 });
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }), () => net.close());
    return net;
  }

  /** The same network with some nodes' clients swapped, e.g. for nodes that are down. */
  function withClients(net: StorageNetwork, replace: (m: NetworkMember, i: number) => StorageNodeClient | undefined): StorageNetwork {
    const members = net.members.map((m, i) => ({ ...m, client: replace(m, i) ?? m.client }));
    return new StorageNetwork(members, net.nShards, { completionGraceMs: 50 });
  }

  it('opens 10 nodes in <dir>/node-XX holding contiguous shard ranges', async () => {
    const dir = tempDir();
    const net = await openLocalNetwork({ dir, nShards: 100, durability: 'relaxed' });
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }), () => net.close());
    expect(fs.readdirSync(dir).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `node-0${i}`));
    expect(net.members.map((m) => [m.nodeId, m.shards[0], m.shards.length])).toEqual(
      Array.from({ length: 10 }, (_, i) => [`node-0${i}`, i * 10, 10]),
    );
    expect(new Set(net.members.map((m) => m.publicKey)).size).toBe(10);
    expect(net.quorumShards).toBe(67);
    expect(net.maxFaultyShards).toBe(33);
  });

  it('refuses members that do not partition the shards', async () => {
    const net = await network(10);
    const members = net.members;
    expect(() => new StorageNetwork(members.slice(1), 10)).toThrow(/shard 0 is held by no storage node/);
    expect(() => new StorageNetwork([...members, { ...members[0]!, nodeId: 'dup' }], 10)).toThrow(/held by both/);
  });

  it('stores a blob, gets a quorum of valid confirmations, and reads the systematic slivers back', async () => {
    const net = await network(100);
    const blob = fakeBlob(100, 10_000);
    const result = await net.storeBlob(blob.blobId, blob.metadata, blob.slivers, PERMANENT, 5);
    expect(result.confirmedShards).toBe(100);
    expect(result.failures).toEqual([]);
    expect(result.pending).toEqual([]);
    for (const c of result.confirmations) {
      expect(await verifyConfirmation(c.publicKey, { epoch: 5, blobId: blob.blobId, blobType: PERMANENT }, c.confirmation)).toBe(true);
    }
    // Each pair landed on the node of its shard (walrus.md §12.1).
    for (const pair of [0, 17, 99]) {
      const owner = net.nodeForPair(blob.blobId, pair);
      expect((await owner.client.getSliver(blob.blobId, pair, 'secondary'))!.equals(blob.slivers(pair).secondary)).toBe(true);
    }
    expect((await net.getMetadata(blob.blobId))!.equals(blob.metadata)).toBe(true);
    const { nPrimary } = encodingParams(100);
    const slivers = await net.readPrimarySlivers(blob.blobId, nPrimary);
    expect([...slivers.keys()]).toEqual(Array.from({ length: nPrimary }, (_, i) => i));
    for (const [pair, bcs] of slivers) {
      expect(bcs.equals(blob.slivers(pair).primary)).toBe(true);
      expect(parseSliverData(bcs).index).toBe(pair);
    }
  });

  it('n = 10: still certifies and reads with f = 3 nodes down, not with 4', async () => {
    const net = await network(10);
    const nodes = net.members.map((m) => m.client as LocalNode);
    const blob = fakeBlob(10, 2_000);
    // Nodes 0, 4 and 9 are down: closed nodes answer NODE_UNAVAILABLE.
    for (const i of [0, 4, 9]) await nodes[i]!.close();
    const result = await net.storeBlob(blob.blobId, blob.metadata, blob.slivers, PERMANENT, 1);
    expect(result.confirmedShards).toBe(7);
    expect(result.failures.map((f) => f.nodeId).sort()).toEqual(['node-00', 'node-04', 'node-09']);
    expect(result.failures.every((f) => f.error instanceof StorageNodeError && f.error.code === 'NODE_UNAVAILABLE')).toBe(true);

    const slivers = await net.readPrimarySlivers(blob.blobId, encodingParams(10).nPrimary);
    expect(slivers.size).toBe(4);
    const downMembers = new Set([0, 4, 9].map((i) => net.members[i]));
    for (const [pair, bcs] of slivers) {
      expect(downMembers.has(net.nodeForPair(blob.blobId, pair))).toBe(false);
      expect(bcs.equals(blob.slivers(pair).primary)).toBe(true);
    }
    await nodes[5]!.close();
    const blob2 = fakeBlob(10, 2_000);
    const failure = await net.storeBlob(blob2.blobId, blob2.metadata, blob2.slivers, PERMANENT, 1).catch((e) => e);
    expect(failure).toBeInstanceOf(InsufficientConfirmationsError);
    expect(failure).toMatchObject({ code: 'INSUFFICIENT_CONFIRMATIONS', confirmedShards: 6, neededShards: 7 });
    // With 4 of the 10 shards gone, at most 6 primary slivers remain: still ≥ n_primary = 4.
    expect((await net.readPrimarySlivers(blob.blobId, 4)).size).toBe(4);
    await expect(net.readPrimarySlivers(blob.blobId, 7)).rejects.toBeInstanceOf(NotEnoughSliversError);
  });

  it('n = 100 over 10 nodes: 3 nodes (30 ≤ f = 33 shards) down still certify', async () => {
    const net = await network(100);
    const down = new StorageNodeError('NODE_UNAVAILABLE', 'simulated');
    const failing: StorageNodeClient = new Proxy({} as StorageNodeClient, {
      get: (_t, prop) => (prop === 'close' ? async () => {} : async () => Promise.reject(down)),
    });
    const degraded = withClients(net, (_m, i) => (i < 3 ? failing : undefined));
    // Blob id 0 has rotation 0: pairs 0..29 live on the three failed nodes (shards 0..29).
    const blob = fakeBlob(100, 50_000, Buffer.alloc(32));
    const result = await degraded.storeBlob(blob.blobId, blob.metadata, blob.slivers, { kind: 'deletable', objectId: `0x${'ab'.repeat(32)}` }, 3);
    expect(result.confirmedShards).toBe(70);
    // Systematic pairs on the failed nodes are replaced by later pairs.
    const slivers = await degraded.readPrimarySlivers(blob.blobId, 34);
    expect(slivers.size).toBe(34);
    for (const [pair, bcs] of slivers) expect(bcs.equals(blob.slivers(pair).primary)).toBe(true);
    const skipped = Array.from({ length: 34 }, (_, p) => p).filter((p) => !slivers.has(p));
    expect(skipped).toEqual(Array.from({ length: 30 }, (_, p) => p));
    expect([...slivers.keys()]).toEqual(Array.from({ length: 34 }, (_, p) => 30 + p));
    // Readers may reject slivers (e.g. failed hash checks) and get others instead.
    const picky = await degraded.readPrimarySlivers(blob.blobId, 34, (pair) => pair % 2 === 1);
    expect([...picky.keys()].every((p) => p % 2 === 1)).toBe(true);
    expect(picky.size).toBe(34);
  });

  it('does not count a node whose confirmation fails verification', async () => {
    const net = await network(10);
    const forger = net.members[1]!.client;
    const lying = withClients(net, (m, i) =>
      i === 1
        ? Object.assign(Object.create(forger) as StorageNodeClient, {
            getConfirmation: async (blobId: Buffer, _t: unknown, epoch: number) => forger.getConfirmation(blobId, PERMANENT, epoch + 1),
          })
        : undefined,
    );
    const blob = fakeBlob(10, 300);
    const result = await lying.storeBlob(blob.blobId, blob.metadata, blob.slivers, PERMANENT, 4);
    expect(result.confirmedShards).toBe(9);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]!.error.message).toMatch(/node-01 signed an invalid confirmation/);
  });

  it('answers after the grace period once a quorum confirmed, leaving a hung node pending', async () => {
    const net = await network(10);
    const hung: StorageNodeClient = new Proxy({} as StorageNodeClient, {
      get: (_t, prop) => (prop === 'close' ? async () => {} : () => new Promise(() => {})),
    });
    const slow = withClients(net, (_m, i) => (i === 2 ? hung : undefined));
    const blob = fakeBlob(10, 300);
    const started = Date.now();
    const result = await slow.storeBlob(blob.blobId, blob.metadata, blob.slivers, PERMANENT, 1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.confirmedShards).toBe(9);
    expect(result.pending).toEqual(['node-02']);
  });

  it('reclaims a blob from every node and tolerates unreachable ones', async () => {
    const net = await network(10);
    const blob = fakeBlob(10, 300);
    await net.storeBlob(blob.blobId, blob.metadata, blob.slivers, PERMANENT, 1);
    await (net.members[3]!.client as LocalNode).close();
    const { removed, failures } = await net.deleteBlob(blob.blobId);
    expect(removed).toBe(9); // in-process nodes keep their share of a blob as one record
    expect(failures.map((f) => f.nodeId)).toEqual(['node-03']);
    expect(await net.getMetadata(blob.blobId)).toBeUndefined();
    await expect(net.readPrimarySlivers(blob.blobId, 4)).rejects.toBeInstanceOf(NotEnoughSliversError);
  });
});
