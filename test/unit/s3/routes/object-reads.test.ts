import { describe, expect, it } from 'vitest';
import { parseGetObject } from '../../../../src/s3/routes/object-reads.js';
import { errorOf, input } from './helpers.js';

const VERSION = 'a'.repeat(32);

describe('GetObject / HeadObject parameters (s3.md §3.14–3.15)', () => {
  it('defaults: the latest version, whole, no overrides, no checksum', () => {
    expect(parseGetObject(input())).toEqual({
      versionId: undefined, partNumber: undefined, range: undefined, overrides: [], checksumMode: false,
    });
  });

  it('reads each parameter; overrides in S3\'s order whatever the query\'s', () => {
    const p = parseGetObject(input(
      { versionId: VERSION, partNumber: '3', 'response-expires': 'e', 'response-content-type': 't' },
      { 'x-amz-checksum-mode': 'enabled' },
    ));
    expect(p).toEqual({
      versionId: VERSION, partNumber: 3, range: undefined, checksumMode: true,
      overrides: [
        { param: 'response-content-type', header: 'Content-Type', value: 't' },
        { param: 'response-expires', header: 'Expires', value: 'e' },
      ],
    });
    expect(parseGetObject(input({}, { range: 'bytes=0-1', 'x-amz-version-id': 'null' }))).toMatchObject({ range: 'bytes=0-1', versionId: 'null' });
  });

  it('refuses an unknown response-* name first, then a bad version id, then a bad partNumber, then partNumber with Range', () => {
    expect(errorOf(() => parseGetObject(input({ 'response-x': 'v', versionId: 'bad', partNumber: '0' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'response-x', message: expect.stringContaining('is not in the set of overridable response headers'),
    });
    expect(errorOf(() => parseGetObject(input({ versionId: 'bad', partNumber: '0' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'versionId', message: 'Invalid version id specified',
    });
    expect(errorOf(() => parseGetObject(input({ versionId: VERSION }, { 'x-amz-version-id': 'b'.repeat(32) })))).toMatchObject({
      code: 'InvalidArgument', argument: 'versionId', message: 'The versionId query parameter and the x-amz-version-id header do not match',
    });
    expect(errorOf(() => parseGetObject(input({ partNumber: '10001' }, { range: 'bytes=0-1' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'partNumber',
    });
    expect(errorOf(() => parseGetObject(input({ partNumber: '1' }, { range: 'bytes=0-1' })))).toMatchObject({
      code: 'InvalidRequest', message: 'Cannot specify both Range header and partNumber query parameter',
    });
  });

  it('leaves override values unchecked: control characters are refused only once the object is found', () => {
    expect(parseGetObject(input({ 'response-content-type': 'a\r\nb' })).overrides).toHaveLength(1);
  });
});
