import { describe, expect, it } from 'vitest';
import { parseListBuckets } from '../../../../src/s3/routes/list-buckets.js';
import { errorOf, input } from './helpers.js';

describe('ListBuckets parameters (s3.md §3.1)', () => {
  it('defaults: no prefix, 10000 buckets, from the start, no region filter', () => {
    expect(parseListBuckets(input())).toEqual({ prefix: undefined, maxBuckets: 10000, startAfter: '', bucketRegion: undefined });
  });

  it('reads prefix, max-buckets, the continuation token (a base64url bucket name) and bucket-region unchecked', () => {
    const token = Buffer.from('bucket-b').toString('base64url');
    expect(parseListBuckets(input({ prefix: '', 'max-buckets': '1', 'continuation-token': token, 'bucket-region': 'abc' }))).toEqual({
      prefix: '', maxBuckets: 1, startAfter: 'bucket-b', bucketRegion: 'abc',
    });
    expect(parseListBuckets(input({ 'max-buckets': '10000' })).maxBuckets).toBe(10000);
  });

  it('refuses max-buckets outside 1…10000 or not a number', () => {
    for (const v of ['0', '10001', '-1', '1.5', 'x', '']) {
      expect(errorOf(() => parseListBuckets(input({ 'max-buckets': v })))).toMatchObject({ code: 'InvalidArgument', argument: 'max-buckets' });
    }
  });
});
