// The Walrus committee the publisher writes to and the aggregator reads from: the staking object's
// current committee (node id → shard indices), each node's address from its StakingPool object,
// and a SliverReader over the nodes' REST API (walrus-service node/server/routes.rs:
// GET /v1/blobs/{blob_id}/metadata, GET /v1/blobs/{blob_id}/slivers/{pair}/{primary|secondary}).

import type { SuiGrpcClient } from '@mysten/sui/grpc';
import type { WalrusClient } from '@mysten/walrus';
import { StorageNodeError, unreachable } from '../nodes/errors.js';
import { SliverReader, type NodeReader } from '../nodes/sliver-reader.js';
import type { SliverAxis } from '../nodes/types.js';
import { stakingPoolNetworkAddress } from './move-objects.js';

export interface CommitteeNode {
  nodeId: string;
  /** https://host:port, as the SDK reaches nodes */
  url: string;
  shards: readonly number[];
}

export interface Committee {
  epoch: number;
  nShards: number;
  /** in committee order: a node's index is its signer index in certificates */
  nodes: readonly CommitteeNode[];
  reader: SliverReader;
}

const NODE_TIMEOUT_MS = 30_000;

export async function loadCommittee(walrus: WalrusClient, sui: SuiGrpcClient): Promise<Committee> {
  const staking = await walrus.stakingState();
  const members = staking.committee[0].contents;
  const { objects } = await sui.core.getObjects({ objectIds: members.map((m) => m.key), include: { content: true } });
  const nodes = await Promise.all(
    objects.map(async (object, i): Promise<CommitteeNode> => {
      if (object instanceof Error) throw new Error(`the StakingPool of committee member ${members[i]!.key} could not be read: ${object.message}`);
      const { networkAddress } = stakingPoolNetworkAddress(object.content);
      return { nodeId: members[i]!.key, url: `https://${networkAddress}`, shards: members[i]!.value };
    }),
  );
  const owners: NodeReader[] = new Array(staking.n_shards);
  const readers = nodes.map((node) => new WalrusNodeReader(node.url));
  nodes.forEach((node, i) => node.shards.forEach((shard) => (owners[shard] = readers[i]!)));
  for (let shard = 0; shard < staking.n_shards; shard++) {
    if (!owners[shard]) throw new Error(`shard ${shard} is held by no member of the epoch ${staking.epoch} committee`);
  }
  return { epoch: staking.epoch, nShards: staking.n_shards, nodes, reader: new SliverReader(readers, owners) };
}

/** Reads from one Walrus storage node; a missing item (404) is undefined, an unreachable node NODE_UNAVAILABLE. */
export class WalrusNodeReader implements NodeReader {
  constructor(readonly url: string) {}

  getMetadata(blobId: Buffer): Promise<Buffer | undefined> {
    return this.get(`/v1/blobs/${blobId.toString('base64url')}/metadata`);
  }

  getSliver(blobId: Buffer, pairIndex: number, axis: SliverAxis): Promise<Buffer | undefined> {
    return this.get(`/v1/blobs/${blobId.toString('base64url')}/slivers/${pairIndex}/${axis}`);
  }

  private async get(path: string): Promise<Buffer | undefined> {
    const target = `${this.url}${path}`;
    let response: Response;
    let body: Buffer;
    try {
      response = await fetch(target, { headers: { accept: 'application/octet-stream' }, signal: AbortSignal.timeout(NODE_TIMEOUT_MS) });
      body = Buffer.from(await response.arrayBuffer());
    } catch (e) {
      throw unreachable(`GET ${target}`, e);
    }
    if (response.ok) return body;
    if (response.status === 404) return undefined;
    // Overloaded or failing nodes count as down for this read; other refusals concern this item only.
    if (response.status >= 500 || response.status === 429) throw new StorageNodeError('NODE_UNAVAILABLE', `GET ${target}: HTTP ${response.status}`);
    throw new Error(`GET ${target}: HTTP ${response.status}: ${body.toString('utf8').slice(0, 200)}`);
  }
}
