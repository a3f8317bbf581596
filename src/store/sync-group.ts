// Group commit for one file: concurrent callers share fdatasync calls. A sync covers every write that
// completed before it started, so a caller arriving while a sync runs waits for the next round, which
// then covers all of them at once.

export interface SyncCounter {
  fdatasyncs: number;
  /** sync() calls: the writers the rounds covered (writers / fdatasyncs = mean group size) */
  syncWaiters?: number;
  /** seconds spent in fdatasync, all rounds */
  syncSeconds?: number;
}

export class SyncGroup {
  private running: Promise<void> | undefined;
  private nextRound: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;

  constructor(
    private readonly flush: () => Promise<void>,
    private readonly counter: SyncCounter,
  ) {}

  sync(): Promise<void> {
    this.counter.syncWaiters = (this.counter.syncWaiters ?? 0) + 1;
    if (!this.running) return (this.running = this.round());
    if (!this.nextRound) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.nextRound = { promise, resolve, reject };
    }
    return this.nextRound.promise;
  }

  /** Resolves when no sync is running or queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }

  private async round(): Promise<void> {
    try {
      this.counter.fdatasyncs++;
      const started = performance.now();
      try {
        await this.flush();
      } finally {
        this.counter.syncSeconds = (this.counter.syncSeconds ?? 0) + (performance.now() - started) / 1000;
      }
    } finally {
      const waiting = this.nextRound;
      this.nextRound = undefined;
      this.running = waiting ? this.round() : undefined;
      if (waiting) this.running!.then(waiting.resolve, waiting.reject);
    }
  }
}
