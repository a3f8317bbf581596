// A front-end thread (--threads N > 1): its own listener on the shared S3 port, a read replica
// of the store and its own view of the accounts. It serves reads (GET, HEAD, OPTIONS) and object
// uploads (PutObject, UploadPart) itself, writing their bodies into extents the writer thread
// grants and then commits (store/remote-writes.ts); it forwards every other request to the writer thread.
// With the publisher on, it also listens on the publisher's port and serves its reads (front-publisher.ts).
// With the website endpoint on, it listens on its port too and serves it (it only reads).

import { parentPort, workerData } from 'node:worker_threads';
import { loadAccounts } from '../identity/accounts.js';
import { QuotaView } from '../s3/pipeline/quotas.js';
import { parseQuery } from '../s3/query.js';
import type { RequestHead } from '../http/request-head.js';
import type { Exchange } from '../http/exchange.js';
import { forwardTo } from '../http/thread-bridge.js';
import { chooseHttpEngine, listen } from '../http/engine.js';
import { s3AccessRecord, type PublisherAccessRecord, type S3AccessRecord } from '../ops/access-log.js';
import type { LogLine } from '../log/log-line.js';
import { ADMIN_PREFIX } from '../ops/routes.js';
import type { S3Bucket, S3ObjectAttrs, S3PartAttrs } from '../s3/object-attrs.js';
import { classify, resolveResource } from '../s3/router.js';
import { s3Refusal, s3RequestHandler, s3Services } from '../s3/pipeline/service.js';
import { startServerAccessLogging } from '../s3/logging/exchange.js';
import { loadOrCreateMasterKey } from '../s3/sse/keys.js';
import { websiteRequestHandler } from '../s3/pipeline/website-endpoint.js';
import { keyServiceOptions } from '../s3/sse/kms.js';
import { KeyRegistry } from '../kms/key-registry.js';
import { ReadReplica } from '../store/read-replica.js';
import { LiveListeners } from '../notify/listen.js';
import { startFrontPublisher, type FrontPublisher } from './front-publisher.js';
import { endOnUncaught } from '../http/listener-threads.js';
import { collectReleasedBuffers } from '../base/released-buffers.js';
import type { FrontWorkerData, ToFront, ToWriter } from './messages.js';

const OPS_PREFIX = ADMIN_PREFIX.slice(0, ADMIN_PREFIX.indexOf('/', 1) + 1);
const LOCAL_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** uploads served here; the writer only commits their bodies */
const LOCAL_UPLOADS = new Set(['PutObject', 'UploadPart']);
/** access records are sent in batches, at the end of a turn or at this many */
const ACCESS_BATCH = 256;
/**
 * Test-only: a request for this path makes the thread throw where nothing catches it, its request
 * left unanswered, so that tests can see a failed front end replaced (never set in production).
 */
const FAULT_PATH = process.env.TUSK_TEST_FRONT_FAULT_PATH;

const data = workerData as FrontWorkerData;
const port = parentPort!;
const tell = (m: ToWriter): void => port.postMessage(m);

async function start(): Promise<void> {
  const { config } = data;
  // the writer thread's engine (it resolved `auto` for every thread)
  chooseHttpEngine(config.httpEngine);
  collectReleasedBuffers();
  const store = await ReadReplica.open<S3ObjectAttrs, S3PartAttrs, S3Bucket>({
    dataDir: config.dataDir,
    readCacheBytes: data.readCacheBytes,
    bucketGeneration: data.bucketGeneration,
    writes: data.writes,
  });
  const { accounts } = loadAccounts(config.dataDir, { accessKeyId: config.rootAccessKeyId, secretAccessKey: config.rootSecretAccessKey }, data.accountsGeneration);
  const services = s3Services(store, accounts, config);
  const kms = KeyRegistry.open(keyServiceOptions(config, data.kmsGeneration)).registry;
  services.sse = { masterKey: loadOrCreateMasterKey(config.dataDir), customerKeysOverHttp: config.sseCustomerKeysOverHttp, kms };
  if (data.observe) services.observer = relayedObserver();
  const log: LogLine = (line, level) => tell({ t: 'log', line: `thread ${data.index}: ${line}`, level });
  // records of the requests this thread answers; the writer thread delivers the files
  const accessLogging = startServerAccessLogging(config.dataDir, config.serverAccessLogIntervalMs, accounts, log);
  services.accessLogging = accessLogging.logging;
  const live = new LiveListeners(data.liveCounts, data.index, config.region, log);
  services.live = live;
  const s3 = s3RequestHandler(services, log);
  const bridge = forwardTo(data.bridge);
  const quotas = new QuotaView(config.dataDir, data.quotaGeneration);
  /** An upload to a bucket with a quota goes to the writer, which counts the bucket's usage. */
  const isLocalUpload = (head: RequestHead): boolean => {
    if (head.method !== 'PUT') return false;
    try {
      const resource = resolveResource(head, services.domains);
      const { op } = classify(head.method, resource, parseQuery(head.rawQuery), head.headers);
      // an upload naming a storage class goes to the writer: WALRUS stores there, beside the publisher
      return LOCAL_UPLOADS.has(op) && !quotas.has(resource.bucket!) && head.headers['x-amz-storage-class'] === undefined;
    } catch {
      return false; // the writer answers with the error
    }
  };
  const serve = (ex: Exchange): Promise<void> => {
    const head = ex.head;
    if (FAULT_PATH !== undefined && head.rawPath === FAULT_PATH) {
      setImmediate(() => {
        throw new Error('test fault');
      });
      return new Promise(() => undefined);
    }
    const local = !head.rawPath.startsWith(OPS_PREFIX) && (LOCAL_METHODS.has(head.method) || isLocalUpload(head));
    if (!local) return bridge.forward(ex);
    store.refresh();
    return s3(ex);
  };
  const server = await listen(config.listen.host, data.port, serve, data.tls, {
    sharedPort: true,
    inFlight: { counts: data.inFlightCounts, slot: data.index },
    refuse: s3Refusal(config.serverHeader),
  });
  const site = data.website && websiteRequestHandler(services, config.website.domains, log);
  const website = data.website && (await listen(config.website.listen!.host, data.website.port, (ex) => {
    store.refresh();
    return site!(ex);
  }, data.tls, {
    sharedPort: true,
    inFlight: { counts: data.website.inFlightCounts, slot: data.index },
    refuse: s3Refusal(config.serverHeader),
  }));
  let publisher: FrontPublisher | undefined;
  if (data.publisher) {
    const record = data.observe ? batched<PublisherAccessRecord>((records) => tell({ t: 'publisher-access', records })) : undefined;
    const host = config.publisher.listen!.host;
    publisher = await startFrontPublisher(data.publisher, host, { tls: data.tls, log, record, slot: data.index });
    services.walrusReads = publisher.blobReads;
  }
  // no read path of its own here (a Walrus network's client is the first thread's): WALRUS reads go there
  if (!services.walrusReads) services.forwardToWriter = (ex) => bridge.forward(ex);
  port.on('message', (m: ToFront) => {
    switch (m.t) {
      case 'segment-removed':
        store.segmentRemoved(m.segment);
        break;
      case 'live':
        live.deliver(m.notices);
        break;
      case 'node-segment-removed':
        publisher?.segmentRemoved(m.nodeId, m.segment);
        break;
      case 'reload-tls':
        server.reloadTls(m.files);
        website?.reloadTls(m.files);
        publisher?.reloadTls(m.files);
        tell({ t: 'tls-reloaded' });
        break;
      case 'close':
        void (async () => {
          live.close();
          await Promise.all([server.close(m.graceMs), website?.close(m.graceMs), publisher?.close(m.graceMs)]);
          accessLogging.journal.rotate();
          await store.close();
          tell({ t: 'closed' });
        })();
        break;
    }
  });
  endOnUncaught(() => Promise.all([server.close(0), website?.close(0), publisher?.close(0)]));
  tell({ t: 'ready' });
}

/** Hands the writer what its access log and metrics need of each request served here. */
function relayedObserver(): NonNullable<ReturnType<typeof s3Services>['observer']> {
  const record = batched<S3AccessRecord>((records) => tell({ t: 'access', records }));
  return {
    started: () => undefined,
    finished: (ex, summary) => record(s3AccessRecord(ex, summary)),
  };
}

/** Collects records and sends them in batches: at the end of a turn, or at ACCESS_BATCH. */
function batched<R>(send: (records: R[]) => void): (r: R) => void {
  let batch: R[] = [];
  const flush = (): void => {
    if (batch.length === 0) return;
    send(batch);
    batch = [];
  };
  return (r) => {
    if (batch.push(r) === 1) setImmediate(flush);
    else if (batch.length >= ACCESS_BATCH) flush();
  };
}

start().catch((e: unknown) => tell({ t: 'failed', message: (e as Error).stack ?? String(e) }));
