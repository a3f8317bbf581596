import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runStorageNodeCli } from '../../../../src/publisher/cli/storage-node.js';
import { verifyConfirmation } from '../../../../src/publisher/nodes/confirmation.js';
import { RemoteNodeClient } from '../../../../src/publisher/nodes/http-client.js';
import { bodyLimits, serveStorageNode, type StorageNodeServer } from '../../../../src/publisher/nodes/http-server.js';
import { blobIdToText } from '../../../../src/publisher/nodes/identifiers.js';
import { openLocalNode, type LocalNode } from '../../../../src/publisher/nodes/local-node.js';
import { shardToPair, StorageNetwork } from '../../../../src/publisher/nodes/network.js';
import { shardAssignment } from '../../../../src/publisher/nodes/shard-assignment.js';
import { fakeBlob, tempDir } from './helpers.js';

interface ErrorJson {
  error: { status: string; details: Array<{ reason: string }> };
}

const N = 10;

describe('storage-node HTTP server and RemoteNodeClient', () => {
  let dir: string;
  const nodes: LocalNode[] = [];
  const servers: StorageNodeServer[] = [];
  const clients: RemoteNodeClient[] = [];

  beforeAll(async () => {
    dir = tempDir();
    const assignment = shardAssignment(N, 4);
    for (const [i, shards] of assignment.entries()) {
      const node = await openLocalNode({ dir: path.join(dir, `n${i}`), nodeId: `remote-${i}`, shards, nShards: N, durability: 'relaxed' });
      nodes.push(node);
      const server = await serveStorageNode(node, '127.0.0.1', 0);
      servers.push(server);
      clients.push(new RemoteNodeClient(server.url, { timeoutMs: 5_000 }));
    }
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const n of nodes) await n.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves health with the node identity', async () => {
    expect(servers[0]!.port).toBeGreaterThan(0);
    expect(await clients[0]!.info()).toEqual(await nodes[0]!.info());
    expect(await clients[1]!.health()).toMatchObject({ status: 'ready', nodeId: 'remote-1', shards: nodes[1]!.shards });
  });

  it('round-trips metadata, slivers and confirmations over HTTP', async () => {
    const client = clients[2]!;
    const node = nodes[2]!;
    const blob = fakeBlob(N, 3_000);
    expect(await client.getMetadata(blob.blobId)).toBeUndefined();
    expect(await client.putMetadata(blob.blobId, blob.metadata)).toBe('stored');
    expect(await client.putMetadata(blob.blobId, blob.metadata)).toBe('already-stored');
    expect((await client.getMetadata(blob.blobId))!.equals(blob.metadata)).toBe(true);
    await expect(client.getConfirmation(blob.blobId, { kind: 'permanent' }, 1)).rejects.toMatchObject({ code: 'NOT_FULLY_STORED', status: 400 });
    for (const shard of node.shards) {
      const pair = shardToPair(shard, blob.blobId, N);
      expect(await client.putSliver(blob.blobId, pair, 'primary', blob.slivers(pair).primary)).toBe('stored');
      expect(await client.putSliver(blob.blobId, pair, 'secondary', blob.slivers(pair).secondary)).toBe('stored');
      expect((await client.getSliver(blob.blobId, pair, 'secondary'))!.equals(blob.slivers(pair).secondary)).toBe(true);
    }
    const objectId = `0x${'cd'.repeat(32)}`;
    const confirmation = await client.getConfirmation(blob.blobId, { kind: 'deletable', objectId }, 9);
    expect(await verifyConfirmation(node.publicKey, { epoch: 9, blobId: blob.blobId, blobType: { kind: 'deletable', objectId } }, confirmation)).toBe(true);
    expect(await client.deleteBlob(blob.blobId)).toBe(1 + 2 * node.shards.length);
    expect(await client.getMetadata(blob.blobId)).toBeUndefined();
  });

  it('maps node errors to typed errors and §10.4 JSON bodies', async () => {
    const client = clients[0]!;
    const blob = fakeBlob(N, 100);
    await client.putMetadata(blob.blobId, blob.metadata);
    const foreignShard = nodes[1]!.shards[0]!;
    const foreignPair = shardToPair(foreignShard, blob.blobId, N);
    await expect(client.putSliver(blob.blobId, foreignPair, 'primary', blob.slivers(foreignPair).primary)).rejects.toMatchObject({
      name: 'StorageNodeError',
      code: 'SHARD_NOT_ASSIGNED',
    });
    await expect(client.getSliver(blob.blobId, foreignPair, 'primary')).rejects.toMatchObject({ code: 'SHARD_NOT_ASSIGNED' });

    const url = `${servers[0]!.url}/v1/blobs/${blobIdToText(blob.blobId)}/slivers/${foreignPair}/primary`;
    const response = await fetch(url, { method: 'PUT', body: blob.slivers(foreignPair).primary });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await response.json();
    expect(body).toEqual({
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: expect.stringContaining('not assigned to this node'),
        details: [{ '@type': 'ErrorInfo', reason: 'SHARD_NOT_ASSIGNED', domain: 'storage.walrus.space', metadata: {} }],
      },
    });

    const missing = await fetch(`${servers[0]!.url}/v1/blobs/nope`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorJson).error.details[0]!.reason).toBe('INVALID_BLOB_ID');
    const unknown = await fetch(`${servers[0]!.url}/v2/whatever`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ErrorJson).error.details[0]!.reason).toBe('ROUTE_NOT_FOUND');

    const tooBig = await fetch(`${servers[0]!.url}/v1/blobs/${blobIdToText(blob.blobId)}/metadata`, {
      method: 'PUT',
      body: Buffer.alloc(bodyLimits(N).metadata + 1),
    });
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as ErrorJson).error).toMatchObject({ status: 'SIZE_EXCEEDED', details: [{ reason: 'BODY_TOO_LARGE' }] });
    await expect(client.putMetadata(blob.blobId, Buffer.from('junk'))).rejects.toMatchObject({ code: 'INVALID_METADATA' });
  });

  it('runs a whole StorageNetwork over remote nodes, with one node down', async () => {
    const network = await StorageNetwork.connect(clients, { completionGraceMs: 100 });
    expect(network.nShards).toBe(N);
    // The last node (3 shards of 10) goes away: 7 = quorum remain.
    const downServer = servers.at(-1)!;
    await downServer.close();
    const down = new RemoteNodeClient(downServer.url.replace(/:\d+$/, ':1'), { timeoutMs: 2_000 });
    const degraded = new StorageNetwork(
      network.members.map((m, i) => (i === 3 ? { ...m, client: down } : m)),
      N,
      { completionGraceMs: 100 },
    );
    const blob = fakeBlob(N, 5_000);
    const result = await degraded.storeBlob(blob.blobId, blob.metadata, blob.slivers, { kind: 'permanent' }, 2);
    expect(result.confirmedShards).toBe(N - nodes[3]!.shards.length);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]!.error).toMatchObject({ code: 'NODE_UNAVAILABLE' });
    const slivers = await degraded.readPrimarySlivers(blob.blobId, 4);
    for (const [pair, bcs] of slivers) expect(bcs.equals(blob.slivers(pair).primary)).toBe(true);
    expect((await degraded.getMetadata(blob.blobId))!.equals(blob.metadata)).toBe(true);
  });
});

describe('tusk storage-node', () => {
  it('serves until stopped, then closes cleanly', async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      const stop = new AbortController();
      const running = runStorageNodeCli(
        ['--listen', '127.0.0.1:0', '--data-dir', dir, '--shards', '0-4,8', '--n-shards', '10', '--durability=relaxed'],
        stop.signal,
      );
      let url: string | undefined;
      for (let i = 0; i < 200 && !url; i++) {
        url = lines.map((l) => /^storage-node listening on (http:\/\/\S+)$/.exec(l)?.[1]).find(Boolean);
        if (!url) await new Promise((r) => setTimeout(r, 10));
      }
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const info = await new RemoteNodeClient(url!).info();
      expect(info).toMatchObject({ nodeId: 'storage-node-0', shards: [0, 1, 2, 3, 4, 8], nShards: 10 });
      // Emitting a real SIGTERM here would also reach the test runner's own handlers.
      expect(process.listenerCount('SIGTERM')).toBeGreaterThan(0);
      stop.abort();
      expect(await running).toBe(0);
      expect(lines).toContain('storage-node: stopped');
      await expect(new RemoteNodeClient(url!, { timeoutMs: 1_000 }).info()).rejects.toMatchObject({ code: 'NODE_UNAVAILABLE' });
    } finally {
      log.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets its directory go when it cannot listen, so that the next start on it works', async () => {
    const dir = tempDir();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      const args = ['--data-dir', dir, '--shards', '0-3', '--n-shards', '4', '--durability', 'relaxed'];
      await expect(runStorageNodeCli(['--listen', `127.0.0.1:${port}`, ...args])).rejects.toThrow(/address already in use/);
      const stop = new AbortController();
      const running = runStorageNodeCli(['--listen', '127.0.0.1:0', ...args], stop.signal);
      for (let i = 0; i < 200 && !lines.some((l) => l.startsWith('storage-node listening on')); i++) await new Promise((r) => setTimeout(r, 10));
      stop.abort();
      expect(await running).toBe(0);
    } finally {
      log.mockRestore();
      taken.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects bad arguments with exit code 2', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await runStorageNodeCli(['--data-dir', '/tmp/x', '--shards', '0-10', '--n-shards', '10'])).toBe(2);
      expect(await runStorageNodeCli(['--shards', '0-1'])).toBe(2);
      expect(await runStorageNodeCli(['--data-dir', '/tmp/x', '--shards', '0', '--listen', 'nohost'])).toBe(2);
      expect(await runStorageNodeCli(['--data-dir', '/tmp/x', '--shards', '0', '--bogus'])).toBe(2);
    } finally {
      err.mockRestore();
    }
  });
});
