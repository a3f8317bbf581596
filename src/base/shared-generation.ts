// A counter in shared memory (SharedArrayBuffer) that threads over one data directory bump after
// they change something the others keep a decoded copy of (bucket records, accounts, quotas): a
// thread that sees the counter move since it last looked reads the thing again.

export class GenerationWatch {
  private seen: number;

  /** Without a counter (one thread) nothing ever moves. */
  constructor(private readonly counter: Int32Array | undefined) {
    this.seen = counter ? Atomics.load(counter, 0) : 0;
  }

  /** True once for every run of changes made by other threads since the last call (or bump). */
  moved(): boolean {
    if (!this.counter) return false;
    const now = Atomics.load(this.counter, 0);
    if (now === this.seen) return false;
    this.seen = now;
    return true;
  }

  /** After a change made here (and written where the others read it): tells the other threads. */
  bump(): void {
    if (this.counter) this.seen = Atomics.add(this.counter, 0, 1) + 1;
  }
}
