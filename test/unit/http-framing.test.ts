import { describe, expect, it } from 'vitest';
import { framingProblem } from '../../src/http/framing.js';
import { joinHeaders } from '../../src/http/request-head.js';

const head = (headers: Array<[string, string]>) => ({ method: 'PUT', rawPath: '/b/k', rawQuery: '', headerList: headers, headers: joinHeaders(headers) });
const status = (name: string, value: string) => framingProblem(head([[name, value]]))?.status;

describe('request framing (RFC 9112 §6)', () => {
  it('accepts chunked (any case) and decimal lengths', () => {
    for (const v of ['chunked', 'Chunked', ' CHUNKED ']) expect(status('transfer-encoding', v)).toBeUndefined();
    for (const v of ['0', '17', ' 5 ']) expect(status('content-length', v)).toBeUndefined();
    expect(framingProblem(head([]))).toBeUndefined();
  });

  it('501 for codings it does not implement, ending in chunked', () => {
    for (const v of ['gzip, chunked', 'deflate,chunked', 'x-custom , chunked']) expect(status('transfer-encoding', v)).toBe(501);
  });

  it('400 for malformed codings or chunked not last (the body length is unknown)', () => {
    for (const v of ['gzip', 'chunked, gzip', '', ',chunked', 'chunked,', 'chunked;x=1', 'chunked, chunked', 'ch unked', 'chunked\u00e9']) {
      expect(status('transfer-encoding', v), v).toBe(400);
    }
  });

  it('400 for an empty, negative or non-decimal Content-Length', () => {
    for (const v of ['', ' ', '-1', '1.5', 'abc', '1,1', '0x10']) expect(status('content-length', v), v).toBe(400);
    expect(framingProblem(head([['content-length', '']]))).toEqual({ status: 400, header: 'Content-Length', value: '' });
  });
});
