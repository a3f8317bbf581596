// How a thread other than the publisher's reads its storage network (threads/front-publisher.ts):
// the in-process nodes through read-only views of their directories, remote nodes by their URLs.
// The Walrus network has no such view: its reads stay with the publisher's thread.

import path from 'node:path';
import { RemoteNodeClient } from '../nodes/http-client.js';
import { LocalNode, openLocalNodeReader } from '../nodes/local-node.js';
import { StorageNetwork, type NetworkMember } from '../nodes/network.js';
import type { BlobBackend } from './backend.js';
import { EmbeddedBackend } from './embedded-backend.js';

interface MemberView {
  nodeId: string;
  publicKey: string;
  shards: number[];
  /** a remote node's; undefined for an in-process one, read in `<nodesDir>/<nodeId>` */
  url?: string;
}

/** Plain data: it crosses to worker threads. */
export interface NetworkView {
  nShards: number;
  nodesDir: string;
  members: MemberView[];
}

export interface NetworkReader {
  network: StorageNetwork;
  /** Reads from here on see every sliver the publisher's thread stored before this call. */
  refresh(): void;
  /** An in-process node's compaction deleted one of its segments. */
  segmentRemoved(nodeId: string, segment: number): void;
  close(): Promise<void>;
}

/** The view of an embedded backend's network; undefined for Walrus. */
export function networkView(backend: BlobBackend, nodesDir: string): NetworkView | undefined {
  return backend instanceof EmbeddedBackend ? storageNetworkView(backend.network, nodesDir) : undefined;
}

/** `nodesDir`: where the in-process nodes have their directories (openLocalNetwork's `dir`). */
export function storageNetworkView(network: StorageNetwork, nodesDir: string): NetworkView {
  const members = network.members.map((m): MemberView => {
    const view = { nodeId: m.nodeId, publicKey: m.publicKey, shards: [...m.shards] };
    if (m.client instanceof LocalNode) return view;
    if (m.client instanceof RemoteNodeClient) return { ...view, url: m.client.url };
    throw new Error(`storage node ${m.nodeId} is neither in process nor remote`);
  });
  return { nShards: network.nShards, nodesDir, members };
}

export async function openNetworkReader(view: NetworkView): Promise<NetworkReader> {
  const local = new Map<string, LocalNode>();
  const members: NetworkMember[] = [];
  try {
    for (const m of view.members) {
      let client;
      if (m.url !== undefined) client = new RemoteNodeClient(m.url);
      else {
        client = await openLocalNodeReader({ dir: path.join(view.nodesDir, m.nodeId), nodeId: m.nodeId, shards: m.shards, nShards: view.nShards });
        local.set(m.nodeId, client);
      }
      members.push({ client, nodeId: m.nodeId, publicKey: m.publicKey, shards: m.shards });
    }
  } catch (e) {
    await Promise.all([...local.values()].map((n) => n.close()));
    throw e;
  }
  return {
    network: new StorageNetwork(members, view.nShards),
    refresh() {
      for (const node of local.values()) node.refresh();
    },
    segmentRemoved(nodeId, segment) {
      local.get(nodeId)?.segmentRemoved(segment);
    },
    async close() {
      await Promise.all([...local.values()].map((n) => n.close()));
    },
  };
}
