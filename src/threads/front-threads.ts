// The writer thread's side of the front-end threads (--threads N): starts N - 1 workers that each
// listen on the S3 port beside the writer (SO_REUSEPORT) and serve reads and object uploads
// themselves, grants extents for the bodies they write and commits them through the writer's store, answers the requests they
// forward (other writes, operator paths) with the writer's own handler, logs and counts the
// requests they served, and tells them what they cannot see for themselves. With the publisher on,
// they listen on its port too, serve its reads, and forward the rest to the writer's publisher.

import { MessageChannel, Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { Exchange } from '../http/exchange.js';
import type { TlsFiles } from '../http/uws.js';
import { serveForwarded } from '../http/thread-bridge.js';
import type { PublisherAccessRecord, S3AccessRecord } from '../ops/access-log.js';
import type { FrontPublisherData } from './front-publisher.js';
import { serveRemoteWrites, type ExtentHost } from '../store/remote-writes.js';
import { startListenerThreads } from '../listener-threads.js';
import type { ToFront, ToWriter, FrontWorkerData } from './messages.js';

export interface FrontThreads {
  /** Stops every front end's listener, waits for its requests (at most `graceMs`), ends the threads. */
  close(graceMs: number): Promise<void>;
  /** compaction deleted a segment: the front ends close their fds of it */
  segmentRemoved(segment: number): void;
  /** an in-process storage node's compaction deleted one of its segments */
  nodeSegmentRemoved(nodeId: string, segment: number): void;
  /** Switches new TLS handshakes on every front end's listener to these checked files (http/tls-snapshots.ts); resolves once all have. */
  reloadTls(files: TlsFiles): Promise<void>;
}

export interface FrontThreadOptions {
  count: number;
  config: Config;
  /** the port the writer's listener got (the front ends join it) */
  port: number;
  bucketGeneration: Int32Array;
  accountsGeneration: Int32Array;
  quotaGeneration: Int32Array;
  /** the writer's store: grants extents for what the front ends upload, and commits them */
  store: ExtentHost;
  /** requests in flight on every thread's listener */
  inFlightTotal: Int32Array;
  /** each front end's read cache */
  readCacheBytes: number;
  /** the checked certificate and key copies, for an HTTPS listener */
  tls?: TlsFiles;
  /** the writer's request handler, for what the front ends forward */
  handler: (ex: Exchange) => Promise<void>;
  record?: (r: S3AccessRecord, relayed: boolean) => void;
  log: (line: string) => void;
  /** the publisher face: the front ends listen on its port too, serve its reads and forward the rest to `handler` */
  publisher?: {
    data: Omit<FrontPublisherData, 'bridge'>;
    handler: (ex: Exchange) => Promise<void>;
    record?: (r: PublisherAccessRecord, relayed: boolean) => void;
  };
}

interface Front {
  worker: Worker;
  closed: Promise<void>;
  /** resolvers of the TLS reloads sent and not yet done, in order */
  tlsReloads: Array<() => void>;
  post(m: ToFront): void;
}

export async function startFrontThreads(o: FrontThreadOptions): Promise<FrontThreads> {
  const fronts: Front[] = [];
  // the process's own flags, less those that describe how its entry was given (--input-type)
  const execArgv = process.execArgv.filter((a) => !/^--(input-type|eval|print)\b|^-[ep]$/.test(a));
  const grants: Array<{ close(): void }> = [];
  const started = await startListenerThreads<ToWriter>({
    count: o.count,
    label: 'front-end thread',
    log: o.log,
    spawn: (i) => {
      const channel = new MessageChannel();
      serveForwarded(channel.port1, o.handler);
      channel.port1.unref();
      const writes = new MessageChannel();
      grants[i] = serveRemoteWrites(writes.port1, o.store);
      writes.port1.unref();
      const publisherBridge = o.publisher && new MessageChannel();
      if (publisherBridge) {
        serveForwarded(publisherBridge.port1, o.publisher!.handler);
        publisherBridge.port1.unref();
      }
      const workerData: FrontWorkerData = {
        index: i + 1,
        config: o.config,
        port: o.port,
        bucketGeneration: o.bucketGeneration,
        accountsGeneration: o.accountsGeneration,
        quotaGeneration: o.quotaGeneration,
        inFlightTotal: o.inFlightTotal,
        readCacheBytes: o.readCacheBytes,
        tls: o.tls,
        observe: o.record !== undefined,
        bridge: channel.port2,
        writes: writes.port2,
        publisher: publisherBridge && { ...o.publisher!.data, bridge: publisherBridge.port2 },
      };
      const transferList = [channel.port2, writes.port2, ...(publisherBridge ? [publisherBridge.port2] : [])];
      return new Worker(new URL('./front-worker.js', import.meta.url), { workerData, transferList, execArgv });
    },
    onMessage: (m, i) => {
      switch (m.t) {
        case 'access':
          if (o.record) for (const r of m.records) o.record(r, true);
          break;
        case 'publisher-access': {
          const record = o.publisher?.record;
          if (record) for (const r of m.records) record(r, true);
          break;
        }
        case 'log':
          o.log(m.line);
          break;
        case 'tls-reloaded':
          fronts[i]?.tlsReloads.shift()?.();
          break;
      }
    },
  }).catch((e: unknown) => {
    for (const g of grants) g?.close();
    throw e;
  });
  for (const [i, thread] of started.entries()) {
    void thread.exited.then(() => grants[i]!.close());
    fronts.push({ ...thread, tlsReloads: [], post: (m) => thread.worker.postMessage(m) });
  }
  const threads: FrontThreads = {
    async close(graceMs) {
      await Promise.all(fronts.map(async (f) => {
        f.post({ t: 'close', graceMs });
        await f.closed;
        await f.worker.terminate();
      }));
    },
    segmentRemoved(segment) {
      for (const f of fronts) f.post({ t: 'segment-removed', segment });
    },
    nodeSegmentRemoved(nodeId, segment) {
      for (const f of fronts) f.post({ t: 'node-segment-removed', nodeId, segment });
    },
    async reloadTls(files) {
      await Promise.all(fronts.map((f) => {
        const done = new Promise<void>((resolve) => f.tlsReloads.push(resolve));
        f.post({ t: 'reload-tls', files });
        return Promise.race([done, f.closed]);
      }));
    },
  };
  return threads;
}
