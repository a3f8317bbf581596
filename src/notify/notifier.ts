// Delivery of stored notices (store `notices`, written in the commit of the change they announce):
// each declared target has a bounded in-memory queue filled in commit order and one sender that
// delivers its head, retrying with back-off while the target is down, so that a target gets every
// change at least once and the changes of a key in order. A notice leaves the store once every
// target it names has it. Policy when a target's queue is full (--notify-queue-limit): new events
// for that target are dropped, counted (tusk_notify_dropped_total) and logged, as MinIO does when
// its queue store is full; the other targets and the writes go on.

import type { LogLine } from '../log/log-line.js';
import type { StoredNotice } from '../store/redo-ops.js';
import { targetArn, targetOfArn, type NotifyConfig, type TargetConfig } from './config.js';
import { eventMatches, eventMessage, eventNameOf, queuedEvent, testEventMessage, type NoticeData, type QueuedEvent } from './records.js';
import { openTarget, type Target } from './target.js';

/** What the notifier needs of the engine (SegmentStore). */
export interface NoticeStore {
  notices(after: number, limit: number): StoredNotice[];
  settleNotices(updates: ReadonlyArray<{ seq: number; done: string[] | null }>): Promise<void>;
  onNotice: ((notice: StoredNotice) => void) | undefined;
}

export interface TargetStatus {
  id: string;
  kind: string;
  arn: string;
  /** events queued and not yet delivered */
  pending: number;
  delivered: number;
  /** failed delivery attempts (each is retried) */
  failed: number;
  /** events not queued because the queue was full */
  dropped: number;
  /** false while the last attempt failed */
  up: boolean;
  lastError?: string;
}

const PULL_PAGE = 1000;
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 30_000;
/**
 * Deliveries are recorded in one index transaction per this many ms: each transaction is a commit
 * of its own beside the writes' (a crash before it sends those events again: at least once).
 */
const SETTLE_DELAY_MS = 250;

/**
 * A message of several events (a target with `batch`) stops at this many bytes of records, unless
 * it holds one event only: a receiver's body limit is usually 1 MiB or more.
 */
export const BATCH_MAX_BYTES = 512 * 1024;

/**
 * A target that takes several events a message waits this long before each message that would not
 * be full, so that the events of the commits meanwhile share it (Kafka's linger.ms): at a few
 * hundred PUT/s, the previous POST's answer alone comes back before a second event is queued.
 */
export const BATCH_LINGER_MS = 10;

/** The head of `items` one message carries: at most `batch` events and BATCH_MAX_BYTES of records (at least one event). */
export function takeBatch(items: readonly QueuedEvent[], batch: number): QueuedEvent[] {
  let bytes = 0;
  let n = 0;
  while (n < items.length && n < batch) {
    bytes += items[n]!.record.length;
    if (n > 0 && bytes > BATCH_MAX_BYTES) break;
    n++;
  }
  return items.slice(0, n);
}

class TargetQueue {
  readonly items: QueuedEvent[] = [];
  readonly status: TargetStatus;
  private running = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    readonly config: TargetConfig,
    region: string,
    private readonly target: Target,
    private readonly delivered: (events: readonly QueuedEvent[], id: string) => void,
    private readonly log: LogLine,
    private closed: () => boolean,
  ) {
    this.status = { id: config.id, kind: config.kind, arn: targetArn(config, region), pending: 0, delivered: 0, failed: 0, dropped: 0, up: true };
  }

  push(item: QueuedEvent): void {
    this.items.push(item);
    this.status.pending = this.items.length;
    if (!this.running) void this.run();
  }

  /** Waits `ms` (or until stop). */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  /** Ends a wait early (close). */
  stop(): void {
    clearTimeout(this.timer);
    this.wakeUp?.();
  }

  send(message: string): Promise<void> {
    return this.target.send(message);
  }

  private async run(): Promise<void> {
    this.running = true;
    const batch = this.target.batch ?? 1;
    while (this.items.length && !this.closed()) {
      if (batch > 1 && this.items.length < batch && this.status.up) {
        await this.pause(BATCH_LINGER_MS);
        if (this.closed()) break;
      }
      // the head and, for a target that takes several, the events queued behind it: per-key order
      // holds (one message, in queue order; a failure retries them all)
      const head = takeBatch(this.items, batch);
      try {
        await this.target.send(eventMessage(head));
      } catch (e) {
        this.status.failed++;
        this.status.lastError = (e as Error).message;
        if (this.status.up) this.log(`notify: target ${this.status.arn} is down (${this.status.lastError}); ${this.items.length} event(s) pending, retrying with back-off`, 'warn');
        this.status.up = false;
        const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.failures++);
        await this.pause(wait * (0.5 + Math.random() / 2));
        continue;
      }
      if (!this.status.up) this.log(`notify: target ${this.status.arn} is delivering again`, 'info');
      this.status.up = true;
      this.failures = 0;
      this.items.splice(0, head.length);
      this.status.pending = this.items.length;
      this.status.delivered += head.length;
      this.delivered(head, this.config.id);
    }
    this.running = false;
  }

  close(): Promise<void> {
    this.stop();
    return this.target.close();
  }
}

export class Notifier {
  private readonly queues = new Map<string, TargetQueue>();
  /** notices being delivered: seq → targets still to have it, and those that have it */
  private readonly open = new Map<number, { left: Set<string>; done: string[] }>();
  private settles: Array<{ seq: number; done: string[] | null }> = [];
  private settleTimer: NodeJS.Timeout | undefined;
  private settling: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly targets = new Map<string, TargetConfig | undefined>();

  private constructor(
    private readonly store: NoticeStore,
    private readonly config: NotifyConfig,
    private readonly region: string,
    private readonly log: LogLine,
  ) {}

  static async start(store: NoticeStore, config: NotifyConfig, region: string, log: LogLine): Promise<Notifier> {
    const n = new Notifier(store, config, region, log);
    for (const t of config.targets) {
      n.queues.set(t.id, new TargetQueue(t, region, await openTarget(t), (events, id) => {
        for (const e of events) n.delivered(e.seq, id);
      }, log, () => n.closed));
    }
    store.onNotice = (notice) => n.announce(notice);
    n.loadStored();
    return n;
  }

  status(): TargetStatus[] {
    return [...this.queues.values()].map((q) => ({ ...q.status }));
  }

  /** S3's s3:TestEvent to each destination of a configuration just set (once, not retried: nothing to lose). */
  test(bucket: string, rules: ReadonlyArray<{ arn: string }>, requestId: string, hostId: string): void {
    const message = testEventMessage(bucket, requestId, hostId);
    for (const arn of new Set(rules.map((r) => r.arn))) {
      const target = targetOfArn(arn, this.config.targets, this.region);
      const q = target && this.queues.get(target.id);
      q?.send(message).catch((e: Error) => this.log(`notify: test event to ${arn} failed: ${e.message}`, 'warn'));
    }
  }

  /** A change with a notice committed: queue it (keyed by its seq: changes of different keys commit out of seq order). */
  private announce(n: StoredNotice): void {
    if (this.closed || this.open.has(n.seq)) return;
    this.enqueue(n);
  }

  /** At start: the notices a previous run left undelivered, in commit order. */
  private loadStored(): void {
    let after = 0;
    for (let page = this.store.notices(after, PULL_PAGE); page.length; page = this.store.notices(after, PULL_PAGE)) {
      for (const n of page) if (!this.open.has(n.seq)) this.enqueue(n);
      after = page.at(-1)!.seq;
    }
  }

  private enqueue(n: StoredNotice): void {
    const ev = n.ev as unknown as NoticeData;
    const name = eventNameOf(n);
    const done = [...(n.done ?? [])];
    const left = new Set<string>();
    for (const rule of ev.rules) {
      if (rule.events && !rule.events.some((p) => eventMatches(p, name))) continue;
      const target = this.targetOf(rule.arn);
      if (!target) {
        this.log(`notify: ${rule.arn} is no longer a declared target; event ${name} of ${n.b}/${n.k} is not sent there`, 'warn');
        continue;
      }
      if (done.includes(target.id) || left.has(target.id)) continue;
      const q = this.queues.get(target.id)!;
      if (q.items.length >= this.config.queueLimit) {
        q.status.dropped++;
        done.push(target.id);
        if (q.status.dropped === 1 || q.status.dropped % 1000 === 0) {
          this.log(`notify: the queue of ${q.status.arn} is full (${this.config.queueLimit}); ${q.status.dropped} event(s) dropped so far`, 'error');
        }
        continue;
      }
      left.add(target.id);
      q.push(queuedEvent(n, rule.id, this.region));
    }
    if (left.size === 0) this.settle(n.seq, null);
    else this.open.set(n.seq, { left, done });
  }

  /** The declared target of an ARN (the targets are fixed while the notifier runs). */
  private targetOf(arn: string): TargetConfig | undefined {
    if (!this.targets.has(arn)) this.targets.set(arn, targetOfArn(arn, this.config.targets, this.region));
    return this.targets.get(arn);
  }

  private delivered(seq: number, id: string): void {
    const o = this.open.get(seq);
    if (!o) return;
    o.left.delete(id);
    o.done.push(id);
    if (o.left.size === 0) {
      this.open.delete(seq);
      this.settle(seq, null);
    } else this.settle(seq, [...o.done]);
  }

  /** Records deliveries in batches: a crash before the batch is written sends those events again (at least once). */
  private settle(seq: number, done: string[] | null): void {
    this.settles.push({ seq, done });
    this.settleTimer ??= setTimeout(() => this.flushSettles(), SETTLE_DELAY_MS);
  }

  private flushSettles(): Promise<void> {
    this.settleTimer = undefined;
    const batch = this.settles;
    this.settles = [];
    if (batch.length === 0) return this.settling;
    this.settling = this.settling
      .then(() => this.store.settleNotices(batch))
      .catch((e: Error) => this.log(`notify: recording ${batch.length} deliveries failed (they will be sent again): ${e.message}`, 'error'));
    return this.settling;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.store.onNotice = undefined;
    clearTimeout(this.settleTimer);
    await this.flushSettles();
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
