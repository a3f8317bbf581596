import { describe, expect, it } from 'vitest';
import { evaluateReadConditions, normalizeEtag } from '../../../src/s3/conditionals.js';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { codeOf } from './helpers/code-of.js';
import { parseRange } from '../../../src/s3/range.js';


describe('parseRange (s3.md §3.0.6)', () => {
  it.each([
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-200', 100, { start: 90, end: 99 }],
    ['bytes=10-', 100, { start: 10, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-1000', 100, { start: 0, end: 99 }],
    ['bytes=5-2', 100, undefined],
    ['bytes=x', 100, undefined],
    ['items=0-1', 100, undefined],
    ['bytes=0-1,5-6', 100, undefined],
    [undefined, 100, undefined],
  ])('%s of %d', (h, size, want) => expect(parseRange(h, size)).toEqual(want));

  it('answers 416 InvalidRange with Content-Range for unsatisfiable ranges', () => {
    for (const [h, size] of [['bytes=100-', 100], ['bytes=0-', 0], ['bytes=-0', 100], ['bytes=-5', 0]] as const) {
      try {
        parseRange(h, size);
        expect.unreachable();
      } catch (e) {
        expect((e as S3Error).code).toBe('InvalidRange');
        expect((e as S3Error).status).toBe(416);
        expect((e as S3Error).headers['Content-Range']).toBe(`bytes */${size}`);
      }
    }
  });
});

describe('evaluateReadConditions (s3.md §3.0.5)', () => {
  const etag = '9b2cf535f27731c974343645a3985328';
  const lm = Date.parse('Wed, 12 Oct 2022 17:50:00 GMT') + 400; // sub-second part is ignored
  const now = Date.parse('Wed, 12 Oct 2025 00:00:00 GMT');
  const before = 'Tue, 11 Oct 2022 00:00:00 GMT';
  const same = 'Wed, 12 Oct 2022 17:50:00 GMT';
  const after = 'Thu, 13 Oct 2022 00:00:00 GMT';
  const run = (h: Record<string, string>) => evaluateReadConditions(h, etag, lm, now);

  it('normalizes ETags', () => {
    expect(normalizeEtag(' W/"ABC" ')).toBe('abc');
  });
  it('If-Match true wins over a false If-Unmodified-Since', () => {
    expect(run({ 'if-match': `"${etag}"`, 'if-unmodified-since': before })).toBe('ok');
  });
  it('If-Match false → 412, * matches', () => {
    expect(codeOf(() => run({ 'if-match': '"other"' }))).toBe('PreconditionFailed');
    expect(run({ 'if-match': '*' })).toBe('ok');
    expect(run({ 'if-match': `"x", "${etag}"` })).toBe('ok');
  });
  it('If-Unmodified-Since alone', () => {
    expect(codeOf(() => run({ 'if-unmodified-since': before }))).toBe('PreconditionFailed');
    expect(run({ 'if-unmodified-since': same })).toBe('ok');
  });
  it('If-None-Match false + If-Modified-Since true → 304', () => {
    expect(run({ 'if-none-match': `"${etag}"`, 'if-modified-since': before })).toBe('not-modified');
    expect(run({ 'if-none-match': '"other"', 'if-modified-since': after })).toBe('ok');
  });
  it('If-Modified-Since alone compares whole seconds and ignores future or bad dates', () => {
    expect(run({ 'if-modified-since': same })).toBe('not-modified');
    expect(run({ 'if-modified-since': before })).toBe('ok');
    expect(run({ 'if-modified-since': 'Wed, 12 Oct 2099 00:00:00 GMT' })).toBe('ok');
    expect(run({ 'if-modified-since': 'garbage' })).toBe('ok');
  });
});
