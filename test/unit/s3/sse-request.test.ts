// Which encryption a write asks for: the header rules of S3's SSE-S3 and SSE-KMS that are answered
// before any body is read (AWS PutObject: the KMS key id and context apply only with aws:kms).

import { describe, expect, it } from 'vitest';
import type { S3Context } from '../../../src/s3/context.js';
import { S3Error } from '../../../src/s3/errors/errors.js';
import type { S3Bucket } from '../../../src/s3/object-attrs.js';
import { requestedEncryption } from '../../../src/s3/sse/sse.js';

const bucket = { name: 'b' } as S3Bucket;

function asked(headers: Record<string, string>): unknown {
  const ctx = { headers, head: { secure: true }, services: {} } as unknown as S3Context;
  try {
    return requestedEncryption(ctx, bucket);
  } catch (e) {
    if (!(e instanceof S3Error)) throw e;
    return { code: e.code, status: e.status, message: e.message, extras: e.extras };
  }
}

const KMS_KEY = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const REFUSED = {
  code: 'InvalidArgument',
  status: 400,
  message: 'Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms',
  extras: { ArgumentName: 'x-amz-server-side-encryption' },
};

describe('requestedEncryption', () => {
  it('SSE-S3 with a KMS key id or context is 400 InvalidArgument, as S3 answers (the id is not dropped)', () => {
    expect(asked({ 'x-amz-server-side-encryption': 'AES256', 'x-amz-server-side-encryption-aws-kms-key-id': KMS_KEY })).toEqual(REFUSED);
    expect(asked({ 'x-amz-server-side-encryption': 'AES256', 'x-amz-server-side-encryption-context': 'e30=' })).toEqual(REFUSED);
    expect(asked({ 'x-amz-server-side-encryption-aws-kms-key-id': KMS_KEY })).toEqual(REFUSED);
  });

  it('SSE-S3 alone, and no header, are taken', () => {
    expect(asked({ 'x-amz-server-side-encryption': 'AES256' })).toEqual({ mode: 'SSE-S3' });
    expect(asked({})).toBeUndefined();
  });

  it('aws:kms takes the key id, the context (base64 JSON of strings) and the bucket key switch', () => {
    const context = Buffer.from(JSON.stringify({ team: 'a' })).toString('base64');
    expect(asked({
      'x-amz-server-side-encryption': 'aws:kms',
      'x-amz-server-side-encryption-aws-kms-key-id': KMS_KEY,
      'x-amz-server-side-encryption-context': context,
      'x-amz-server-side-encryption-bucket-key-enabled': 'true',
    })).toEqual({ mode: 'SSE-KMS', keyRef: KMS_KEY, context: { team: 'a' }, bucketKey: true });
    expect(asked({ 'x-amz-server-side-encryption': 'aws:kms' })).toEqual({ mode: 'SSE-KMS', bucketKey: false });
    for (const bad of ['not base64!', Buffer.from('[1]').toString('base64'), Buffer.from('{"n":1}').toString('base64'), Buffer.from('{').toString('base64')]) {
      expect(asked({ 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-context': bad }), bad).toMatchObject({ code: 'InvalidArgument', status: 400 });
    }
    expect(asked({ 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-bucket-key-enabled': 'yes' })).toMatchObject({ code: 'InvalidArgument' });
  });

  it('aws:kms with an SSE-C key is 400 InvalidArgument; aws:kms:dsse is 501; a bucket default of aws:kms applies', () => {
    expect(asked({
      'x-amz-server-side-encryption': 'aws:kms',
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key': 'pO3upElrwuEXSoFwCfnZPdSsmt/xWeFa0N9KgDijwVs=',
      'x-amz-server-side-encryption-customer-key-md5': 'DWygnHRtgiJ77HCm+1rvHw==',
    })).toMatchObject({ code: 'InvalidArgument', status: 400 });
    expect(asked({ 'x-amz-server-side-encryption': 'aws:kms:dsse' })).toMatchObject({ code: 'NotImplemented', status: 501 });
    const kmsBucket = { name: 'b', encryption: { algorithm: 'aws:kms', bucketKeyEnabled: true, kmsMasterKeyId: 'alias/x' } } as S3Bucket;
    const ctx = { headers: {}, head: { secure: true }, services: {} } as unknown as S3Context;
    expect(requestedEncryption(ctx, kmsBucket)).toEqual({ mode: 'SSE-KMS', keyRef: 'alias/x', bucketKey: true });
    // a request's AES256 wins over the bucket's default
    expect(requestedEncryption({ ...ctx, headers: { 'x-amz-server-side-encryption': 'AES256' } }, kmsBucket)).toEqual({ mode: 'SSE-S3' });
  });
});
