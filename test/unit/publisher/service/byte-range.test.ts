import { describe, expect, it } from 'vitest';
import { parseByteRange } from '../../../../src/publisher/service/byte-range.js';
import { PublisherError } from '../../../../src/publisher/service/errors.js';

describe('aggregator Range (walrus.md §11)', () => {
  it('one range with both ends, inside the blob', () => {
    expect(parseByteRange(undefined, 10)).toBeUndefined();
    expect(parseByteRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseByteRange('bytes=2-5', 10)).toEqual({ start: 2, end: 5 });
    expect(parseByteRange('bytes=8-9', 10)).toEqual({ start: 8, end: 9 });
  });

  it.each(['bytes=5-', 'bytes=-5', 'bytes=0-1,3-4', 'bytes=5-2', 'bytes=10-12', 'bytes=8-10', 'bytes=0-100', 'items=0-1', 'bytes=a-b'])('%s → 416 INVALID_BYTE_RANGE', (header) => {
    expect(() => parseByteRange(header, 10)).toThrow(PublisherError);
    try {
      parseByteRange(header, 10);
    } catch (e) {
      expect((e as PublisherError).code).toBe('INVALID_BYTE_RANGE');
    }
  });
});
