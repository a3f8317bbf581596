// Recently read small bodies, checked, by where they lie: a hit costs no system call and no CRC.
// A body's place (segment, offset) is written once and never reused (segments are append-only and
// numbered upward; compaction copies to new places), so an entry never goes stale: it only ages
// out. Least recently used first, within a byte budget.

import { BLOCK_SIZE } from './block-crcs.js';
import type { Extent } from './types.js';

export class BlockCache {
  /** insertion order is recency order: a hit moves its entry to the end */
  private readonly entries = new Map<number | string, Buffer>();
  private bytes = 0;

  /** bodies larger than this are not kept (at most one block: a kept body is checked as one) */
  readonly maxBody: number;

  constructor(
    private readonly maxBytes: number,
    maxBody: number,
  ) {
    this.maxBody = Math.min(maxBody, BLOCK_SIZE);
  }

  /** Whether `extent` is a body this cache keeps (small, whole, with block CRCs to check it once). */
  keeps(extent: Extent): boolean {
    return extent.length <= this.maxBody && extent.blockCrcs !== undefined;
  }

  get(extent: Extent): Buffer | undefined {
    const key = keyOf(extent);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Keeps a copy of `body`, the checked bytes of `extent`. */
  set(extent: Extent, body: Buffer): void {
    const key = keyOf(extent);
    if (this.entries.has(key) || body.length > this.maxBytes) return;
    this.entries.set(key, Buffer.from(body));
    this.bytes += body.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.length;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/** A number while it is exact (2^21 segments of up to 4 GiB), else a string: no string per lookup. */
function keyOf(extent: Extent): number | string {
  return extent.segment < 2 ** 21 && extent.offset < 2 ** 32 ? extent.segment * 2 ** 32 + extent.offset : `${extent.segment}:${extent.offset}`;
}
