// The publisher face as one call for the server start-up: opens the backend — the embedded network
// (ledger and in-process nodes or remote `tusk storage-node`s) or Walrus on Sui — and the RS2
// codec, then serves HTTP.

import path from 'node:path';
import { openBlobCodec } from './rs2/codec.js';
import type { TlsFiles } from '../http/listener.js';
import type { BlobCodec } from './rs2/codec-types.js';
import { LEDGER_DIR, NODES_DIR } from '../base/layout.js';
import { openLedger } from './ledger/index.js';
import { RemoteNodeClient } from './nodes/http-client.js';
import { openLocalNetwork, StorageNetwork } from './nodes/network.js';
import { loadWalrusBackend } from './walrus/load-backend.js';
import type { NetworkConfig } from '../config/walrus-network.js';
import type { LocalWalrus, LocalWalrusOptions } from './local-network/serve.js';
import type { WalrusBackend } from './walrus/walrus-backend.js';
import type { BlobBackend } from './service/backend.js';
import { diskRoom, EmbeddedBackend } from './service/embedded-backend.js';
import { DEFAULT_DISK_RESERVE } from '../store/open-segment-store.js';
import type { Logger, PublisherRequestObserver } from './service/context.js';
import { loadOrCreateEndpointKey } from './service/endpoint-key-file.js';
import { networkView, type NetworkView } from './service/network-view.js';
import type { JwtConfig } from './service/jwt-auth.js';
import { DEFAULT_MAX_BODY_BYTES, startPublisher, type RunningPublisher } from './service/publisher-server.js';

export { startPublisher, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONCURRENT, DEFAULT_QUEUE, DEFAULT_RECLAIM_INTERVAL_MS } from './service/publisher-server.js';
export type { PublisherOptions, RunningPublisher } from './service/publisher-server.js';
export { PUBLISHER_ERRORS, PublisherError, renderError, DAEMON_DOMAIN } from './service/errors.js';

/** Walrus Testnet's epoch length (walrus.md §9.3). */
export const DEFAULT_EPOCH_LENGTH_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_LOCAL_NODES = 10;

export interface PublisherFaceConfig {
  dataDir: string;
  host: string;
  port: number;
  /** empty → the key stored in `<dataDir>/publisher-endpoint-key`, generated on first start */
  endpointKeys: string[];
  /** default embedded */
  network?: NetworkConfig;
  /** the embedded network's shard count (Walrus's comes from its committee) */
  nShards: number;
  /** remote storage nodes; absent → `nodeCount` in-process nodes under `<dataDir>/nodes` */
  nodeUrls?: string[];
  nodeCount?: number;
  epochLengthMs?: number;
  /** the embedded ledger's longest storage, in epochs (default: the ledger's) */
  maxEpochsAhead?: number;
  maxBodyBytes?: number;
  durability: 'strict' | 'relaxed';
  /** the embedded nodes' disk reserve (default: the engine's) */
  diskReserve?: number;
  maxConcurrent?: number;
  queue?: number;
  reclaimIntervalMs?: number;
  jwt?: JwtConfig;
  /** an already-open codec (tests); default openBlobCodec() */
  codec?: BlobCodec;
  log?: Logger;
  observer?: PublisherRequestObserver;
  tls?: TlsFiles;
  /** called with each blob encode's duration in seconds (metrics) */
  onEncode?: (seconds: number) => void;
  /** the listener shares its port with front-end threads; this counts the requests of all of them */
  threadsInFlight?: Int32Array;
  /** compaction deleted a segment of an in-process node's engine (front-end threads drop their fds of it) */
  onNodeSegmentRemoved?: (nodeId: string, segment: number) => void;
}

export interface PublisherFace {
  port: number;
  /** http://host:port */
  url: string;
  endpointKeys: string[];
  backend: BlobBackend;
  /** stores may authenticate with a JWT */
  jwt: boolean;
  /** how another thread reads the network (undefined on Walrus) */
  networkView: NetworkView | undefined;
  /** the whole face, for requests front-end threads forward */
  serve: RunningPublisher['serve'];
  reclaimNow: RunningPublisher['reclaimNow'];
  /** storage class WALRUS's blobs (base/walrus-blobs.ts) */
  blobs: RunningPublisher['blobs'];
  reloadTls: RunningPublisher['reloadTls'];
  /** ledger, worker pool and storage nodes, for metrics */
  stats(): Promise<PublisherFaceStats>;
  /**
   * Stops the listener, then closes the network, the codec (if opened here) and the ledger; the
   * network only once `readersClosed` settled (other threads' read-only views of its nodes).
   */
  close(graceMs?: number, readersClosed?: Promise<unknown>): Promise<void>;
}

export interface PublisherFaceStats {
  /** the embedded ledger's balance, or the Walrus wallet's WAL (FROST) */
  ledgerBalance: number;
  /** embedded network only */
  ledgerTransactions?: number;
  /** embedded network only */
  blobObjects?: number;
  codecQueue: number;
  /** node id → 1 when its health check answered within NODE_HEALTH_TIMEOUT_MS */
  nodesUp: Record<string, number>;
}

const NODE_HEALTH_TIMEOUT_MS = 2_000;

export async function startPublisherFace(config: PublisherFaceConfig): Promise<PublisherFace> {
  const log = config.log ?? ((line: string) => console.log(line));
  let endpointKeys = config.endpointKeys;
  if (endpointKeys.length === 0) {
    const { key, generated } = loadOrCreateEndpointKey(config.dataDir);
    endpointKeys = [key];
    log(`tusk: publisher endpoint key: ${key}${generated ? ' (generated, stored in the data directory)' : ''}`);
  }
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch((e) => log(`tusk: publisher shutdown: ${(e as Error).message}`, 'error'));
  };
  try {
    const local = config.network?.kind === 'local' ? await startLocal(config.dataDir, { subWallets: config.network.subWallets, epochLengthMs: config.epochLengthMs ?? DEFAULT_EPOCH_LENGTH_MS, maxEpochsAhead: config.maxEpochsAhead }) : undefined;
    if (local) closers.push(() => local.close());
    const backend = await openBackend(local ? { ...config, network: local.config } : config, log);
    closers.push(() => backend.close());
    const opened = config.codec ?? (await openBlobCodec());
    if (!config.codec) closers.push(() => opened.close());
    const codec = config.onEncode ? timedEncodes(opened, config.onEncode) : opened;
    const publisher = await startPublisher({
      host: config.host,
      port: config.port,
      endpointKeys,
      nShards: backend.nShards,
      maxBodyBytes: config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      backend,
      codec,
      maxConcurrent: config.maxConcurrent,
      queue: config.queue,
      reclaimIntervalMs: config.reclaimIntervalMs,
      jwt: config.jwt,
      tls: config.tls,
      log,
      observer: config.observer,
      threadsInFlight: config.threadsInFlight,
    });
    const hostText = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `${config.tls ? 'https' : 'http'}://${hostText}:${publisher.port}`;
    if (backend instanceof EmbeddedBackend) {
      const where = config.nodeUrls?.length ? `${config.nodeUrls.length} remote storage nodes` : `${backend.network.members.length} in-process storage nodes`;
      const ledger = backend.ledger;
      log(`tusk: publisher: ${backend.nShards} shards on ${where}; ledger epoch ${ledger.currentEpoch()}, max ${ledger.maxEpochsAhead} epochs ahead`);
    }
    log(`tusk: publisher listening on ${url}`);
    if (local) log(`tusk: local Walrus network, client config: ${JSON.stringify(local.clientConfig(url))}`);
    return {
      port: publisher.port,
      url,
      endpointKeys,
      backend,
      jwt: config.jwt !== undefined,
      networkView: networkView(backend, path.join(config.dataDir, NODES_DIR)),
      serve: publisher.serve,
      reclaimNow: publisher.reclaimNow,
      blobs: publisher.blobs,
      reloadTls: publisher.reloadTls,
      stats: () => backendStats(backend, opened.queued ?? 0),
      async close(graceMs, readersClosed) {
        await publisher.close(graceMs);
        await readersClosed;
        await closeAll();
      },
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

/** The local Walrus network (--network local), loaded like the Walrus backend: only when chosen, on Node 22+. */
async function startLocal(dataDir: string, options: LocalWalrusOptions): Promise<LocalWalrus> {
  await loadWalrusBackend();
  const { startLocalWalrus } = await import('./local-network/serve.js');
  return startLocalWalrus(dataDir, options);
}

async function openBackend(config: PublisherFaceConfig, log: Logger): Promise<BlobBackend> {
  if (config.network?.kind === 'walrus') return (await loadWalrusBackend()).openWalrusBackend({ config: config.network, log });
  const ledger = await openLedger({ path: path.join(config.dataDir, LEDGER_DIR), epochLengthMs: config.epochLengthMs ?? DEFAULT_EPOCH_LENGTH_MS, maxEpochsAhead: config.maxEpochsAhead });
  try {
    const network = config.nodeUrls?.length
      ? await StorageNetwork.connect(config.nodeUrls.map((url) => new RemoteNodeClient(url)))
      : await openLocalNetwork({
          dir: path.join(config.dataDir, NODES_DIR),
          nShards: config.nShards,
          nodeCount: config.nodeCount ?? DEFAULT_LOCAL_NODES,
          durability: config.durability,
          diskReserve: config.diskReserve,
          onSegmentRemoved: config.onNodeSegmentRemoved,
        });
    const room = diskRoom(config.dataDir, config.diskReserve ?? DEFAULT_DISK_RESERVE, !config.nodeUrls?.length);
    const close = async () => {
      await network.close();
      await ledger.close();
    };
    return new EmbeddedBackend(ledger, network, log, close, room);
  } catch (e) {
    await ledger.close();
    throw e;
  }
}

async function backendStats(backend: BlobBackend, codecQueue: number): Promise<PublisherFaceStats> {
  if (!(backend instanceof EmbeddedBackend)) return { ledgerBalance: Number((await (backend as WalrusBackend).balances()).wal), codecQueue, nodesUp: {} };
  const { ledger, network } = backend as EmbeddedBackend;
  return {
    ledgerBalance: Number(ledger.balance()),
    ledgerTransactions: ledger.status().transactions,
    blobObjects: ledger.blobObjectCount(),
    codecQueue,
    nodesUp: await nodesUp(network),
  };
}

/** The codec with each encode timed (publisher encode-time metric). */
function timedEncodes(codec: BlobCodec, observe: (seconds: number) => void): BlobCodec {
  return {
    async encode(data, nShards) {
      const started = performance.now();
      try {
        return await codec.encode(data, nShards);
      } finally {
        observe((performance.now() - started) / 1000);
      }
    },
    blobId: (data, nShards) => codec.blobId(data, nShards),
    decode: (metadataBcs, slivers, nShards, check) => codec.decode(metadataBcs, slivers, nShards, check),
    verifyMetadata: (metadataBcs, nShards) => codec.verifyMetadata(metadataBcs, nShards),
    verifySliver: (metadataBcs, pair, axis, sliverBcs) => codec.verifySliver(metadataBcs, pair, axis, sliverBcs),
    get queued() {
      return codec.queued;
    },
    close: () => codec.close(),
  };
}

async function nodesUp(network: StorageNetwork): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  await Promise.all(
    network.members.map(async (m) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), NODE_HEALTH_TIMEOUT_MS)));
      try {
        await Promise.race([m.client.health(), timeout]);
        out[m.nodeId] = 1;
      } catch {
        out[m.nodeId] = 0;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return out;
}
