import { describe, expect, it } from 'vitest';
import { parseCopyObject, parseUploadPart, parseUploadPartCopy, writeCondition } from '../../../../src/s3/routes/object-writes.js';
import { errorOf, input } from './helpers.js';

const BODY = 'The request included a body. Requests of this type must not include a non-empty body.';

describe('UploadPart / UploadPartCopy parameters (s3.md §3.21–3.22)', () => {
  it('reads partNumber 1…10000 and the upload id (unchecked: a malformed one is the lookup\'s NoSuchUpload)', () => {
    expect(parseUploadPart(input({ partNumber: '1' }))).toEqual({ partNumber: 1, uploadId: '' });
    expect(parseUploadPartCopy(input({ partNumber: '10000', uploadId: 'u' }, { 'content-length': '0' }))).toEqual({ partNumber: 10000, uploadId: 'u' });
  });

  it('refuses a part number out of range or not a number', () => {
    for (const v of ['0', '10001', '-1', 'x', '']) {
      expect(errorOf(() => parseUploadPart(input({ partNumber: v })))).toMatchObject({ code: 'InvalidArgument', argument: 'partNumber' });
    }
  });

  it('a copy refuses a body (declared or decoded length) before a bad part number', () => {
    expect(errorOf(() => parseUploadPartCopy(input({ partNumber: '0' }, { 'content-length': '1' })))).toMatchObject({ code: 'InvalidRequest', message: BODY });
    expect(errorOf(() => parseUploadPartCopy(input({ partNumber: '1' }, { 'x-amz-decoded-content-length': '3', 'content-length': '0' })))).toMatchObject({
      code: 'InvalidRequest', message: BODY,
    });
  });
});

describe('CopyObject parameters (s3.md §3.18)', () => {
  it('defaults: COPY both, no checksum, no condition', () => {
    expect(parseCopyObject(input())).toEqual({ metadata: 'COPY', tagging: 'COPY', checksumAlgorithm: undefined, condition: undefined });
  });

  it('reads directives and the checksum algorithm in any case, and the write condition', () => {
    expect(parseCopyObject(input({}, {
      'x-amz-metadata-directive': ' replace', 'x-amz-tagging-directive': 'Copy', 'x-amz-checksum-algorithm': 'crc32c', 'if-none-match': '*', 'if-match': '"abc"',
    }))).toEqual({ metadata: 'REPLACE', tagging: 'COPY', checksumAlgorithm: 'CRC32C', condition: { ifNoneMatchStar: true, ifMatch: 'abc' } });
  });

  it('refuses, in order: a body, a bad metadata directive, a bad tagging directive, a bad algorithm, If-None-Match other than *', () => {
    const all = {
      'content-length': '1', 'x-amz-metadata-directive': 'X', 'x-amz-tagging-directive': 'Y', 'x-amz-checksum-algorithm': 'MD5', 'if-none-match': '"e"',
    };
    const steps: Array<[string, object]> = [
      ['content-length', { code: 'InvalidRequest', message: BODY }],
      ['x-amz-metadata-directive', { code: 'InvalidArgument', argument: 'x-amz-metadata-directive', message: 'Unknown metadata directive.' }],
      ['x-amz-tagging-directive', { code: 'InvalidArgument', argument: 'x-amz-tagging-directive', message: 'Unknown tagging directive.' }],
      ['x-amz-checksum-algorithm', { code: 'InvalidRequest', message: 'Value for x-amz-checksum-algorithm header is invalid.' }],
      ['if-none-match', { code: 'NotImplemented' }],
    ];
    const headers: Record<string, string> = { ...all };
    for (const [header, expected] of steps) {
      expect(errorOf(() => parseCopyObject(input({}, headers)))).toMatchObject(expected);
      delete headers[header];
    }
    expect(errorOf(() => parseCopyObject(input({}, headers)))).toBeUndefined();
  });

  it('a write condition: none without either header', () => {
    expect(writeCondition({})).toBeUndefined();
    expect(writeCondition({ 'if-match': 'W/"x"' })).toMatchObject({ ifMatch: expect.any(String) });
  });
});
