// What the publisher and aggregator handlers share: the storage network's backend, the RS2 codec.

import type { Exchange } from '../../http/exchange.js';
import type { LogLine } from '../../log/log-line.js';
import type { BlobCodec } from '../rs2/codec-types.js';
import type { BlobBackend, SliverSource } from './backend.js';
import type { KeyedLock } from './keyed-lock.js';

export type Logger = LogLine;

/** Access log and metrics of the publisher face (src/ops/access-log.ts). */
export interface PublisherRequestObserver {
  started(ex: Exchange): void;
  /** `op` is the route's name, 'unrouted' when the request was refused before routing */
  finished(ex: Exchange, op: string, startedAt: number): void;
}

/** What reading blobs back needs (the aggregator's routes): sliver reads and the codec. */
export interface BlobReadContext {
  backend: { readonly slivers: SliverSource };
  codec: Pick<BlobCodec, 'decode' | 'verifyMetadata' | 'verifySliver'>;
  nShards: number;
}

export interface PublisherContext extends BlobReadContext {
  backend: BlobBackend;
  codec: BlobCodec;
  /** serializes stores and reclaims of one blob id */
  blobLocks: KeyedLock;
  log: Logger;
}
