// A lazy codec (a front-end thread's): no worker thread until a task needs one; small work runs
// inline and never starts one.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { INLINE_MAX_BYTES, openBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import { randomBytes } from './vector-input.js';

const threadCount = (): number => readdirSync('/proc/self/task').length;

describe('a lazy codec', () => {
  it('starts its worker at the first task that needs one, and decodes as any other', async () => {
    const eager = await openBlobCodec({ threads: 1 });
    const small = await eager.encode(randomBytes(1, 500), 10);
    const large = await eager.encode(randomBytes(2, INLINE_MAX_BYTES * 3), 10);
    const before = threadCount();
    const lazy = await openBlobCodec({ threads: 1, lazy: true });
    try {
      expect(threadCount()).toBe(before);
      const primaries = (e: typeof small) => new Map([0, 1, 2, 3].map((p) => [p, e.sliverPair(p).primary]));
      expect((await lazy.decode(small.metadataBcs, primaries(small), 10)).equals(randomBytes(1, 500))).toBe(true);
      expect(threadCount()).toBe(before);
      expect((await lazy.decode(large.metadataBcs, primaries(large), 10)).equals(randomBytes(2, INLINE_MAX_BYTES * 3))).toBe(true);
      expect(threadCount()).toBeGreaterThan(before);
    } finally {
      await lazy.close();
      await eager.close();
    }
  });
});
