// Group commit for one file: concurrent callers share fdatasync calls. A sync covers every write that
// completed before it started, so a caller arriving while a sync runs waits for the next round, which
// then covers all of them at once. A round starts at the end of the event-loop turn it was asked in
// (or once the running one ends), not at the first call: small writes complete together at the end
// of a turn (fd-io.ts), and their writers ask for a sync together just after; they share one round.

export interface SyncCounter {
  fdatasyncs: number;
  /** sync() calls: the writers the rounds covered (writers / fdatasyncs = mean group size) */
  syncWaiters?: number;
  /** seconds spent in fdatasync, all rounds */
  syncSeconds?: number;
}

interface Round {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function newRound(): Round {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export class SyncGroup {
  /** the round being flushed */
  private running: Round | undefined;
  /** the round every caller joins until it starts */
  private next: Round | undefined;

  constructor(
    private readonly flush: () => Promise<void>,
    private readonly counter: SyncCounter,
  ) {}

  sync(): Promise<void> {
    this.counter.syncWaiters = (this.counter.syncWaiters ?? 0) + 1;
    if (!this.next) {
      this.next = newRound();
      if (!this.running) setImmediate(() => this.start());
    }
    return this.next.promise;
  }

  /** Resolves when no sync is running or queued. */
  async idle(): Promise<void> {
    for (let round = this.next ?? this.running; round; round = this.next ?? this.running) {
      await round.promise.catch(() => undefined);
    }
  }

  private start(): void {
    const round = (this.running = this.next!);
    this.next = undefined;
    this.counter.fdatasyncs++;
    const started = performance.now();
    this.flush()
      .finally(() => {
        this.counter.syncSeconds = (this.counter.syncSeconds ?? 0) + (performance.now() - started) / 1000;
        this.running = undefined;
        if (this.next) setImmediate(() => this.start());
      })
      .then(round.resolve, round.reject);
  }
}
