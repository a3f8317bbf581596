// Reading a blob back from the nodes that hold its shards (walrus.md §11): the metadata from the
// first node whose copy is accepted, and primary slivers by pair index from the node of each
// pair's shard. Shared by the embedded network and the Walrus network's committee.

import { isStorageNodeError, StorageNodeError } from './errors.js';
import { NotEnoughSliversError } from './network-errors.js';
import { pairToShard } from './rotation.js';
import { runBounded } from './run-bounded.js';
import type { StorageNodeClient } from './types.js';

export type NodeReader = Pick<StorageNodeClient, 'getMetadata' | 'getSliver' | 'getSlivers'>;

export class SliverReader {
  /**
   * `shardOwner[s]` reads shard s; `nodes` lists every node once, in the order metadata is asked.
   * `readConcurrency`: primary slivers requested at a time (default 64).
   */
  constructor(
    private readonly nodes: readonly NodeReader[],
    private readonly shardOwner: readonly NodeReader[],
    private readonly readConcurrency = 64,
  ) {}

  private get nShards(): number {
    return this.shardOwner.length;
  }

  private nodeForPair(blobId: Buffer, pair: number): NodeReader {
    return this.shardOwner[pairToShard(pair, blobId, this.nShards)]!;
  }

  /** The metadata from the first node that has it (and, if given, whose copy `accept` approves). */
  async getMetadata(blobId: Buffer, accept?: (metadataBcs: Buffer) => boolean | Promise<boolean>): Promise<Buffer | undefined> {
    let answered = false;
    let lastError: Error | undefined;
    for (const node of this.nodes) {
      try {
        const metadata = await node.getMetadata(blobId);
        answered = true;
        if (metadata && (!accept || (await accept(metadata)))) return metadata;
      } catch (e) {
        lastError = e as Error;
      }
    }
    if (!answered) throw new StorageNodeError('NODE_UNAVAILABLE', `no storage node answered: ${lastError?.message}`);
    return undefined;
  }

  /**
   * `wanted` (normally n_primary) primary slivers keyed by pair index, trying systematic pairs
   * 0..wanted−1 first, then the others; skips nodes found unreachable and slivers `accept` rejects.
   */
  async readPrimarySlivers(
    blobId: Buffer,
    wanted: number,
    accept?: (pairIndex: number, sliverBcs: Buffer) => boolean | Promise<boolean>,
  ): Promise<Map<number, Buffer>> {
    const found = new Map<number, Buffer>();
    const down = new Set<NodeReader>();
    let next = 0;
    const take = async (pair: number, sliver: Buffer | undefined): Promise<void> => {
      if (sliver && found.size < wanted && (!accept || (await accept(pair, sliver)))) found.set(pair, sliver);
    };
    // Rounds: as many pairs as are still missing, in order (systematic ones first), asked of their
    // nodes together: one call for a node that reads several at once, one per sliver otherwise.
    while (found.size < wanted && next < this.nShards) {
      const byNode = new Map<NodeReader, number[]>();
      for (let missing = wanted - found.size; missing > 0 && next < this.nShards; ) {
        const pair = next++;
        const node = this.nodeForPair(blobId, pair);
        if (down.has(node)) continue;
        const pairs = byNode.get(node);
        if (pairs) pairs.push(pair);
        else byNode.set(node, [pair]);
        missing--;
      }
      const calls = [...byNode].flatMap(([node, pairs]) =>
        node.getSlivers
          ? [{ node, run: async () => {
              const slivers = await node.getSlivers!(blobId, pairs, 'primary');
              for (const pair of pairs) await take(pair, slivers.get(pair));
            } }]
          : pairs.map((pair) => ({ node, run: async () => take(pair, await node.getSliver(blobId, pair, 'primary')) })),
      );
      await runBounded(calls, this.readConcurrency, async ({ node, run }) => {
        if (down.has(node)) return;
        try {
          await run();
        } catch (e) {
          // an unreachable node is not asked again; any other failure only loses that sliver
          if (isStorageNodeError(e, 'NODE_UNAVAILABLE')) down.add(node);
        }
      });
    }
    if (found.size < wanted) throw new NotEnoughSliversError(found.size, wanted);
    return new Map([...found].sort(([a], [b]) => a - b).slice(0, wanted));
  }

  /** Primary sliver `pair` from the node holding it if it has it and `accept` takes it, else undefined. */
  async readPrimarySliver(
    blobId: Buffer,
    pair: number,
    accept?: (pairIndex: number, sliverBcs: Buffer) => boolean | Promise<boolean>,
  ): Promise<Buffer | undefined> {
    try {
      const sliver = await this.nodeForPair(blobId, pair).getSliver(blobId, pair, 'primary');
      return sliver && (!accept || (await accept(pair, sliver))) ? sliver : undefined;
    } catch (e) {
      if (isStorageNodeError(e, 'NODE_UNAVAILABLE')) return undefined;
      throw e;
    }
  }
}
