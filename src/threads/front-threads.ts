// The writer thread's side of the front-end threads (--threads N): starts N - 1 workers that each
// listen on the S3 port beside the writer (SO_REUSEPORT) and serve reads and object uploads
// themselves, grants extents for the bodies they write and commits them through the writer's store, answers the requests they
// forward (other writes, operator paths) with the writer's own handler, logs and counts the
// requests they served, and tells them what they cannot see for themselves. With the publisher on,
// they listen on its port too, serve its reads, and forward the rest to the writer's publisher.
// A front end that ends (an error nobody caught in it) is replaced by a new one.

import { MessageChannel, Worker } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import type { Exchange } from '../http/exchange.js';
import type { TlsFiles } from '../http/listener.js';
import { serveForwarded } from '../http/thread-bridge.js';
import type { PublisherAccessRecord, S3AccessRecord } from '../ops/access-log.js';
import type { LogLine } from '../log/log-line.js';
import type { FrontPublisherData } from './front-publisher.js';
import { serveRemoteWrites, type ExtentHost } from '../store/remote-writes.js';
import { startListenerThreads, type ListenerThread } from '../http/listener-threads.js';
import type { ToFront, ToWriter, FrontWorkerData } from './messages.js';
import type { StoredNotice } from '../store/redo-ops.js';

export interface FrontThreads {
  /** Stops every front end's listener, waits for its requests (at most `graceMs`), ends the threads. */
  close(graceMs: number): Promise<void>;
  /** compaction deleted a segment: the front ends close their fds of it */
  segmentRemoved(segment: number): void;
  /** an in-process storage node's compaction deleted one of its segments */
  nodeSegmentRemoved(nodeId: string, segment: number): void;
  /** Changes committed with a notice: to each front end with a listen stream open. */
  live(notices: StoredNotice[]): void;
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
  kmsGeneration: Int32Array;
  /** the writer's store: grants extents for what the front ends upload, and commits them */
  store: ExtentHost;
  /** requests in flight on each thread's listener (http/listener.ts SharedInFlight) */
  inFlightCounts: Int32Array;
  /** listen streams open on each thread (notify/listen.ts) */
  liveCounts: Int32Array;
  /** each front end's read cache */
  readCacheBytes: number;
  /** the checked certificate and key copies, for an HTTPS listener */
  tls?: TlsFiles;
  /** the writer's request handler, for what the front ends forward */
  handler: (ex: Exchange) => Promise<void>;
  record?: (r: S3AccessRecord, relayed: boolean) => void;
  log: LogLine;
  /** the website endpoint: the front ends listen on its port too and serve it themselves (it only reads) */
  website?: FrontWorkerData['website'];
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

function frontOf(thread: ListenerThread): Front {
  return { ...thread, tlsReloads: [], post: (m) => thread.worker.postMessage(m) };
}

export async function startFrontThreads(o: FrontThreadOptions): Promise<FrontThreads> {
  const fronts: Front[] = [];
  // the process's own flags, less those that describe how its entry was given (--input-type)
  const execArgv = process.execArgv.filter((a) => !/^--(input-type|eval|print)\b|^-[ep]$/.test(a));
  /** the TLS files of the last reload, and those each thread was started with */
  let tls = o.tls;
  const startedWith: Array<TlsFiles | undefined> = [];
  const started = await startListenerThreads<ToWriter>({
    count: o.count,
    label: 'front-end thread',
    log: o.log,
    spawn: (i) => {
      const channel = new MessageChannel();
      serveForwarded(channel.port1, o.handler);
      channel.port1.unref();
      const writes = new MessageChannel();
      const grants = serveRemoteWrites(writes.port1, o.store);
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
        kmsGeneration: o.kmsGeneration,
        inFlightCounts: o.inFlightCounts,
        liveCounts: o.liveCounts,
        readCacheBytes: o.readCacheBytes,
        tls,
        observe: o.record !== undefined,
        website: o.website,
        bridge: channel.port2,
        writes: writes.port2,
        publisher: publisherBridge && { ...o.publisher!.data, bridge: publisherBridge.port2 },
      };
      const transferList = [channel.port2, writes.port2, ...(publisherBridge ? [publisherBridge.port2] : [])];
      startedWith[i] = tls;
      const worker = new Worker(new URL('./front-worker.js', import.meta.url), { workerData, transferList, execArgv });
      // the segments of its grants go back once it has ended, however it ended
      worker.once('exit', () => grants.close());
      return worker;
    },
    onExit: (i) => {
      // the requests it had in flight will never be answered: shutdown does not wait for them
      Atomics.store(o.inFlightCounts, i + 1, 0);
      Atomics.store(o.liveCounts, i + 1, 0);
      if (o.publisher) Atomics.store(o.publisher.data.inFlightCounts, i + 1, 0);
      if (o.website) Atomics.store(o.website.inFlightCounts, i + 1, 0);
    },
    onReplaced: (i, thread) => {
      fronts[i] = frontOf(thread);
      if (startedWith[i] !== tls) {
        // a reload while it was starting: its answer resolves no caller's reload
        fronts[i]!.tlsReloads.push(() => undefined);
        fronts[i]!.post({ t: 'reload-tls', files: tls! });
      }
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
          o.log(m.line, m.level);
          break;
        case 'tls-reloaded':
          fronts[i]?.tlsReloads.shift()?.();
          break;
      }
    },
  });
  for (const thread of started.threads) fronts.push(frontOf(thread));
  const threads: FrontThreads = {
    async close(graceMs) {
      await started.stop();
      await Promise.all(fronts.map(async (f) => {
        f.post({ t: 'close', graceMs });
        await f.closed;
        await f.worker.terminate();
      }));
    },
    segmentRemoved(segment) {
      for (const f of fronts) f.post({ t: 'segment-removed', segment });
    },
    live(notices) {
      fronts.forEach((f, i) => {
        if (Atomics.load(o.liveCounts, i + 1) > 0) f.post({ t: 'live', notices });
      });
    },
    nodeSegmentRemoved(nodeId, segment) {
      for (const f of fronts) f.post({ t: 'node-segment-removed', nodeId, segment });
    },
    async reloadTls(files) {
      tls = files;
      await Promise.all(fronts.map((f) => {
        const done = new Promise<void>((resolve) => f.tlsReloads.push(resolve));
        f.post({ t: 'reload-tls', files });
        return Promise.race([done, f.closed]);
      }));
    },
  };
  return threads;
}
