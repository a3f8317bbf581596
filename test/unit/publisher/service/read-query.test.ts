import { describe, expect, it } from 'vitest';
import { PublisherError, renderError } from '../../../../src/publisher/service/errors.js';
import { readContentType } from '../../../../src/publisher/service/read-routes.js';
import { parseByteRangeQuery, parseReadQuery } from '../../../../src/publisher/service/read-query.js';

function failure(fn: () => unknown): { code: string; status: number; reason: string } {
  try {
    fn();
  } catch (e) {
    const rendered = renderError(e);
    return { code: (e as PublisherError).code, status: rendered.httpStatus, reason: JSON.parse(rendered.body).error.details[0].reason };
  }
  throw new Error('expected a PublisherError');
}

describe('aggregator queries (walrus.md §11)', () => {
  it('accepts either consistency switch, refuses both, bad booleans and unknown parameters', () => {
    expect(parseReadQuery('')).toBe('default');
    expect(parseReadQuery('strict_consistency_check=true')).toBe('strict');
    expect(parseReadQuery('strict_consistency_check=false')).toBe('default');
    // Tusk verifies what Walrus's client would have verified on fetching: the default check
    expect(parseReadQuery('skip_consistency_check=true')).toBe('default');
    expect(failure(() => parseReadQuery('strict_consistency_check=true&cache=123'))).toEqual({ code: 'MALFORMED_REQUEST', status: 400, reason: 'MALFORMED_REQUEST' });
    expect(parseReadQuery('skip_consistency_check=true&strict_consistency_check=false')).toBe('default');
    expect(failure(() => parseReadQuery('strict_consistency_check=true&skip_consistency_check=true'))).toEqual({
      code: 'MALFORMED_REQUEST',
      status: 400,
      reason: 'MALFORMED_REQUEST',
    });
    expect(failure(() => parseReadQuery('strict_consistency_check=yes')).status).toBe(400);
  });

  it('byte-range: start and length required, length above 0, no overflow; errors are 400 INVALID_BYTE_RANGE', () => {
    expect(parseByteRangeQuery('start=0&length=1')).toEqual({ start: 0, length: 1 });
    expect(parseByteRangeQuery('length=100&start=900000')).toEqual({ start: 900000, length: 100 });
    expect(failure(() => parseByteRangeQuery('start=0&length=1&strict_consistency_check=true')).status).toBe(400);
    for (const bad of ['', 'start=1', 'length=1', 'start=-1&length=1', 'start=1&length=0', 'start=1.5&length=2', 'start=a&length=1', `start=${2 ** 53}&length=1`, `start=${2 ** 52}&length=${2 ** 52}`]) {
      expect(failure(() => parseByteRangeQuery(bad)), bad).toEqual({ code: 'INVALID_BYTE_RANGE_QUERY', status: 400, reason: 'INVALID_BYTE_RANGE' });
    }
  });

  it('answers with the type the request names in Accept, else its Content-Type, else bytes', () => {
    expect(readContentType({})).toBe('application/octet-stream');
    expect(readContentType({ accept: '*/*' })).toBe('application/octet-stream');
    expect(readContentType({ accept: 'image/*' })).toBe('application/octet-stream');
    expect(readContentType({ accept: 'image/png' })).toBe('image/png');
    expect(readContentType({ accept: '*/*', 'content-type': 'text/plain' })).toBe('text/plain');
    expect(readContentType({ accept: 'application/json', 'content-type': 'text/plain' })).toBe('application/json');
  });
});
