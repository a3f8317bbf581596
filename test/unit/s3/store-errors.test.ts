// Every engine outcome maps to one S3 error (s3.md §5), in the one place that does it.

import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../../src/s3/errors/errors.js';
import { s3ErrorOfStore } from '../../../src/s3/store-errors.js';
import { renderError } from '../../../src/s3/xml.js';
import { StoreError } from '../../../src/store/errors.js';

const resource = { style: 'path' as const, bucket: 'b', key: 'k' };

describe('engine outcomes → S3 errors', () => {
  const cases: Array<[StoreError, string, number]> = [
    [new StoreError('namespace-missing', 'x', 'bucket'), 'NoSuchBucket', 404],
    [new StoreError('not-found', 'x', 'key'), 'NoSuchKey', 404],
    [new StoreError('not-found', 'x', 'version', { versionId: 'v' }), 'NoSuchVersion', 404],
    [new StoreError('not-found', 'x', 'upload', { uploadId: 'u' }), 'NoSuchUpload', 404],
    [new StoreError('not-found', 'x', 'part', { partNumber: 3 }), 'InvalidPart', 400],
    [new StoreError('condition-failed', 'x', 'key', { condition: 'If-None-Match' }), 'PreconditionFailed', 412],
    [new StoreError('condition-failed', 'x', 'part', { partNumber: 2 }), 'InvalidPart', 400],
    [new StoreError('invalid-name', 'x', 'bucket'), 'InvalidBucketName', 400],
    [new StoreError('invalid-name', 'x', 'key', { size: 2000, max: 1024 }), 'KeyTooLongError', 400],
    [new StoreError('out-of-space', 'x'), 'XTuskStorageFull', 507],
    [new StoreError('corrupt', 'x'), 'XTuskObjectDamaged', 500],
  ];
  it.each(cases)('%s → %s', (e, code, status) => {
    const s3 = s3ErrorOfStore(e, resource);
    expect(s3.code).toBe(code);
    expect(s3.status).toBe(status);
    expect(ERROR_TABLE[s3.code][0]).toBe(status);
  });

  it('carries what the outcome names into the error body', () => {
    expect(s3ErrorOfStore(new StoreError('condition-failed', 'x', 'key', { condition: 'If-None-Match' }), resource).extras).toEqual({
      Condition: 'If-None-Match',
    });
    expect(s3ErrorOfStore(new StoreError('not-found', 'x', 'key'), resource).extras).toEqual({ Key: 'k' });
    expect(s3ErrorOfStore(new StoreError('namespace-missing', 'x', 'bucket'), resource).extras).toEqual({ BucketName: 'b' });
  });

  it('names damaged stored bytes in a header too, for HEAD answers, which have no body', () => {
    const e = s3ErrorOfStore(new StoreError('corrupt', 'x'), resource);
    expect(e.extras).toEqual({ Key: 'k' });
    expect(e.headers).toEqual({ 'x-tusk-error-code': 'XTuskObjectDamaged' });
    expect(renderError(e, 'REQ1', 'HOST')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>XTuskObjectDamaged</Code><Message>The stored bytes of this object are damaged ' +
        '(missing, or failing their checksum); it cannot be read.</Message><Key>k</Key><RequestId>REQ1</RequestId><HostId>HOST</HostId></Error>',
    );
  });
});
