// `tusk storage-node --threads N`: N - 1 worker threads beside the node's own, each listening on
// the node's port (SO_REUSEPORT) and answering the read routes (metadata, slivers, confirmations)
// from a read-only view of the node's directory; every other request (stores, deletes, health) is
// forwarded to the node's thread, which answers it with its own handler. The node's thread tells
// them when its compaction deleted a segment, and starts a new one when one ends.

import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { HttpEngineName } from '../../http/engine.js';
import type { Exchange } from '../../http/exchange.js';
import { serveForwarded } from '../../http/thread-bridge.js';
import { startListenerThreads } from '../../http/listener-threads.js';

/** What a node worker is given (plain data and a port: it crosses threads). */
export interface NodeWorkerData {
  /** 1.. (the node's own thread is 0): its slot in `inFlightCounts` */
  index: number;
  dir: string;
  nodeId: string;
  shards: number[];
  nShards: number;
  host: string;
  port: number;
  /** requests in flight on each thread's listener (http/listener.ts SharedInFlight) */
  inFlightCounts: Int32Array;
  /** the node's own thread's HTTP engine */
  httpEngine: HttpEngineName;
  /** the request bridge to the node's thread (thread-bridge.ts) */
  bridge: MessagePort;
}

/** node's thread → worker */
export type ToNodeWorker = { t: 'segment-removed'; segment: number } | { t: 'close'; graceMs: number };

/** worker → node's thread */
export type FromNodeWorker = { t: 'ready' } | { t: 'failed'; message: string } | { t: 'closed' };

export interface NodeThreads {
  segmentRemoved(segment: number): void;
  /** Stops every worker's listener, waits for its requests (at most `graceMs`), ends the threads. */
  close(graceMs: number): Promise<void>;
}

export async function startNodeThreads(
  o: Omit<NodeWorkerData, 'bridge' | 'index'> & { count: number; handler: (ex: Exchange) => Promise<void>; log: (line: string) => void },
): Promise<NodeThreads> {
  const { count, handler, log, ...shared } = o;
  const workers = await startListenerThreads({
    count,
    label: 'storage-node thread',
    log,
    spawn: (i) => {
      const bridge = new MessageChannel();
      serveForwarded(bridge.port1, handler);
      bridge.port1.unref();
      const workerData: NodeWorkerData = { ...shared, index: i + 1, bridge: bridge.port2 };
      return new Worker(new URL('./node-worker.js', import.meta.url), { workerData, transferList: [bridge.port2] });
    },
    // the requests it had in flight will never be answered: shutdown does not wait for them
    onExit: (i) => Atomics.store(shared.inFlightCounts, i + 1, 0),
  });
  const post = (m: ToNodeWorker): void => {
    for (const w of workers.threads) w.worker.postMessage(m);
  };
  return {
    segmentRemoved: (segment) => post({ t: 'segment-removed', segment }),
    async close(graceMs) {
      await workers.stop();
      post({ t: 'close', graceMs });
      await Promise.all(
        workers.threads.map(async (w) => {
          await w.closed;
          await w.worker.terminate();
        }),
      );
    },
  };
}
