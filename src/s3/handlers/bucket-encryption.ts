// Put/Get/DeleteBucketEncryption (AWS API reference): the bucket's default encryption of new
// objects: AES256 (SSE-S3) or aws:kms (SSE-KMS, with KMSMasterKeyID or the account's default key).
// As AWS, the key is not looked up here: a write under a key that does not exist fails.

import { bucketOf, type S3Context } from '../context.js';
import type { BucketEncryption } from '../object-attrs.js';
import { S3Error } from '../errors/errors.js';
import { send, sendXml } from '../respond.js';
import { readSmallBody } from '../request-body.js';
import { AES256 } from '../sse/sse.js';
import { AWS_KMS } from '../sse/kms.js';
import { parseXmlBody, xmlBooleanOf, xmlChildren, xmlTextOf } from '../xml-input.js';
import { doc, el } from '../xml.js';

const MAX_CONFIGURATION = 64 * 1024;

export async function handlePutBucketEncryption(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const xml = (await readSmallBody(ctx, MAX_CONFIGURATION)).toString('utf8');
  const rules = xmlChildren(parseXmlBody(xml, 'ServerSideEncryptionConfiguration', ['Rule']).Rule);
  if (rules.length !== 1) throw new S3Error('MalformedXML');
  const rule = rules[0]!;
  const byDefault = xmlChildren(rule.ApplyServerSideEncryptionByDefault)[0];
  const algorithm = byDefault && xmlTextOf(byDefault.SSEAlgorithm);
  if (algorithm === undefined) throw new S3Error('MalformedXML');
  if (algorithm === 'aws:kms:dsse') {
    throw new S3Error('NotImplemented', {}, { message: 'Dual-layer SSE-KMS (aws:kms:dsse) is not implemented; use aws:kms or AES256.' });
  }
  if (algorithm !== AES256 && algorithm !== AWS_KMS) throw new S3Error('MalformedXML');
  const keyId = byDefault.KMSMasterKeyID === undefined ? undefined : xmlTextOf(byDefault.KMSMasterKeyID)?.trim();
  if (byDefault.KMSMasterKeyID !== undefined && algorithm !== AWS_KMS) {
    throw new S3Error('InvalidArgument', {}, { message: 'a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse' });
  }
  const bucketKeyEnabled = xmlBooleanOf(rule.BucketKeyEnabled) ?? false;
  const encryption: BucketEncryption = { algorithm, bucketKeyEnabled };
  if (keyId) encryption.kmsMasterKeyId = keyId;
  await ctx.services.store.putBucket({ ...bucket, encryption });
  send(ctx, 200);
}

export async function handleGetBucketEncryption(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (!bucket.encryption) throw new S3Error('ServerSideEncryptionConfigurationNotFoundError', { BucketName: bucket.name });
  sendXml(
    ctx,
    doc(
      'ServerSideEncryptionConfiguration',
      `<Rule><ApplyServerSideEncryptionByDefault>${el('SSEAlgorithm', bucket.encryption.algorithm)}` +
        `${bucket.encryption.kmsMasterKeyId ? el('KMSMasterKeyID', bucket.encryption.kmsMasterKeyId) : ''}</ApplyServerSideEncryptionByDefault>` +
        `${el('BucketKeyEnabled', bucket.encryption.bucketKeyEnabled)}</Rule>`,
    ),
  );
}

export async function handleDeleteBucketEncryption(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (bucket.encryption) {
    const { encryption: _removed, ...rest } = bucket;
    await ctx.services.store.putBucket(rest);
  }
  send(ctx, 204);
}
