// UploadPart and UploadPartCopy (s3.md §3.21–3.22): a part body streamed like PutObject's (every
// payload mode and checksum), or bytes of a stored object written anew as a part; either replaces
// an earlier part of that number.

import { receiveBody } from '../body-pipeline.js';
import { DEFAULT_CHECKSUM, headerNameOf, planChecksums, type ChecksumPlan } from '../checksums.js';
import { bucketOf, type S3Context } from '../context.js';
import { copySourceRange, openCopySourceBody, resolveCopySource } from './copy-source.js';
import { S3Error } from '../errors/errors.js';
import type { ChecksumAlgorithm, S3Bucket, S3ObjectAttrs, S3PartAttrs, StoredChecksum } from '../object-attrs.js';
import { objectSize, sealedEtag, sealedSegmentOf, sealedSink, sealingForPart } from '../sse/sse.js';
import { openRequestBody, type RequestBody } from '../request-body.js';
import { send, sendXml } from '../respond.js';
import { doc, el, etagEl, isoSeconds } from '../xml.js';
import { uploadOf } from './multipart.js';
import type { Upload } from '../../store/types.js';
import { MAX_PUT_BYTES } from './put-object.js';
import type { UploadPartParams } from '../routes/object-writes.js';

/** The checksum a part of this upload gets when the client sends none (s3.md §3.21 [DEV lenient]). */
function partAlgorithm(upload: Upload<S3ObjectAttrs>): ChecksumAlgorithm {
  return upload.attrs.uploadChecksum?.algorithm ?? DEFAULT_CHECKSUM;
}

export async function handleUploadPart(ctx: S3Context, { partNumber, uploadId }: UploadPartParams): Promise<void> {
  const body = openRequestBody(ctx, MAX_PUT_BYTES);
  const plan = planChecksums(ctx.headers, body.trailer);
  const bucket = bucketOf(ctx);
  const upload = uploadOf(ctx, bucket, uploadId);
  const expected = upload.attrs.uploadChecksum?.algorithm;
  if (expected !== undefined && plan.algorithm !== undefined && plan.algorithm !== expected) {
    throw new S3Error('InvalidRequest', {}, {
      message: `Checksum Type mismatch occurred, expected checksum Type: ${expected.toLowerCase()}, actual checksum Type: ${plan.algorithm.toLowerCase()}`,
    });
  }
  const { etag, checksum, responseHeaders } = await storePart(ctx, bucket, upload, partNumber, body, plan);
  const headers: Array<readonly [string, string]> = [['ETag', `"${etag}"`], ...responseHeaders];
  if (plan.algorithm || expected) headers.push([headerNameOf(checksum.algorithm), checksum.value]);
  send(ctx, 200, headers);
}

/**
 * Streams `body` into part `partNumber` of `upload` (UploadPart, UploadPartCopy): nothing is kept
 * unless every digest holds and the commit does. Digests are of the plaintext; a part of an
 * encrypted upload is sealed as its own segment under the upload's data key.
 */
async function storePart(
  ctx: S3Context,
  bucket: S3Bucket,
  upload: Upload<S3ObjectAttrs>,
  partNumber: number,
  body: RequestBody,
  plan: ChecksumPlan,
): Promise<{ etag: string; checksum: StoredChecksum; lastModified: number; responseHeaders: ReadonlyArray<readonly [string, string]> }> {
  // a part is checked as the object it will become; Complete checks the whole (its bytes count then)
  await ctx.services.quotas?.checkWrite(bucket.name, upload.key, body.length);
  const sealing = await sealingForPart(ctx, upload.attrs, body.length);
  const writer = ctx.services.store.beginWrite(sealing ? sealing.storedLength : body.length);
  const sealed = sealedSink(writer, sealing);
  let committed = false;
  try {
    const { digests, checksum } = await receiveBody(ctx, body, plan, sealed.sink, partAlgorithm(upload));
    await sealed.end();
    const etag = sealedEtag(sealing, digests.md5.toString('hex'));
    const attrs: S3PartAttrs = sealing ? { checksum, sealed: sealedSegmentOf(sealing) } : { checksum };
    const lastModified = Date.now();
    await writer.commitPart(bucket.name, upload.key, upload.uploadId, partNumber, { etag, lastModified, attrs });
    committed = true;
    return { etag, checksum, lastModified, responseHeaders: sealing?.responseHeaders ?? [] };
  } finally {
    if (!committed) await writer.abort();
  }
}

export function renderCopyPartResult(lastModified: number, etag: string, checksum: StoredChecksum | undefined): string {
  let xml = el('LastModified', isoSeconds(lastModified)) + etagEl(etag);
  if (checksum) xml += el(`Checksum${checksum.algorithm}`, checksum.value);
  return doc('CopyPartResult', xml);
}

export async function handleUploadPartCopy(ctx: S3Context, { partNumber, uploadId }: UploadPartParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const upload = uploadOf(ctx, bucket, uploadId);
  const source = resolveCopySource(ctx);
  // ranges are of the source's plaintext; an encrypted source is read with its key, and the part is
  // sealed as an UploadPart into this upload is
  const { start, end } = copySourceRange(ctx.headers['x-amz-copy-source-range'], objectSize(source.object));
  if (end - start > MAX_PUT_BYTES) {
    throw new S3Error('InvalidRequest', {}, {
      message: `The specified copy source is larger than the maximum allowable size for a copy source: ${MAX_PUT_BYTES}`,
    });
  }
  const copy = await openCopySourceBody(ctx, source.object, start, end);
  try {
    const { etag, checksum, lastModified, responseHeaders } = await storePart(ctx, bucket, upload, partNumber, copy.body, {});
    const headers: Array<readonly [string, string]> = [...responseHeaders];
    if (source.bucket.versioning !== 'Unversioned') headers.push(['x-amz-copy-source-version-id', source.object.versionId]);
    sendXml(ctx, renderCopyPartResult(lastModified, etag, upload.attrs.uploadChecksum ? checksum : undefined), headers);
  } finally {
    // also when no space could be reserved: the source's reader is let go
    copy.close();
  }
}
