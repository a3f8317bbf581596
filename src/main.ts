// Assembles a running server: storage engine, accounts, native self-test, the S3 listener, and a
// clean shutdown that drains in-flight requests and closes the index.

import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadAccounts, rootCredentialsPath } from './identity/accounts.js';
import { adminHandler } from './admin/api.js';
import { BucketQuotas } from './s3/pipeline/quotas.js';
import type { Config } from './config/config.js';
import { lockDataDir } from './store/data-dir-lock.js';
import { TlsSnapshots } from './http/tls-snapshots.js';
import { chooseHttpEngine, listen, listenForThreads } from './http/engine.js';
import type { Exchange } from './http/exchange.js';
import { sharedInFlightCounts, type HttpServer, type RenderRefusal, type TlsFiles } from './http/listener.js';
import { TLS_DIR } from './base/layout.js';
import { simdPaths } from './native/native.js';
import { keepLargeAllocations } from './native/process.js';
import { collectReleasedBuffers } from './base/released-buffers.js';
import { selfTest } from './native/self-test.js';
import { publisherAccessObserver, publisherAccessRecorder, s3AccessObserver, s3AccessRecorder } from './ops/access-log.js';
import { Health } from './ops/health.js';
import { createLogger, lineLogger, type Logger } from './log/logger.js';
import { Metrics, type PublisherStats } from './ops/metrics.js';
import { opsRoutes } from './ops/routes.js';
import { startLifecycleWorker } from './s3/lifecycle/worker.js';
import { startWalrusRenewal, type WalrusRenewalStats } from './s3/walrus-renewal.js';
import type { S3Bucket, S3ObjectAttrs, S3PartAttrs } from './s3/object-attrs.js';
import { isVirtualHostStyle, normalizeDomains } from './s3/router.js';
import { s3Refusal, s3RequestHandler, s3Services, s3Unavailable } from './s3/pipeline/service.js';
import { loadOrCreateMasterKey } from './s3/sse/keys.js';
import { websiteRequestHandler } from './s3/pipeline/website-endpoint.js';
import { KeyRegistry } from './kms/key-registry.js';
import { keyServiceOptions } from './s3/sse/kms.js';
import type { SegmentStore } from './store/segment-store.js';
import type { StoreRecovery } from './store/store-stats.js';
import { rs2SelfTest } from './publisher/rs2/rs2-native.js';
import { DEFAULT_RECLAIM_INTERVAL_MS, startPublisherFace } from './publisher/index.js';
import { openStore } from './store/index.js';
import { Notifier, type TargetStatus } from './notify/notifier.js';
import { LogDelivery } from './s3/logging/delivery.js';
import { startServerAccessLogging } from './s3/logging/exchange.js';
import { startFrontThreads, type FrontThreads } from './threads/front-threads.js';
import { listenerCounts, liveFanOut, LiveListeners } from './notify/listen.js';
import { consoleOrigins } from './console/origins.js';
import { consoleHandler, endpointOf, type ConsolePageConfig } from './console/server.js';
import { importWalrusBucket } from './s3/walrus-import.js';

export interface RunningServer {
  s3Port: number;
  /** undefined when the publisher is off */
  publisherPort?: number;
  /** undefined when the console is off */
  consolePort?: number;
  /** undefined when the website endpoint is off */
  websitePort?: number;
  /** Stops listening, waits for in-flight requests (at most `graceMs`), closes the store and the publisher. */
  close(graceMs?: number): Promise<void>;
  /** Loads the TLS certificate and key again (SIGHUP); throws, keeping the old ones, when they do not load. */
  reloadTls(): Promise<void>;
}

export type { Logger };

type S3Engine = SegmentStore<S3ObjectAttrs, S3PartAttrs, S3Bucket>;

export async function startServer(config: Config, logger: Logger = createLogger({ level: config.ops.logLevel })): Promise<RunningServer> {
  const log = lineLogger(logger);
  const { engine, why } = chooseHttpEngine(config.httpEngine);
  // without SO_REUSEPORT (node:http before Node 22.12) the threads cannot share the port
  const threads = engine.sharesPorts ? config.threads : 1;
  logger.info(`http engine: ${engine.name} (${why})`);
  if (threads < config.threads) {
    logger.warn(`--threads ${config.threads}: the node engine shares a port between threads from Node 22.12 on (this is ${process.version}); serving on one thread`);
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // before anything in the directory is read; held until close() or the process ends
  const lock = lockDataDir(config.dataDir);
  const health = new Health(config.dataDir, config.storage.diskReserve);
  let store: S3Engine | undefined;
  // changes other threads must see before their next request (threads/front-threads.ts)
  const bucketGeneration = new Int32Array(new SharedArrayBuffer(4));
  const accountsGeneration = new Int32Array(new SharedArrayBuffer(4));
  const quotaGeneration = new Int32Array(new SharedArrayBuffer(4));
  const kmsGeneration = new Int32Array(new SharedArrayBuffer(4));
  const inFlightCounts = sharedInFlightCounts(threads);
  // ListenBucketNotification streams open on each thread (notify/listen.ts)
  const liveCounts = listenerCounts(threads);
  // one read cache per thread, within the configured total
  const readCacheBytes = Math.floor(config.storage.readCache / threads);
  let fronts: FrontThreads | undefined;
  let publisherStats: (() => Promise<PublisherStats | undefined>) | undefined;
  let notifyStatus: (() => TargetStatus[]) | undefined;
  let renewalStats: WalrusRenewalStats | undefined;
  const metrics = config.ops.metrics
    ? new Metrics({ health, store: () => store?.stats(), publisher: async () => publisherStats?.(), notify: () => notifyStatus?.() ?? [], walrusRenewal: () => renewalStats })
    : undefined;
  // The listener comes up first so that probes see the start-up (not ready during recovery);
  // S3 requests before the engine is open answer 503.
  let s3: ((ex: Exchange) => Promise<void>) | undefined;
  let admin: ((ex: Exchange) => Promise<void>) | undefined;
  const domains = normalizeDomains(config.domains);
  const ops = opsRoutes({
    health,
    metrics,
    metricsToken: config.ops.metricsToken,
    serverHeader: config.serverHeader,
    admin: () => admin,
    isBucketHost: (ex) => isVirtualHostStyle(ex.head, domains),
    consoleOrigins: () => config.console.origins,
  });
  const serve = (ex: Exchange): Promise<void> => ops(ex) ?? (s3 ? s3(ex) : s3Unavailable(ex, config.serverHeader));
  const refuse = s3Refusal(config.serverHeader);
  // with front-end threads the listener shares its port with them (SO_REUSEPORT), which would not
  // keep another process out: a port already bound by anyone refuses the start here
  const sharedPort = threads > 1;
  let tlsSnapshots: TlsSnapshots | undefined;
  let tls: TlsFiles | undefined;
  const server = await (async () => {
    if (config.tls) {
      tlsSnapshots = await TlsSnapshots.open(join(config.dataDir, TLS_DIR), config.tls);
      tls = await tlsSnapshots.take();
    }
    return listenS3(config, serve, refuse, sharedPort, inFlightCounts, tls);
  })().catch((e: unknown) => {
    lock.release();
    throw e;
  });
  const url = `${config.tls ? 'https' : 'http'}://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${server.port}`;
  logger.info(`listener bound on ${url}; starting (health at ${url}/tusk/health/ready)`);
  const consoleServer = await listenConsole(config, server.port, tls).catch(async (e: unknown) => {
    await server.close(0);
    lock.release();
    throw e;
  });
  // S3 (on every thread) answers CORS for the console's origins, known once its port is
  if (consoleServer) config = { ...config, console: { ...config.console, origins: consoleServer.origins } };
  let loaded: ReturnType<typeof loadAccounts>;
  let kms: ReturnType<typeof KeyRegistry.open>;
  let opened: S3Engine;
  try {
    health.stage = 'self-test';
    selfTest();
    keepLargeAllocations();
    collectReleasedBuffers();
    if (config.publisher.listen) rs2SelfTest();
    health.stage = 'recovery';
    await testRecoveryDelay();
    loaded = loadAccounts(
      config.dataDir,
      { accessKeyId: config.rootAccessKeyId, secretAccessKey: config.rootSecretAccessKey },
      accountsGeneration,
    );
    kms = KeyRegistry.open(keyServiceOptions(config, kmsGeneration));
    store = opened = await openStore<S3ObjectAttrs, S3PartAttrs, S3Bucket>({
      dataDir: config.dataDir,
      durability: config.durability,
      diskReserve: config.storage.diskReserve,
      segmentSize: config.storage.segmentSize,
      readCacheBytes,
      bucketGeneration,
      onSegmentRemoved: (segment) => fronts?.segmentRemoved(segment),
    });
  } catch (e) {
    await consoleServer?.server.close(0);
    await server.close(0);
    lock.release();
    throw e;
  }
  const { compactionIntervalMs, compactionMinDead, compactionRate } = config.storage;
  if (compactionIntervalMs !== undefined) {
    opened.startCompaction(
      compactionIntervalMs,
      { minDeadRatio: compactionMinDead, bytesPerSecond: compactionRate },
      (e) => logger.error({ err: e }, 'compaction failed (tried again at the next pass)'),
      (r) => {
        // a record whose CRC32C fails stays where it is (its segment too): `tusk scrub` names its object
        if (r.corruptRecords > 0) logger.error(`compaction: ${r.corruptRecords} record(s) fail their CRC32C and were left in place (tusk scrub, on the stopped server, names their objects)`);
      },
    );
  }
  const { accounts, generated } = loaded;
  const services = s3Services(opened, accounts, config);
  // --access-log off: requests are still counted, and every other line keeps its level
  const accessLogger = config.ops.accessLog ? logger : undefined;
  services.observer = s3AccessObserver(accessLogger, metrics);
  const record = s3AccessRecorder(accessLogger, metrics);
  services.sse = { masterKey: loadOrCreateMasterKey(config.dataDir), customerKeysOverHttp: config.sseCustomerKeysOverHttp, kms: kms.registry };
  const quotas = new BucketQuotas(config.dataDir, opened, quotaGeneration);
  services.quotas = quotas;
  const lifecycle = startLifecycleWorker(opened, config.lifecycle, log, () => services.walrus, () => services.accessLogging);
  const renewal = startWalrusRenewal(opened, config.walrusRenewal, log, () => services.walrus);
  renewalStats = renewal.stats;
  // delivers the notices recovery left in the store as well as new ones
  const notifier = await Notifier.start(opened, config.notify, config.region, log);
  services.notifier = notifier;
  // server access logs (PutBucketLogging): what an earlier run journaled is delivered first
  const logDelivery = new LogDelivery(opened, { dataDir: config.dataDir, region: config.region, accountIdOf: (id) => accounts.byCanonicalId(id)?.accountId, log });
  logDelivery.adoptEarlierRuns();
  const accessLogging = startServerAccessLogging(config.dataDir, config.serverAccessLogIntervalMs, accounts, log, () => void logDelivery.deliver());
  services.accessLogging = accessLogging.logging;
  void logDelivery.deliver();
  // front-end threads' journals become ready on their own timers: looked for every second
  const deliveryTimer = setInterval(() => void logDelivery.deliver(), Math.min(1000, config.serverAccessLogIntervalMs));
  deliveryTimer.unref();
  const stopLogDelivery = async (): Promise<void> => {
    clearInterval(deliveryTimer);
    accessLogging.journal.rotate();
    await logDelivery.deliver();
  };
  notifyStatus = () => notifier.status();
  const live = new LiveListeners(liveCounts, 0, config.region, log);
  services.live = live;
  opened.onLive = liveFanOut(live, (notices) => fronts?.live(notices));
  s3 = s3RequestHandler(services, log);
  admin = adminHandler({ config, accounts, kms: kms.registry, store: opened, quotas, health, log, consoleOrigins: () => config.console.origins, notify: () => notifier.status(), walrusImport: (bucket) => (services.walrus?.ownedBlobs ? importWalrusBucket(services, bucket) : undefined) });
  let websiteServer: HttpServer | undefined;
  const cleanUp = async (): Promise<void> => {
    await websiteServer?.close(0);
    await consoleServer?.server.close(0);
    await server.close(0);
    await lifecycle.stop();
    await renewal.stop();
    await notifier.close();
    await stopLogDelivery();
    await opened.close();
    lock.release();
  };
  // the website endpoint reads through the S3 face's services, so it comes up once they are ready
  const websiteInFlight = sharedPort ? sharedInFlightCounts(threads) : undefined;
  websiteServer = await listenWebsite(config, websiteRequestHandler(services, config.website.domains, log), websiteInFlight, tls).catch(async (e: unknown) => {
    await cleanUp();
    throw e;
  });
  const p = config.publisher;
  // with front-end threads the publisher's port is shared too: they serve its reads
  const publisherInFlight = sharedPort ? sharedInFlightCounts(threads) : undefined;
  const publisher = p.listen
    ? await startPublisherFace({
        dataDir: config.dataDir,
        host: p.listen.host,
        port: p.listen.port,
        endpointKeys: p.endpointKeys,
        network: p.network,
        nShards: p.nShards,
        nodeUrls: p.nodeUrls,
        epochLengthMs: p.epochLengthMs,
        maxEpochsAhead: p.maxEpochsAhead,
        // expired blobs are reclaimed within an epoch (or a minute), so a lapsed blob is gone soon after its end
        reclaimIntervalMs: Math.min(DEFAULT_RECLAIM_INTERVAL_MS, p.epochLengthMs),
        maxBodyBytes: p.maxBodyBytes,
        jwt: p.jwt,
        durability: config.durability,
        diskReserve: config.storage.diskReserve,
        tls,
        log,
        observer: publisherAccessObserver(accessLogger, metrics),
        onEncode: metrics && ((seconds) => metrics.encodeSeconds.observe(seconds)),
        threadsInFlight: publisherInFlight,
        onNodeSegmentRemoved: (nodeId, segment) => fronts?.nodeSegmentRemoved(nodeId, segment),
      }).catch(async (e) => {
        await cleanUp();
        throw e;
      })
    : undefined;
  // storage class WALRUS stores through the publisher's network (s3/walrus-objects.ts)
  if (publisher) {
    services.walrus = publisher.blobs;
    services.walrusReads = publisher.blobs;
  }
  if (sharedPort) {
    try {
      fronts = await startFrontThreads({
        count: threads - 1,
        // the front ends listen with this thread's engine
        config: { ...config, threads, httpEngine: engine.name },
        port: server.port,
        bucketGeneration,
        accountsGeneration,
        quotaGeneration,
        kmsGeneration,
        store: opened,
        inFlightCounts,
        liveCounts,
        readCacheBytes,
        tls,
        handler: serve,
        record,
        log,
        website: websiteServer && { port: websiteServer.port, inFlightCounts: websiteInFlight! },
        publisher: publisher && {
          data: {
            port: publisher.port,
            endpointKeys: publisher.endpointKeys,
            jwt: publisher.jwt,
            nShards: publisher.backend.nShards,
            network: publisher.networkView,
            // the publisher's own pool has one per core; each front end's decodes share the cores too
            codecThreads: Math.max(1, Math.floor(availableParallelism() / threads)),
            inFlightCounts: publisherInFlight!,
          },
          handler: publisher.serve,
          record: publisherAccessRecorder(accessLogger, metrics),
        },
      });
    } catch (e) {
      await publisher?.close(0);
      await cleanUp();
      throw e;
    }
  }
  logger.info(`native digests: ${Object.entries(simdPaths()).map(([a, p]) => `${a}=${p}`).join(' ')}`);
  const recovery = opened.stats().recovery;
  logger.info(
    { recovery },
    `recovery: ${recovery.segments} segment(s); ${recovery.replay.replayed} operation(s) replayed from the redo log; tail records ` +
      `past the index: ${recovery.tailValid} unacknowledged, ${recovery.tailUncommitted} incomplete, ${recovery.tailCorrupt} corrupt; ` +
      `${recovery.truncatedBytes} bytes truncated`,
  );
  logDamage(logger, recovery);
  health.damage = () => opened.stats().damage;
  logger.info(`data directory ${config.dataDir} (durability ${config.durability}${config.durability === 'relaxed' ? ': acknowledged writes are NOT flushed to disk' : ''})`);
  logger.info(`root access key id: ${accounts.root.accessKeyId}`);
  // a secret is printed once, when this start created it: logs are kept and shared, the file is 0600
  if (config.rootSecretAccessKey) logger.info('root secret access key: from TUSK_SECRET_ACCESS_KEY');
  else if (generated) logger.info(`root secret access key: ${accounts.root.secretAccessKey} (generated, stored in ${rootCredentialsPath(config.dataDir)})`);
  else logger.info(`root secret access key: in ${rootCredentialsPath(config.dataDir)}`);
  logger.info(`SSE-KMS master key: ${kms.master.from}`);
  // a warning once customer keys exist (an unused key service should not warn at every start, as the
  // SSE-S3 master key, also in the data directory, does not)
  const kmsAdvice = 'the SSE-KMS master key is in the data directory: a copy of the directory opens every SSE-KMS object; move it out (--kms-master-key-file, docs/KMS.md)';
  if (kms.master.inDataDir) logger[kms.registry.list().length > 0 ? 'warn' : 'info'](kmsAdvice);
  logger.info(`region ${config.region}; virtual-host base domains: ${services.domains.join(', ')}`);
  if (websiteServer) {
    const at = config.website.listen!;
    const domains = config.website.domains.length ? ` (Host <bucket>.${config.website.domains.join(', <bucket>.')} or the bucket's name)` : " (Host: the bucket's name)";
    logger.info(`website on ${config.tls ? 'https' : 'http'}://${at.host.includes(':') ? `[${at.host}]` : at.host}:${websiteServer.port}${domains}`);
  }
  if (consoleServer) logger.info(`console on ${consoleServer.url} (S3 allows CORS from ${consoleServer.origins.join(', ')})`);
  logger.info(`s3 listening on ${url}${sharedPort ? ` with ${threads} threads (reads and uploads on each, commits on the first)` : ''}`);
  if (publisher && sharedPort) {
    logger.info(`publisher on ${threads} threads (${publisher.networkView ? 'reads on each' : 'each forwards to the first'}; stores on the first)`);
  }
  if (publisher) publisherStats = () => publisher.stats();
  if (publisher && consoleServer) consoleServer.page.publisher = endpointOf(consoleServer.page.s3.scheme, p.listen!.host, publisher.port);
  health.stage = 'up';
  return {
    s3Port: server.port,
    publisherPort: publisher?.port,
    consolePort: consoleServer?.server.port,
    websitePort: websiteServer?.port,
    async close(graceMs = 10_000) {
      health.draining = true;
      // a listen stream never ends by itself
      live.close();
      // every thread keeps its connections until the requests of all of them are answered
      const listenersClosed = Promise.all([fronts?.close(graceMs), server.close(graceMs), consoleServer?.server.close(graceMs), websiteServer?.close(graceMs)]);
      // the front ends read the publisher's nodes: those close after them
      const publisherClosed = publisher?.close(graceMs, listenersClosed);
      await listenersClosed;
      await lifecycle.stop();
      await renewal.stop();
      await notifier.close();
      // after the front ends closed: their journals are ready by now
      await stopLogDelivery();
      await opened.close();
      await publisherClosed;
      lock.release();
    },
    async reloadTls() {
      if (!tlsSnapshots) throw new Error('this server has no TLS');
      const files = await tlsSnapshots.take();
      server.reloadTls(files);
      consoleServer?.server.reloadTls(files);
      websiteServer?.reloadTls(files);
      publisher?.reloadTls(files);
      await fronts?.reloadTls(files);
    },
  };
}

/** The S3 listener; shared with the front-end threads only on a port nobody else holds. */
function listenS3(
  config: Config,
  serve: (ex: Exchange) => Promise<void>,
  refuse: RenderRefusal,
  sharedPort: boolean,
  inFlightCounts: Int32Array,
  tls?: TlsFiles,
) {
  const { host, port } = config.listen;
  return sharedPort ? listenForThreads(host, port, serve, inFlightCounts, tls, { refuse }) : listen(host, port, serve, tls, { refuse });
}

/** The website endpoint's listener, when on; shared with the front-end threads (`inFlight`) as S3's is. */
function listenWebsite(config: Config, handler: (ex: Exchange) => Promise<void>, inFlight: Int32Array | undefined, tls: TlsFiles | undefined) {
  const at = config.website.listen;
  if (!at) return Promise.resolve(undefined);
  const refuse = s3Refusal(config.serverHeader);
  return inFlight ? listenForThreads(at.host, at.port, handler, inFlight, tls, { refuse }) : listen(at.host, at.port, handler, tls, { refuse });
}

/**
 * The console's listener (src/console), when on. Its page learns the S3 endpoint's port now and the
 * publisher's through `page` once the publisher is up.
 */
async function listenConsole(config: Config, s3Port: number, tls: TlsFiles | undefined) {
  const at = config.console.listen;
  if (!at) return undefined;
  const scheme = config.tls ? 'https' : 'http';
  const page: ConsolePageConfig = { s3: endpointOf(scheme, config.listen.host, s3Port), region: config.region };
  const server = await listen(at.host, at.port, consoleHandler(page, config.serverHeader), tls);
  const origins = consoleOrigins(at, server.port, config.tls !== undefined, config.console.origins);
  return { server, origins, page, url: `${scheme}://${at.host.includes(':') ? `[${at.host}]` : at.host}:${server.port}` };
}

/** Acknowledged bytes that start-up found missing: loud, one line per segment and per damaged object (docs/FORMAT.md § Recovery). */
function logDamage(logger: Logger, recovery: StoreRecovery): void {
  for (const { segment, size, end } of recovery.shortSegments) {
    const what = size === 0 ? 'its file is gone' : `${end - size} bytes shorter than the index says (${size} of ${end} bytes on disk)`;
    logger.error({ segment, size, end }, `segment ${segment}: ${what}; acknowledged data is missing (a disk or file-system fault, or a file changed by hand)`);
  }
  const { objects, missingBytes, named } = recovery.damaged;
  for (const { name, missing } of named) {
    logger.error({ object: name, missingBytes: missing }, `damaged: ${name} lost ${missing} bytes of its body; its reads fail with 500 XTuskObjectDamaged`);
  }
  if (objects > named.length) logger.error(`damaged: ${objects - named.length} more objects; tusk scrub lists them all`);
  if (objects > 0) {
    logger.error(`${objects} objects (versions or parts) lost ${missingBytes} bytes: delete them, or restore the data directory from a backup`);
  }
}

/** Test-only: holds the start-up in its recovery stage so that tests can probe it (never set in production). */
async function testRecoveryDelay(): Promise<void> {
  const ms = Number(process.env.TUSK_TEST_RECOVERY_DELAY_MS ?? 0);
  if (ms > 0) await sleep(ms);
}
