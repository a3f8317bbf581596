import { describe, expect, it } from 'vitest';
import { parseCompleteMultipartUpload, parseUploadId } from '../../../../src/s3/routes/uploads.js';
import { errorOf, input } from './helpers.js';

describe('multipart upload id parameters (s3.md §3.0.8)', () => {
  it('passes uploadId on unchecked, \'\' when absent: a malformed id is the lookup\'s NoSuchUpload', () => {
    expect(parseUploadId(input())).toEqual({ uploadId: '' });
    expect(parseUploadId(input({ uploadId: 'not-an-id' }))).toEqual({ uploadId: 'not-an-id' });
  });

  it('CompleteMultipartUpload reads its write condition and upload id', () => {
    expect(parseCompleteMultipartUpload(input({ uploadId: 'u' }))).toEqual({ condition: undefined, uploadId: 'u' });
    expect(parseCompleteMultipartUpload(input({ uploadId: 'u' }, { 'if-none-match': '*' }))).toEqual({
      condition: { ifNoneMatchStar: true }, uploadId: 'u',
    });
  });

  it('CompleteMultipartUpload refuses a bad write condition whatever the upload id', () => {
    expect(errorOf(() => parseCompleteMultipartUpload(input({ uploadId: 'u' }, { 'if-none-match': '"etag"' })))).toMatchObject({ code: 'NotImplemented' });
  });
});
