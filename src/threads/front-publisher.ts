// A front-end thread's share of the publisher face: a listener of its own on the publisher's port
// (SO_REUSEPORT, beside the writer thread's), which serves the aggregator's reads itself, from
// read-only views of the storage network and an RS2 codec of its own, and forwards every other
// request (stores, the upload relay, the ledger, refusals) to the writer thread's publisher.

import type { MessagePort } from 'node:worker_threads';
import { forwardTo } from '../http/thread-bridge.js';
import { listen } from '../http/engine.js';
import type { Exchange } from '../http/exchange.js';
import type { TlsFiles } from '../http/listener.js';
import { publisherAccessRecord, type PublisherAccessRecord } from '../ops/access-log.js';
import type { LogLine } from '../log/log-line.js';
import { openBlobCodec } from '../publisher/rs2/codec.js';
import type { BlobCodec } from '../publisher/rs2/codec-types.js';
import { openNetworkReader, type NetworkReader, type NetworkView } from '../publisher/service/network-view.js';
import { publisherReader, publisherRefusal } from '../publisher/service/publisher-server.js';
import { blobReads } from '../publisher/service/object-blobs.js';
import type { WalrusBlobReads } from '../base/walrus-blobs.js';

/** What the writer thread tells a front end of its publisher (plain data and a port: it crosses threads). */
export interface FrontPublisherData {
  port: number;
  endpointKeys: string[];
  jwt: boolean;
  nShards: number;
  /** undefined (Walrus): every request is forwarded */
  network?: NetworkView;
  /** this front end's decoding threads */
  codecThreads: number;
  /** requests in flight on every thread's publisher listener */
  inFlightCounts: Int32Array;
  /** the request bridge to the writer's publisher (thread-bridge.ts) */
  bridge: MessagePort;
}

export interface FrontPublisher {
  reloadTls(files: TlsFiles): void;
  /** an in-process node's compaction deleted one of its segments */
  segmentRemoved(nodeId: string, segment: number): void;
  close(graceMs: number): Promise<void>;
  /** S3 reads of storage class WALRUS in this thread (undefined on Walrus: the writer's reads only) */
  blobReads?: WalrusBlobReads;
}

export async function startFrontPublisher(
  d: FrontPublisherData,
  host: string,
  o: { tls?: TlsFiles; log: LogLine; record?: (r: PublisherAccessRecord) => void; /** this thread's in-flight count */ slot: number },
): Promise<FrontPublisher> {
  const bridge = forwardTo(d.bridge);
  let reader: NetworkReader | undefined;
  let codec: BlobCodec | undefined;
  let serve: (ex: Exchange) => Promise<void> = (ex) => bridge.forward(ex);
  let reads: WalrusBlobReads | undefined;
  try {
    if (d.network) {
      reader = await openNetworkReader(d.network);
      codec = await openBlobCodec({ threads: d.codecThreads, lazy: true });
      const network = reader.network;
      const fresh = reader;
      const local = publisherReader({
        endpointKeys: d.endpointKeys,
        jwt: d.jwt,
        reads: { backend: { slivers: network }, codec, nShards: d.nShards },
        log: o.log,
        observer: o.record && {
          started: () => undefined,
          finished: (ex, op, startedAt) => o.record!(publisherAccessRecord(ex, op, startedAt)),
        },
        // what the writer thread committed before this request is seen by it; forwarded requests need no refresh
        beforeRead: () => fresh.refresh(),
      });
      serve = (ex) => local(ex) ?? bridge.forward(ex);
      reads = blobReads({ backend: { slivers: network }, codec, nShards: d.nShards }, () => fresh.refresh());
    }
    const server = await listen(host, d.port, serve, o.tls, {
      sharedPort: true,
      inFlight: { counts: d.inFlightCounts, slot: o.slot },
      refuse: publisherRefusal,
    });
    return {
      blobReads: reads,
      reloadTls: (files) => server.reloadTls(files),
      segmentRemoved: (nodeId, segment) => reader?.segmentRemoved(nodeId, segment),
      async close(graceMs) {
        await server.close(graceMs);
        await Promise.all([reader?.close(), codec?.close()]);
      },
    };
  } catch (e) {
    await Promise.all([reader?.close(), codec?.close()]);
    throw e;
  }
}
