// Assembles a running server: storage engine, accounts, native self-test, the S3 listener, and a
// clean shutdown that drains in-flight requests and closes the index.

import { loadAccounts, rootCredentialsPath } from './accounts.js';
import type { Config } from './config.js';
import { lockDataDir } from './data-dir-lock.js';
import { listen, loadUws } from './http/uws.js';
import { selfTest, simdPaths } from './native.js';
import { s3RequestHandler, s3Services } from './s3/service.js';
import { rs2SelfTest } from './publisher/rs2-native.js';
import { startPublisherFace } from './publisher/service/index.js';
import { openStore } from './store/index.js';
import { startLifecycleWorker } from './s3/lifecycle/worker.js';
import type { S3Bucket, S3ObjectAttrs, S3PartAttrs, S3Store } from './s3/object-attrs.js';

export interface RunningServer {
  s3Port: number;
  /** undefined when the publisher is off */
  publisherPort?: number;
  /** Stops listening, waits for in-flight requests (at most `graceMs`), closes the store and the publisher. */
  close(graceMs?: number): Promise<void>;
}

export type Logger = (line: string) => void;

export async function startServer(config: Config, log: Logger = (l) => console.log(l)): Promise<RunningServer> {
  loadUws();
  selfTest();
  if (config.publisher.listen) rs2SelfTest();
  // before anything in the directory is read; held until close() or the process ends
  const lock = lockDataDir(config.dataDir);
  const { accounts, generated } = loadAccounts(config.dataDir, {
    accessKeyId: config.rootAccessKeyId,
    secretAccessKey: config.rootSecretAccessKey,
  });
  const engine = await openStore<S3ObjectAttrs, S3PartAttrs, S3Bucket>({
    dataDir: config.dataDir,
    durability: config.durability,
    diskReserve: config.storage.diskReserve,
    segmentSize: config.storage.segmentSize,
  });
  const { compactionIntervalMs, compactionMinDead, compactionRate } = config.storage;
  if (compactionIntervalMs !== undefined) {
    engine.startCompaction(compactionIntervalMs, { minDeadRatio: compactionMinDead, bytesPerSecond: compactionRate }, (e) =>
      log(`tusk: compaction failed (will retry): ${(e as Error).stack ?? e}`),
    );
  }
  const store: S3Store = engine;
  const services = s3Services(store, accounts, config);
  const lifecycle = startLifecycleWorker(store, config.lifecycle, (l) => log(`tusk: ${l}`));
  const server = await listen(config.listen.host, config.listen.port, s3RequestHandler(services, (l) => log(`tusk: ${l}`)));
  const url = `http://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${server.port}`;
  log(`tusk: native digests: ${Object.entries(simdPaths()).map(([a, p]) => `${a}=${p}`).join(' ')}`);
  const recovery = engine.stats().recovery;
  log(
    `tusk: recovery: ${recovery.segments} segment(s); tail records past the index: ${recovery.tailValid} unacknowledged, ` +
      `${recovery.tailUncommitted} incomplete, ${recovery.tailCorrupt} corrupt; ${recovery.truncatedBytes} bytes truncated`,
  );
  log(`tusk: data directory ${config.dataDir} (durability ${config.durability}${config.durability === 'relaxed' ? ': acknowledged writes are NOT flushed to disk' : ''})`);
  log(`tusk: root access key id: ${accounts.root.accessKeyId}`);
  // a secret is printed once, when this start created it: logs are kept and shared, the file is 0600
  if (config.rootSecretAccessKey) log('tusk: root secret access key: from TUSK_SECRET_ACCESS_KEY');
  else if (generated) log(`tusk: root secret access key: ${accounts.root.secretAccessKey} (generated, stored in ${rootCredentialsPath(config.dataDir)})`);
  else log(`tusk: root secret access key: in ${rootCredentialsPath(config.dataDir)}`);
  log(`tusk: region ${config.region}; virtual-host base domains: ${services.domains.join(', ')}`);
  log(`tusk: s3 listening on ${url}`);
  const p = config.publisher;
  const publisher = p.listen
    ? await startPublisherFace({
        dataDir: config.dataDir,
        host: p.listen.host,
        port: p.listen.port,
        endpointKeys: p.endpointKeys,
        nShards: p.nShards,
        nodeUrls: p.nodeUrls,
        epochLengthMs: p.epochLengthMs,
        maxBodyBytes: p.maxBodyBytes,
        jwt: p.jwt,
        durability: config.durability,
        diskReserve: config.storage.diskReserve,
        log,
      }).catch(async (e) => {
        await server.close(0);
        await lifecycle.stop();
        await store.close();
        throw e;
      })
    : undefined;
  return {
    s3Port: server.port,
    publisherPort: publisher?.port,
    async close(graceMs = 10_000) {
      const publisherClosed = publisher?.close(graceMs);
      await server.close(graceMs);
      await lifecycle.stop();
      await store.close();
      await publisherClosed;
      lock.release();
    },
  };
}
