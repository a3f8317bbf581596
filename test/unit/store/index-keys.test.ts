// The index's record keys: `bucket 0x00 key`, and the scratch-buffer variant that GETs look up with.

import { describe, expect, it } from 'vitest';
import { lookupObjectKey, lookupObjectKeyNow } from '../../../src/store/index-db.js';
import { MAX_BUCKET_BYTES, MAX_OBJECT_KEY_BYTES } from '../../../src/store/format.js';

describe('lookupObjectKeyNow', () => {
  const cases: Array<[string, string]> = [
    ['b', 'k'],
    ['bucket-1', 'a/b/c.txt'],
    ['b', 'ünï€😀 key'],
    ['b'.repeat(MAX_BUCKET_BYTES), 'k'.repeat(MAX_OBJECT_KEY_BYTES)], // both at their limit
    ['b', '€'.repeat(MAX_OBJECT_KEY_BYTES / 2)], // 1536 bytes: too long though 512 characters
    ['b', '€'.repeat(341)], // 1023 bytes
    ['b'.repeat(MAX_BUCKET_BYTES + 1), 'k'],
    ['b', 'k'.repeat(MAX_OBJECT_KEY_BYTES + 1)],
    ['', 'k'],
    ['b', ''],
    ['b\0c', 'k'],
    ['b', 'k\0with nul'],
  ];
  it.each(cases)('is the key lookupObjectKey builds, or undefined alike (%#)', (bucket, key) => {
    const now = lookupObjectKeyNow(bucket, key);
    const built = lookupObjectKey(bucket, key);
    expect(now === undefined ? undefined : Buffer.from(now)).toEqual(built);
  });

  it('is valid until the next call, which reuses the buffer', () => {
    const first = lookupObjectKeyNow('b', 'first-key')!;
    const copy = Buffer.from(first);
    lookupObjectKeyNow('b', 'other');
    expect(first.equals(copy)).toBe(false);
  });
});
