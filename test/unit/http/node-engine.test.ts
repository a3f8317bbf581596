// The node:http engine's protocol details: which refusal each of Node's parser errors becomes (and
// so which S3 error answers it), and how header bytes above 0x7F are read and written.

import { describe, expect, it } from 'vitest';
import { FRAMING_REASONS } from '../../../src/http/framing.js';
import { refusalSummary, type RequestRefusal } from '../../../src/http/listener.js';
import { refusalOf } from '../../../src/http/node-engine.js';
import { headerText, sendableValue } from '../../../src/http/node-exchange.js';
import { refusalError } from '../../../src/s3/request-framing.js';

/** A parser error as Node's http server hands it to 'clientError'. */
function parserError(code: string, raw = '', bytesParsed?: number, reason?: string): Error & { code: string; rawPacket: Buffer; bytesParsed?: number; reason?: string } {
  return Object.assign(new Error(code), { code, rawPacket: Buffer.from(raw, 'latin1'), bytesParsed, reason });
}

describe('refusalOf', () => {
  const cases: Array<[string, ReturnType<typeof parserError>, RequestRefusal | undefined, string | undefined]> = [
    ['a head over the limit', parserError('HPE_HEADER_OVERFLOW'), { kind: 'head-too-large' }, '400 RequestHeaderSectionTooLarge'],
    ['a head too slow', parserError('ERR_HTTP_REQUEST_TIMEOUT'), { kind: 'timeout' }, '400 RequestTimeout'],
    [
      'a negative Content-Length',
      parserError('HPE_INVALID_CONTENT_LENGTH', 'PUT /b/k HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n', undefined, 'Invalid character in Content-Length'),
      { kind: 'framing', problem: { status: 400, header: 'Content-Length', value: '-1', reason: FRAMING_REASONS.notDecimal } },
      '400 InvalidArgument',
    ],
    [
      'two Content-Lengths',
      parserError('HPE_UNEXPECTED_CONTENT_LENGTH', 'PUT /b/k HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\ncontent-length : 2\r\n\r\n', undefined, 'Duplicate Content-Length'),
      { kind: 'framing', problem: { status: 400, header: 'Content-Length', value: '1,2', reason: FRAMING_REASONS.notDecimal } },
      '400 InvalidArgument',
    ],
    [
      'Transfer-Encoding beside Content-Length',
      parserError('HPE_INVALID_TRANSFER_ENCODING', 'PUT /b/k HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n', undefined, "Transfer-Encoding can't be present with Content-Length"),
      { kind: 'framing', problem: { status: 400, header: 'Transfer-Encoding', value: 'chunked', reason: FRAMING_REASONS.bothHeaders } },
      '400 InvalidArgument',
    ],
    ['an unknown method', parserError('HPE_INVALID_METHOD', 'BREW /b HTTP/1.1\r\nHost: h\r\n\r\n', 1), { kind: 'method-not-implemented', method: 'BREW' }, '501 NotImplemented'],
    [
      'bytes after a body, read as a request',
      parserError('HPE_INVALID_METHOD', 'GET /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nabFOO / HTTP/1.1\r\n', 49),
      { kind: 'malformed', detail: 'HPE_INVALID_METHOD' },
      '400 BadRequest',
    ],
    ['a header name that is not a token', parserError('HPE_INVALID_HEADER_TOKEN'), { kind: 'malformed', detail: 'HPE_INVALID_HEADER_TOKEN' }, '400 BadRequest'],
    ['a reset connection', parserError('ECONNRESET'), undefined, undefined],
  ];
  it.each(cases)('%s', (_, err, refusal, s3) => {
    const got = refusalOf(err);
    expect(got).toEqual(refusal);
    if (got) {
      const e = refusalError(got);
      expect(`${e.status} ${e.code}`).toBe(s3);
      expect(e.close).toBe(true);
    }
  });

  it('gives the faces that are not S3 plain HTTP statuses', () => {
    const statuses = (['head-too-large', 'timeout', 'missing-host'] as const).map((kind) => refusalSummary({ kind }).status);
    expect(statuses).toEqual([431, 408, 400]);
    expect(refusalSummary({ kind: 'method-not-implemented', method: 'BREW' })).toEqual({ status: 501, detail: 'the BREW method is not implemented' });
  });
});

describe('header bytes above 0x7F', () => {
  const latin1 = (bytes: number[]): string => Buffer.from(bytes).toString('latin1');

  it('reads bytes that form UTF-8 as UTF-8, and others as Latin-1', () => {
    expect(headerText('plain ascii')).toBe('plain ascii');
    expect(headerText(latin1([0x63, 0x61, 0x66, 0xc3, 0xa9]))).toBe('café');
    expect(headerText(latin1([0x63, 0x61, 0x66, 0xe9]))).toBe('café');
    expect(headerText(latin1([0xe6, 0x97, 0xa5, 0xf0, 0x9f, 0x90, 0x98]))).toBe('日🐘');
  });

  it('writes characters up to U+00FF as one byte each, a value with others as UTF-8, control characters as spaces', () => {
    const bytes = (v: string): number[] => [...Buffer.from(sendableValue(v), 'latin1')];
    expect(bytes('café')).toEqual([0x63, 0x61, 0x66, 0xe9]);
    expect(bytes('é日')).toEqual([0xc3, 0xa9, 0xe6, 0x97, 0xa5]);
    expect(sendableValue('a\r\nSet-Cookie: x')).toBe('a  Set-Cookie: x');
    expect(sendableValue('tab\tkept')).toBe('tab\tkept');
  });
});
