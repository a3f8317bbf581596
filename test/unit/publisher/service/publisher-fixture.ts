// A publisher on port 0 over a hand-clocked ledger, ten in-process storage nodes (one shard each,
// n = 10: f = 3, n_primary = 4) and the fake codec.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLedger, type Ledger } from '../../../../src/publisher/ledger/index.js';
import { openLocalNetwork, type StorageNetwork } from '../../../../src/publisher/nodes/network.js';
import { EmbeddedBackend } from '../../../../src/publisher/service/embedded-backend.js';
import { startPublisher, type PublisherOptions, type RunningPublisher } from '../../../../src/publisher/service/publisher-server.js';
import { putBlob } from '../../../e2e/helpers/publisher-client.js';
import { fakeCodec, type FakeCodec } from './fake-codec.js';

export const KEY = 'unit-test-endpoint-key';
export const N_SHARDS = 10;
export const GENESIS_MS = 1_700_000_000_000;
export const EPOCH_MS = 60_000;

export interface PublisherFixture {
  url: string;
  /** the fixture's directory: the ledger in `ledger/`, the nodes in `nodes/` */
  dir: string;
  ledger: Ledger;
  network: StorageNetwork;
  codec: FakeCodec;
  publisher: RunningPublisher;
  clock: { ms: number };
  logs: string[];
  toEpoch(epoch: number): void;
  put(query: string, body: Buffer | string, init?: RequestInit & { path?: string }): Promise<{ status: number; json: any; text: string }>;
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<Response>;
  /** every ledger transaction so far */
  transactions(): number;
  /** storage nodes holding metadata of this blob id */
  nodesHolding(blobId: Buffer): Promise<number>;
  cleanup(): Promise<void>;
}

export async function startFixture(extra: Partial<PublisherOptions> = {}): Promise<PublisherFixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-publisher-'));
  const clock = { ms: GENESIS_MS };
  const ledger = await openLedger({ path: path.join(dir, 'ledger'), epochLengthMs: EPOCH_MS, genesisMs: GENESIS_MS, now: () => clock.ms });
  const network = await openLocalNetwork({ dir: path.join(dir, 'nodes'), nShards: N_SHARDS, nodeCount: 10, durability: 'relaxed', completionGraceMs: 200 });
  const codec = fakeCodec();
  const logs: string[] = [];
  const publisher = await startPublisher({
    host: '127.0.0.1',
    port: 0,
    endpointKeys: [KEY],
    nShards: N_SHARDS,
    maxBodyBytes: 64 * 1024,
    backend: new EmbeddedBackend(ledger, network, (line) => logs.push(line)),
    codec,
    reclaimIntervalMs: 3_600_000,
    log: (line) => logs.push(line),
    ...extra,
  });
  const url = `http://127.0.0.1:${publisher.port}`;
  return {
    url,
    dir,
    ledger,
    network,
    codec,
    publisher,
    clock,
    logs,
    toEpoch(epoch) {
      clock.ms = GENESIS_MS + (epoch - 1) * EPOCH_MS;
    },
    put(query, body, init = {}) {
      const { path: p = `/${KEY}/v1/blobs`, ...rest } = init;
      return putBlob(url, `${p}${query ? `?${query}` : ''}`, body, rest);
    },
    get: (pathAndQuery, headers = {}) => fetch(`${url}${pathAndQuery}`, { headers }),
    transactions: () => ledger.status().transactions,
    async nodesHolding(blobId) {
      let count = 0;
      for (const member of network.members) {
        if (await member.client.getMetadata(blobId).catch(() => undefined)) count++;
      }
      return count;
    },
    async cleanup() {
      await publisher.close(1_000);
      await network.close();
      await ledger.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
