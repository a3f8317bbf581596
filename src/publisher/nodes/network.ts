// The storage network as the publisher and the aggregator see it: nodes and the shards they hold.
// Stores a blob's metadata and sliver pairs on the right nodes and gathers a quorum of signed
// confirmations (walrus.md §10.6, §9.3); reads primary slivers back for decoding (walrus.md §11).

import path from 'node:path';
import { verifyConfirmation } from './confirmation.js';
import { encodingParams } from './encoding-params.js';
import { openLocalNode, type LocalNode } from './local-node.js';
import { InsufficientConfirmationsError } from './network-errors.js';
import { isQuorum, maxFaultyShards, quorumWeight } from './quorum.js';
import { pairToShard, shardToPair } from './rotation.js';
import { runBounded } from './run-bounded.js';
import { SliverReader } from './sliver-reader.js';
import { shardAssignment } from './shard-assignment.js';
import type { BlobType, SignedConfirmation, StorageNodeClient } from './types.js';
import type { BlobVerifier } from './verifier.js';

export { pairToShard, shardToPair, blobRotation } from './rotation.js';
export { shardAssignment, parseShardRanges, formatShardRanges } from './shard-assignment.js';
export { isQuorum, maxFaultyShards, quorumWeight } from './quorum.js';
export { InsufficientConfirmationsError, NotEnoughSliversError } from './network-errors.js';

export interface NetworkMember {
  client: StorageNodeClient;
  nodeId: string;
  /** Ed25519 raw public key, base64: confirmations are checked against it */
  publicKey: string;
  shards: readonly number[];
}

export interface StorageNetworkOptions {
  /** Sliver pairs uploaded to one node at a time, for nodes without putShare (default 16: lets the node group its index commits). */
  perNodeConcurrency?: number;
  /** Primary slivers requested at a time when reading (default 64). */
  readConcurrency?: number;
  /** Once a quorum confirmed, how long to keep waiting for the other nodes before answering (default 2 s). */
  completionGraceMs?: number;
}

export interface SliverPair {
  primary: Buffer;
  secondary: Buffer;
}

export interface NodeConfirmation {
  nodeId: string;
  publicKey: string;
  shards: readonly number[];
  confirmation: SignedConfirmation;
}

export interface NodeFailure {
  nodeId: string;
  shards: readonly number[];
  error: Error;
}

export interface StoreBlobResult {
  confirmations: NodeConfirmation[];
  /** shards held by the nodes in `confirmations` */
  confirmedShards: number;
  failures: NodeFailure[];
  /** nodes still uploading when the grace period after the quorum ran out */
  pending: string[];
  /** resolves once every node's upload ended (the pending ones too): the slivers are no longer read */
  settled: Promise<void>;
}

export class StorageNetwork {
  readonly nShards: number;
  private readonly shardOwner: NetworkMember[];
  private readonly perNodeConcurrency: number;
  private readonly reader: SliverReader;
  private readonly completionGraceMs: number;

  /** `members` must hold every shard 0..nShards−1 exactly once. */
  constructor(
    readonly members: readonly NetworkMember[],
    nShards: number,
    options: StorageNetworkOptions = {},
  ) {
    encodingParams(nShards);
    this.nShards = nShards;
    this.shardOwner = new Array<NetworkMember>(nShards);
    for (const member of members) {
      for (const shard of member.shards) {
        if (!Number.isInteger(shard) || shard < 0 || shard >= nShards) throw new RangeError(`${member.nodeId}: shard ${shard} is not in 0..${nShards - 1}`);
        const other = this.shardOwner[shard];
        if (other) throw new RangeError(`shard ${shard} is held by both ${other.nodeId} and ${member.nodeId}`);
        this.shardOwner[shard] = member;
      }
    }
    for (let shard = 0; shard < nShards; shard++) {
      if (!this.shardOwner[shard]) throw new RangeError(`shard ${shard} is held by no storage node`);
    }
    this.perNodeConcurrency = options.perNodeConcurrency ?? 16;
    this.reader = new SliverReader(
      members.map((m) => m.client),
      this.shardOwner.map((m) => m.client),
      options.readConcurrency,
    );
    this.completionGraceMs = options.completionGraceMs ?? 2_000;
  }

  /** Learns each node's id, key and shards from the node itself; every node must answer. */
  static async connect(clients: readonly StorageNodeClient[], options: StorageNetworkOptions = {}): Promise<StorageNetwork> {
    const infos = await Promise.all(clients.map((client) => client.info()));
    const nShards = infos[0]?.nShards;
    if (nShards === undefined) throw new RangeError('a storage network needs at least one node');
    const members = infos.map((info, i): NetworkMember => {
      if (info.nShards !== nShards) throw new RangeError(`${info.nodeId} serves n_shards=${info.nShards}, ${infos[0]!.nodeId} serves ${nShards}`);
      return { client: clients[i]!, nodeId: info.nodeId, publicKey: info.publicKey, shards: info.shards };
    });
    return new StorageNetwork(members, nShards, options);
  }

  get maxFaultyShards(): number {
    return maxFaultyShards(this.nShards);
  }

  get quorumShards(): number {
    return quorumWeight(this.nShards);
  }

  nodeForShard(shard: number): NetworkMember {
    return this.shardOwner[shard]!;
  }

  nodeForPair(blobId: Buffer, pairIndex: number): NetworkMember {
    return this.shardOwner[pairToShard(pairIndex, blobId, this.nShards)]!;
  }

  /**
   * Uploads the metadata to every node and each sliver pair to the node of its shard, then asks each
   * node for its signed confirmation. Resolves once nodes holding a quorum of shards confirmed (and
   * the others finished or the grace period ran out); throws InsufficientConfirmationsError otherwise,
   * once every node's upload ended.
   */
  async storeBlob(
    blobId: Buffer,
    metadataBcs: Buffer,
    slivers: (pairIndex: number) => SliverPair,
    blobType: BlobType,
    epoch: number,
  ): Promise<StoreBlobResult> {
    const confirmations: NodeConfirmation[] = [];
    const failures: NodeFailure[] = [];
    const settled = new Set<NetworkMember>();
    let confirmedShards = 0;
    let quorumReached: () => void = () => {};
    const quorum = new Promise<void>((resolve) => (quorumReached = resolve));

    const all = Promise.all(
      this.members.map(async (member) => {
        try {
          const confirmation = await this.storeOnNode(member, blobId, metadataBcs, slivers, blobType, epoch);
          confirmations.push({ nodeId: member.nodeId, publicKey: member.publicKey, shards: member.shards, confirmation });
          confirmedShards += member.shards.length;
          if (isQuorum(confirmedShards, this.nShards)) quorumReached();
        } catch (e) {
          failures.push({ nodeId: member.nodeId, shards: member.shards, error: e instanceof Error ? e : new Error(String(e)) });
        } finally {
          settled.add(member);
        }
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    const graceAfterQuorum = quorum.then(() => new Promise<void>((resolve) => (timer = setTimeout(resolve, this.completionGraceMs))));
    await Promise.race([all, graceAfterQuorum]);
    clearTimeout(timer);

    if (!isQuorum(confirmedShards, this.nShards)) {
      throw new InsufficientConfirmationsError(confirmedShards, this.quorumShards, failures);
    }
    const pending = this.members.filter((m) => !settled.has(m)).map((m) => m.nodeId);
    return { confirmations: [...confirmations], confirmedShards, failures: [...failures], pending, settled: all.then(() => undefined) };
  }

  getMetadata(blobId: Buffer, accept?: (metadataBcs: Buffer) => boolean | Promise<boolean>): Promise<Buffer | undefined> {
    return this.reader.getMetadata(blobId, accept);
  }

  readPrimarySlivers(blobId: Buffer, wanted: number, accept?: (pairIndex: number, sliverBcs: Buffer) => boolean | Promise<boolean>): Promise<Map<number, Buffer>> {
    return this.reader.readPrimarySlivers(blobId, wanted, accept);
  }

  readPrimarySliver(blobId: Buffer, pair: number, accept?: (pairIndex: number, sliverBcs: Buffer) => boolean | Promise<boolean>): Promise<Buffer | undefined> {
    return this.reader.readPrimarySliver(blobId, pair, accept);
  }

  /** Reclaims the blob on every node (expired blobs); unreachable nodes are reported, not fatal. */
  async deleteBlob(blobId: Buffer): Promise<{ removed: number; failures: NodeFailure[] }> {
    let removed = 0;
    const failures: NodeFailure[] = [];
    await Promise.all(
      this.members.map(async (member) => {
        try {
          const count = await member.client.deleteBlob(blobId);
          removed += count; // not `removed += await …`, which would add to the value read before the await
        } catch (e) {
          failures.push({ nodeId: member.nodeId, shards: member.shards, error: e as Error });
        }
      }),
    );
    return { removed, failures };
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((member) => member.client.close()));
  }

  private async storeOnNode(
    member: NetworkMember,
    blobId: Buffer,
    metadataBcs: Buffer,
    slivers: (pairIndex: number) => SliverPair,
    blobType: BlobType,
    epoch: number,
  ): Promise<SignedConfirmation> {
    const { client } = member;
    if (client.putShare) {
      const pairs = member.shards.map((shard) => {
        const pairIndex = shardToPair(shard, blobId, this.nShards);
        return { pairIndex, ...slivers(pairIndex) };
      });
      await client.putShare(blobId, metadataBcs, pairs);
    } else {
      // A node checks each sliver against the metadata, so the metadata goes first.
      await client.putMetadata(blobId, metadataBcs);
      await runBounded(member.shards, this.perNodeConcurrency, async (shard) => {
        const pair = shardToPair(shard, blobId, this.nShards);
        const { primary, secondary } = slivers(pair);
        await Promise.all([client.putSliver(blobId, pair, 'primary', primary), client.putSliver(blobId, pair, 'secondary', secondary)]);
      });
    }
    const confirmation = await client.getConfirmation(blobId, blobType, epoch);
    if (!(await verifyConfirmation(member.publicKey, { epoch, blobId, blobType }, confirmation))) {
      throw new Error(`${member.nodeId} signed an invalid confirmation`);
    }
    return confirmation;
  }
}

export interface LocalNetworkOptions extends StorageNetworkOptions {
  dir: string;
  nShards: number;
  /** default 10 */
  nodeCount?: number;
  durability: 'strict' | 'relaxed';
  verifier?: BlobVerifier;
  /** each node engine's disk reserve (default: the engine's) */
  diskReserve?: number;
  /** compaction deleted a segment of a node's engine */
  onSegmentRemoved?: (nodeId: string, segment: number) => void;
}

/** Opens `nodeCount` in-process nodes in `<dir>/node-XX`, holding contiguous shard ranges. */
export async function openLocalNetwork(options: LocalNetworkOptions): Promise<StorageNetwork> {
  const nodeCount = options.nodeCount ?? 10;
  const assignment = shardAssignment(options.nShards, nodeCount);
  const width = Math.max(2, String(nodeCount - 1).length);
  const opened = await Promise.allSettled(
    assignment.map((shards, i) => {
      const nodeId = `node-${String(i).padStart(width, '0')}`;
      const removed = options.onSegmentRemoved;
      return openLocalNode({
        dir: path.join(options.dir, nodeId),
        nodeId,
        shards,
        nShards: options.nShards,
        durability: options.durability,
        diskReserve: options.diskReserve,
        verifier: options.verifier,
        onSegmentRemoved: removed && ((segment) => removed(nodeId, segment)),
      });
    }),
  );
  const nodes = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(nodes.map((n) => n.close()));
    throw failed.reason;
  }
  const members = nodes.map((node: LocalNode): NetworkMember => ({ client: node, nodeId: node.nodeId, publicKey: node.publicKey, shards: node.shards }));
  // In-process nodes take their whole share through putShare, as one record.
  return new StorageNetwork(members, options.nShards, options);
}
