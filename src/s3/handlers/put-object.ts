// PutObject (s3.md §3.13) as a pipeline with a fixed order (style.md §6): validate headers and
// limits → authorize (dispatch) → decode the body (raw or aws-chunked) → one fused digest pass and
// the segment write, chunk by chunk → verify every declared digest and trailer → conditional index
// commit → answer. Any failure or client abort leaves no index entry.

import { noticeField, requestNotice } from './notification.js';
import type { S3Operation } from '../operations.js';
import { receiveBody } from '../body-pipeline.js';
import { bucketOf, type S3Context } from '../context.js';
import { headerNameOf, planChecksums, type ChecksumPlan } from '../checksums.js';
import { expirationHeader, lifecycleRulesOf } from '../lifecycle/rules.js';
import { S3Error } from '../errors/errors.js';
import { objectAttrsOf } from './object-input.js';
import { writeCondition } from '../routes/object-writes.js';
import { hasLockHeaders } from '../object-lock.js';
import type { ChecksumAlgorithm, S3Bucket, S3Object, S3ObjectAttrs, StoredChecksum } from '../object-attrs.js';
import { sealedEtag, sealedSink, sealingForWrite } from '../sse/sse.js';
import { send } from '../respond.js';
import { openRequestBody, type RequestBody } from '../request-body.js';
import type { WriteCondition } from '../../store/types.js';
import { WALRUS_STORAGE_CLASS, WalrusBlobSink, walrusHeaders, walrusPatchLabel } from '../walrus-objects.js';

export const MAX_PUT_BYTES = 5 * 1024 ** 3;

/** The event an object stored by each operation announces (AWS *Supported event types*). */
const CREATED_BY: Partial<Record<S3Operation, string>> = {
  PutObject: 'ObjectCreated:Put',
  PostObject: 'ObjectCreated:Post',
  CopyObject: 'ObjectCreated:Copy',
};

/**
 * Streams `body` into a new version of `key` with `attrs` (PutObject, the POST form upload):
 * nothing is stored unless every digest holds and the engine's commit (with `condition`) does.
 * Digests are of the plaintext; the store gets sealed blocks when the object is encrypted (SSE).
 */
export async function storeObject(
  ctx: S3Context,
  bucket: S3Bucket,
  key: string,
  body: RequestBody,
  attrs: S3ObjectAttrs,
  plan: ChecksumPlan,
  condition?: WriteCondition,
  /** the checksum computed when the client sends none (default: the store's default algorithm) */
  fallback?: ChecksumAlgorithm,
): Promise<{ record: S3Object; checksum: StoredChecksum; responseHeaders: Array<readonly [string, string]> }> {
  await ctx.services.quotas?.checkWrite(bucket.name, key, body.length);
  const sealing = await sealingForWrite(ctx, bucket, key, body.length);
  // storage class WALRUS: the bytes go to blobs, each certified before the commit, and the engine
  // commits an empty body whose attrs say where they are (a body failing its digests leaves the
  // blobs already stored to lapse)
  const blobs = attrs.storageClass === WALRUS_STORAGE_CLASS ? new WalrusBlobSink(ctx.services.walrus!) : undefined;
  if (blobs && sealing) throw new S3Error('NotImplemented', {}, { message: 'Encryption at rest is not implemented for storage class WALRUS yet' });
  const writer = ctx.services.store.beginWrite(blobs ? 0 : sealing ? sealing.storedLength : body.length);
  const sealed = sealedSink(writer, sealing);
  let committed = false;
  try {
    const { digests, checksum } = await receiveBody(ctx, body, plan, blobs ?? sealed.sink, fallback);
    await sealed.end();
    const etag = sealedEtag(sealing, digests.md5.toString('hex'));
    const lastModified = Date.now();
    const walrus = await blobs?.finish(walrusPatchLabel(bucket.name, key, { ...attrs, checksum }, etag, lastModified));
    const stored: S3ObjectAttrs = { ...attrs, checksum, ...(sealing ? { encryption: sealing.encryption } : {}), ...(walrus ? { walrus } : {}) };
    // the write condition is checked once, in the engine's commit transaction (style.md §7)
    const notice = requestNotice(ctx, bucket, CREATED_BY[ctx.route.op] ?? 'ObjectCreated:Put', key);
    const record = await writer.commit(bucket.name, key, { etag, lastModified, attrs: stored, ...noticeField(notice) }, condition);
    committed = true;
    ctx.services.quotas?.written(bucket.name, body.length);
    return { record, checksum, responseHeaders: [...(sealing?.responseHeaders ?? []), ...walrusHeaders(record)] };
  } finally {
    if (!committed) await writer.abort();
  }
}

export async function handlePutObject(ctx: S3Context): Promise<void> {
  const h = ctx.headers;
  const body = openRequestBody(ctx, MAX_PUT_BYTES);
  const condition = writeCondition(h);
  const plan = planChecksums(h, body.trailer);
  const bucket = bucketOf(ctx);
  const attrs = objectAttrsOf(ctx, bucket, h, body.contentEncoding);
  // as S3: a body that gets a retention or legal hold must come with a digest to check it by
  if ((attrs.retention || hasLockHeaders(h)) && !plan.contentMd5 && !plan.algorithm) {
    throw new S3Error('InvalidRequest', {}, { message: 'Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters' });
  }
  const { record, checksum, responseHeaders } = await storeObject(ctx, bucket, ctx.resource.key!, body, attrs, plan, condition);
  const out: Array<readonly [string, string]> = [['ETag', `"${record.etag}"`], ...responseHeaders];
  if (record.versionId !== 'null') out.push(['x-amz-version-id', record.versionId]);
  const expiration = expirationHeader(lifecycleRulesOf(bucket), record, ctx.services.config.lifecycle.dayMs);
  if (expiration) out.push(['x-amz-expiration', expiration]);
  // echo the checksum when the client supplied or requested one (s3.md §3.0.2)
  if (plan.algorithm) {
    out.push([headerNameOf(checksum.algorithm), checksum.value], ['x-amz-checksum-type', 'FULL_OBJECT']);
  }
  send(ctx, 200, out);
}
