// The index's record keys: `bucket 0x00 key`, built once into a scratch buffer, copied out (objectKey,
// lookupObjectKey) or lent as a view (lookupObjectKeyNow, what GETs look up with).

import { describe, expect, it } from 'vitest';
import { lookupObjectKey, lookupObjectKeyNow, objectKey } from '../../../src/store/index-db.js';
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
  it.each(cases)('is `bucket 0x00 key` when both names are valid, as lookupObjectKey and objectKey build it (%#)', (bucket, key) => {
    const b = Buffer.from(bucket, 'utf8');
    const k = Buffer.from(key, 'utf8');
    const valid = b.length >= 1 && b.length <= MAX_BUCKET_BYTES && !b.includes(0) && k.length >= 1 && k.length <= MAX_OBJECT_KEY_BYTES;
    const expected = valid ? Buffer.concat([b, Buffer.of(0), k]) : undefined;
    const now = lookupObjectKeyNow(bucket, key);
    expect(now === undefined ? undefined : Buffer.from(now)).toEqual(expected);
    expect(lookupObjectKey(bucket, key)).toEqual(expected);
    if (valid) expect(objectKey(bucket, key)).toEqual(expected);
    else expect(() => objectKey(bucket, key)).toThrow(expect.objectContaining({ kind: 'invalid-name' }));
  });

  it('is valid until the next call, which reuses the buffer', () => {
    const first = lookupObjectKeyNow('b', 'first-key')!;
    const copy = Buffer.from(first);
    lookupObjectKeyNow('b', 'other');
    expect(first.equals(copy)).toBe(false);
  });
});
