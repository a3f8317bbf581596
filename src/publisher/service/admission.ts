// Load shedding as the Walrus daemon does it per route (walrus.md §10.4, tower load-shed): at most
// `maxConcurrent` requests run, at most `queue` more wait in line, the rest are refused at once.

import { PublisherError } from './errors.js';

export type Release = () => void;

export class AdmissionLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly maxConcurrent: number,
    readonly queue: number,
  ) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new RangeError(`maxConcurrent must be an integer ≥ 1, got ${maxConcurrent}`);
    if (!Number.isInteger(queue) || queue < 0) throw new RangeError(`queue must be an integer ≥ 0, got ${queue}`);
  }

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Admits the caller now or after a wait in the queue; throws TOO_MANY_REQUESTS synchronously
   * (before the promise) when both are full, so the refusal costs nothing.
   */
  admit(): Promise<Release> {
    if (this.running < this.maxConcurrent) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.queue) throw new PublisherError('TOO_MANY_REQUESTS');
    return new Promise<Release>((resolve) => this.waiting.push(() => resolve(this.releaser())));
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else this.running--;
    };
  }
}
