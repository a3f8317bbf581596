import { describe, expect, it } from 'vitest';
import { asksToClose, framingProblem } from '../../src/http/framing.js';
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
    expect(framingProblem(head([['content-length', '']]))).toEqual({
      status: 400, header: 'Content-Length', value: '', reason: 'Content-Length must be a non-negative decimal number of bytes',
    });
  });

  it('400 for repeated Content-Length fields, equal or not, and a list in one field (RFC 9110 §8.6 allows refusing)', () => {
    for (const fields of [[['content-length', '0'], ['content-length', '70']], [['content-length', '5'], ['content-length', '5']], [['content-length', '5, 5']]]) {
      expect(framingProblem(head(fields as Array<[string, string]>))?.status, JSON.stringify(fields)).toBe(400);
    }
  });

  it('400 for two Transfer-Encoding fields that do not end in one chunked', () => {
    for (const second of ['identity', 'chunked']) {
      expect(framingProblem(head([['transfer-encoding', 'chunked'], ['transfer-encoding', second]]))?.status, second).toBe(400);
    }
  });

  it('400 for Content-Length beside Transfer-Encoding: chunked (RFC 9112 §6.1), naming Content-Length', () => {
    expect(framingProblem(head([['content-length', '5'], ['transfer-encoding', 'chunked']]))).toEqual({
      status: 400, header: 'Content-Length', value: '5', reason: 'Content-Length and Transfer-Encoding must not be sent together',
    });
    // a bad coding is named first
    expect(framingProblem(head([['content-length', '5'], ['transfer-encoding', 'identity']]))?.header).toBe('Transfer-Encoding');
  });
});

describe('Connection: close (RFC 9112 §9.6)', () => {
  it('is an option among others, in any case', () => {
    for (const v of ['close', 'Close', 'keep-alive, close', ' CLOSE ']) expect(asksToClose(head([['connection', v]])), v).toBe(true);
    for (const v of ['keep-alive', 'closed', 'x-close']) expect(asksToClose(head([['connection', v]])), v).toBe(false);
    expect(asksToClose(head([]))).toBe(false);
  });
});
