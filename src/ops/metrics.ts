// Prometheus metrics (prom-client): per-request counters and histograms fed by the access-log hook,
// engine and publisher numbers read from their stats when scraped, Node's defaults (event-loop lag,
// heap, GC) and the process's health.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PublisherFaceStats } from '../publisher/index.js';
import type { StoreStats } from '../store/store-stats.js';
import type { Health } from './health.js';
import { RequestMetrics } from './request-metrics.js';
import type { TargetStatus } from '../notify/notifier.js';
import type { WalrusRenewalStats } from '../s3/walrus-renewal.js';

export type PublisherStats = PublisherFaceStats;

export interface MetricSources {
  health: Health;
  /** undefined until the engine is open */
  store(): StoreStats | undefined;
  publisher?(): Promise<PublisherStats | undefined>;
  /** bucket notification targets (src/notify/notifier.ts) */
  notify?(): TargetStatus[];
  /** the renewal worker of storage class WALRUS (src/s3/walrus-renewal.ts) */
  walrusRenewal?(): WalrusRenewalStats | undefined;
}

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new RequestMetrics();
  readonly encodeSeconds: Histogram;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'tusk_' });
    // prom-client names these gauges *_total, which Prometheus's naming rules (promtool check
    // metrics) reserve for counters; the handles and requests they count are not worth a lint error
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      this.registry.removeSingleMetric(`tusk_${name}`);
    }
    this.requests.register(this.registry);
    this.encodeSeconds = new Histogram({
      name: 'tusk_publisher_encode_duration_seconds',
      help: 'RS2 encode time of stored blobs',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    registerStoreMetrics(registers, sources.store);
    registerHealthMetrics(registers, sources.health);
    if (sources.publisher) registerPublisherMetrics(registers, sources.publisher);
    if (sources.notify) registerNotifyMetrics(registers, sources.notify);
    if (sources.walrusRenewal) registerRenewalMetrics(registers, sources.walrusRenewal);
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** A counter whose value is a running total kept elsewhere, set when scraped. */
function totalCounter(registers: Registry[], name: string, help: string, read: () => number | undefined): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      const v = read();
      if (v === undefined) return;
      this.reset();
      this.inc(v);
    },
  });
}

function readGauge(registers: Registry[], name: string, help: string, read: () => number | undefined): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      const v = read();
      if (v !== undefined) this.set(v);
    },
  });
}

function registerStoreMetrics(registers: Registry[], store: () => StoreStats | undefined): void {
  // one stats() per scrape: every engine metric of a scrape reads the same snapshot
  let snapshot: { at: number; stats: StoreStats | undefined } | undefined;
  const stats = () => {
    const now = Date.now();
    if (!snapshot || now - snapshot.at > 100) snapshot = { at: now, stats: store() };
    return snapshot.stats;
  };
  totalCounter(registers, 'tusk_store_fdatasyncs_total', 'Group-commit rounds: fdatasync calls on segment files', () => stats()?.fdatasyncs);
  totalCounter(registers, 'tusk_store_group_commit_writes_total', 'Writes covered by group commit (divided by fdatasyncs: mean group size)', () => stats()?.syncWaiters);
  totalCounter(registers, 'tusk_store_flush_seconds_total', 'Seconds spent in segment fdatasync (divided by fdatasyncs: mean flush latency)', () => stats()?.syncSeconds);
  totalCounter(registers, 'tusk_store_index_groups_total', 'Index transactions applying logged key operations (group commit of the index)', () => stats()?.indexGroups);
  totalCounter(registers, 'tusk_store_index_grouped_operations_total', 'Key operations those applied (divided by index groups: mean group size)', () => stats()?.indexGroupedOps);
  totalCounter(registers, 'tusk_store_index_flush_waits_total', 'Index commits that waited for the LMDB flush', () => stats()?.indexFlushWaits);
  readGauge(registers, 'tusk_store_segment_bytes', 'Bytes of segment files up to their last committed record', () => stats()?.segmentBytes);
  readGauge(registers, 'tusk_store_live_bytes', 'Body bytes of current objects', () => stats()?.liveBytes);
  readGauge(registers, 'tusk_store_dead_bytes', 'Segment bytes no current object uses (what compaction can reclaim)', () => {
    const s = stats();
    return s && Math.max(0, s.segmentBytes - s.liveBytes);
  });
  readGauge(registers, 'tusk_store_live_records', 'Body records of current objects', () => stats()?.liveRecords);
  readGauge(registers, 'tusk_store_index_bytes', 'Bytes of the LMDB index in use', () => stats()?.indexBytes);
  // fed once the engine reports compaction in store.stats() (StoreStats.compaction); 0 until then
  totalCounter(registers, 'tusk_store_compaction_passes_total', 'Compaction passes run', () => stats()?.compaction?.passes ?? 0);
  totalCounter(registers, 'tusk_store_compaction_segments_total', 'Segments compacted', () => stats()?.compaction?.segmentsCompacted ?? 0);
  totalCounter(registers, 'tusk_store_compaction_deleted_segments_total', 'Segment files deleted by compaction', () => stats()?.compaction?.segmentsDeleted ?? 0);
  totalCounter(registers, 'tusk_store_compaction_moved_bytes_total', 'Live bytes copied by compaction', () => stats()?.compaction?.bytesMoved ?? 0);
  readGauge(registers, 'tusk_store_compaction_running', '1 while a compaction pass runs', () => (stats()?.compaction?.running ? 1 : 0));
  readGauge(registers, 'tusk_store_damaged_objects', 'Versions and parts whose stored bytes are missing (found at start-up, not yet deleted)', () => stats()?.damage.objects);
  readGauge(registers, 'tusk_store_missing_bytes', 'Stored body bytes missing from their segment files (a disk or file-system fault)', () => stats()?.damage.missingBytes);
  readGauge(registers, 'tusk_store_active_segment', 'Number of the segment file being appended to', () => stats()?.activeSegment);
}

function registerHealthMetrics(registers: Registry[], health: Health): void {
  new Gauge({
    name: 'tusk_ready',
    help: '1 when the readiness check passes',
    registers,
    async collect() {
      this.set((await health.readiness()).ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tusk_disk_free_bytes',
    help: 'Free bytes of the file system holding the data directory',
    registers,
    async collect() {
      this.set((await health.diskSpace()).freeBytes);
    },
  });
  readGauge(registers, 'tusk_uptime_seconds', 'Seconds since the server started', () => (Date.now() - health.startedAt) / 1000);
}

function registerPublisherMetrics(registers: Registry[], read: () => Promise<PublisherStats | undefined>): void {
  let pending: Promise<PublisherStats | undefined> | undefined;
  const stats = () => (pending ??= read().finally(() => setTimeout(() => (pending = undefined), 100)));
  const gauge = (name: string, help: string, pick: (s: PublisherStats) => number | undefined) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const s = await stats();
        const value = s && pick(s);
        if (value !== undefined) this.set(value);
      },
    });
  gauge('tusk_publisher_ledger_balance', "Publisher wallet balance: the embedded ledger's, or WAL on Walrus (FROST)", (s) => s.ledgerBalance);
  gauge('tusk_publisher_ledger_transactions', 'Transactions on the publisher ledger (embedded network)', (s) => s.ledgerTransactions);
  gauge('tusk_publisher_blob_objects', 'Blob objects the publisher ledger has created (blobs stored; embedded network)', (s) => s.blobObjects);
  gauge('tusk_publisher_codec_queue', 'RS2 tasks waiting for a worker thread', (s) => s.codecQueue);
  new Gauge({
    name: 'tusk_publisher_node_up',
    help: '1 when the storage node answered its last health check',
    labelNames: ['node'],
    registers,
    async collect() {
      const s = await stats();
      if (!s) return;
      this.reset();
      for (const [node, up] of Object.entries(s.nodesUp)) this.set({ node }, up);
    },
  });
}

function registerRenewalMetrics(registers: Registry[], stats: () => WalrusRenewalStats | undefined): void {
  totalCounter(registers, 'tusk_walrus_renewal_passes_total', 'Passes of the renewal worker over the blobs of storage class WALRUS', () => stats()?.passes);
  totalCounter(registers, 'tusk_walrus_renewal_extensions_total', 'Blobs of WALRUS objects extended before their end epoch', () => stats()?.extended);
  totalCounter(registers, 'tusk_walrus_renewal_epochs_total', 'Epochs of storage those extensions bought', () => stats()?.epochsBought);
  totalCounter(registers, 'tusk_walrus_renewal_frost_total', 'FROST those extensions paid', () => {
    const s = stats();
    return s && Number(s.frostSpent);
  });
  totalCounter(registers, 'tusk_walrus_renewal_skipped_budget_total', 'Extensions skipped because the pass would exceed --walrus-renew-max-wal', () => stats()?.skippedBudget);
  totalCounter(registers, 'tusk_walrus_renewal_failed_total', 'Extensions that failed (tried again at the next pass)', () => stats()?.failed);
}

/** One series per notification target, labelled by its ARN. */
function registerNotifyMetrics(registers: Registry[], status: () => TargetStatus[]): void {
  const series: Array<[name: string, help: string, field: 'pending' | 'delivered' | 'failed' | 'dropped', counter: boolean]> = [
    ['tusk_notify_pending', 'Events queued for a notification target and not yet delivered', 'pending', false],
    ['tusk_notify_delivered_total', 'Events a notification target acknowledged', 'delivered', true],
    ['tusk_notify_failed_total', 'Failed delivery attempts to a notification target (each is retried)', 'failed', true],
    ['tusk_notify_dropped_total', 'Events not queued for a notification target because its queue was full', 'dropped', true],
  ];
  for (const [name, help, field, counter] of series) {
    if (counter) {
      new Counter({
        name,
        help,
        labelNames: ['target'],
        registers,
        collect() {
          this.reset();
          for (const t of status()) this.inc({ target: t.arn }, t[field]);
        },
      });
    } else {
      new Gauge({
        name,
        help,
        labelNames: ['target'],
        registers,
        collect() {
          for (const t of status()) this.set({ target: t.arn }, t[field]);
        },
      });
    }
  }
  new Gauge({
    name: 'tusk_notify_target_up',
    help: '1 while the last delivery attempt to a notification target succeeded',
    labelNames: ['target'],
    registers,
    collect() {
      for (const t of status()) this.set({ target: t.arn }, t.up ? 1 : 0);
    },
  });
}
