// What the writer thread and its front-end threads tell each other besides forwarded requests.

import type { MessagePort } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import type { TlsFiles } from '../http/listener.js';
import type { PublisherAccessRecord, S3AccessRecord } from '../ops/access-log.js';
import type { LineLevel } from '../log/log-line.js';
import type { FrontPublisherData } from './front-publisher.js';
import type { StoredNotice } from '../store/redo-ops.js';

export interface FrontWorkerData {
  /** 1.. (the writer is 0) */
  index: number;
  config: Config;
  port: number;
  bucketGeneration: Int32Array;
  accountsGeneration: Int32Array;
  inFlightCounts: Int32Array;
  /** ListenBucketNotification streams open on each thread (notify/listen.ts) */
  liveCounts: Int32Array;
  readCacheBytes: number;
  /** the checked certificate and key copies, for an HTTPS listener (http/tls-snapshots.ts) */
  tls?: TlsFiles;
  /** the writer logs or counts requests: send their access records */
  observe: boolean;
  /** bumped by the writer after a bucket quota changed (s3/quotas.ts) */
  quotaGeneration: Int32Array;
  /** bumped by the writer after a KMS key changed (kms/key-registry.ts) */
  kmsGeneration: Int32Array;
  /** the request bridge to the writer (thread-bridge.ts) */
  bridge: MessagePort;
  /** extents granted and commits made by the writer thread for the bodies written here (store/remote-writes.ts) */
  writes: MessagePort;
  /** the website endpoint, when on: this thread listens on its port too (http/listener.ts SharedInFlight counts) */
  website?: { port: number; inFlightCounts: Int32Array };
  /** the publisher face, when it runs: this thread listens on its port too */
  publisher?: FrontPublisherData;
}

/** writer → front end */
export type ToFront =
  | { t: 'segment-removed'; segment: number }
  | { t: 'node-segment-removed'; nodeId: string; segment: number }
  | { t: 'reload-tls'; files: TlsFiles }
  /** changes committed with a notice, in commit order, for this thread's listen streams */
  | { t: 'live'; notices: StoredNotice[] }
  | { t: 'close'; graceMs: number };

/** front end → writer */
export type ToWriter =
  | { t: 'ready' }
  | { t: 'failed'; message: string }
  | { t: 'access'; records: S3AccessRecord[] }
  | { t: 'publisher-access'; records: PublisherAccessRecord[] }
  | { t: 'log'; line: string; level?: LineLevel }
  | { t: 'closed' }
  | { t: 'tls-reloaded' };
