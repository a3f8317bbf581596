// The codec's pool of shared buffers: what it hands out, what it keeps, and its bound.
import { describe, expect, it } from 'vitest';

import { SharedBufferPool } from '../../../../src/publisher/rs2/buffer-pool.js';

describe('SharedBufferPool', () => {
  it('hands a kept buffer out again only when it fits: at least the size, at most twice it', () => {
    const pool = new SharedBufferPool(1 << 20);
    const a = pool.take(1000);
    expect(a).toBeInstanceOf(SharedArrayBuffer);
    expect(a.byteLength).toBe(1000);
    pool.give(a);
    expect(pool.keptBytes).toBe(1000);
    expect(pool.take(1001), 'too small').not.toBe(a);
    expect(pool.take(499), 'more than twice the size').not.toBe(a);
    expect(pool.take(500)).toBe(a);
    expect(pool.keptBytes).toBe(0);
    expect(pool.take(500), 'taken already').not.toBe(a);
  });

  it('keeps a buffer once however often it is given back', () => {
    const pool = new SharedBufferPool(1 << 20);
    const a = pool.take(100);
    pool.give(a);
    pool.give(a);
    expect(pool.keptBytes).toBe(100);
    expect(pool.take(100)).toBe(a);
    expect(pool.take(100)).not.toBe(a);
  });

  it('drops the oldest buffers to stay within its bound, and never keeps one larger than it', () => {
    const pool = new SharedBufferPool(250);
    const [a, b, c] = [pool.take(100), pool.take(100), pool.take(100)];
    pool.give(a);
    pool.give(b);
    pool.give(c);
    expect(pool.keptBytes).toBe(200);
    expect(pool.take(100)).toBe(b);
    expect(pool.take(100)).toBe(c);
    expect(pool.take(100)).not.toBe(a);
    pool.give(pool.take(251));
    expect(pool.keptBytes).toBe(0);
  });
});
