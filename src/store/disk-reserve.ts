// The disk reserve: a write that would leave less than it free is refused, so that the index never
// hits ENOSPC and deletes can always go on.

import { StoreError } from './errors.js';

/** How long a free-space reading is trusted (writes reserved since are subtracted from it). */
const STATFS_TTL_MS = 500;

export class DiskReserve {
  private free: { bytes: number; at: number } | undefined;

  constructor(
    readonly reserve: number,
    private readonly freeBytes: () => number,
    private readonly counter: { outOfSpace: number },
  ) {}

  /** Refuses (out-of-space) a write of `length` bytes that would leave less than the reserve free. */
  check(length: number): void {
    const now = Date.now();
    if (!this.free || now - this.free.at > STATFS_TTL_MS) this.free = { bytes: this.freeBytes(), at: now };
    if (this.free.bytes - length < this.reserve) {
      this.counter.outOfSpace++;
      this.free = undefined; // read again next time: space may have come back
      throw new StoreError('out-of-space', `writing ${length} bytes would leave less than the ${this.reserve}-byte reserve free`);
    }
    this.free.bytes -= length;
  }
}
