// CopyObject (s3.md §3.18): a new version sharing the source's extents (no bytes copied) when it
// keeps their encryption, else the source's plaintext written anew with the encryption asked for
// (SSE-S3, SSE-C, the bucket's default, or none); with the source's or the request's metadata and
// tags; answers only after the copy committed.

import { noticeField, requestNotice } from './notification.js';
import { hashBody } from '../body-pipeline.js';
import { digestNameOf } from '../checksums.js';
import { bucketOf, type S3Context } from '../context.js';
import { MAX_COPY_BYTES, openCopySourceBody, resolveCopySource, type CopySource } from './copy-source.js';
import type { CopyObjectParams, Directive } from '../routes/object-writes.js';
import { S3Error } from '../errors/errors.js';
import type { ChecksumAlgorithm, S3Object, S3ObjectAttrs, StoredChecksum } from '../object-attrs.js';
import { objectAttrsOf } from './object-input.js';
import { sendXml } from '../respond.js';
import { copySourceDataKey, encryptionHeaders, objectSize, requestedEncryption } from '../sse/sse.js';
import { WALRUS_STORAGE_CLASS } from '../walrus-objects.js';
import type { WriteCondition } from '../../store/types.js';
import { storeObject } from './put-object.js';
import { doc, el, etagEl, isoSeconds } from '../xml.js';

/**
 * S3 refuses a copy onto itself that changes nothing (s3.md §3.18). As AWS does, a storage class,
 * an encryption or a website redirect named in the request counts as a change even when it equals
 * the source's, and so does a bucket with default encryption configured (an object's encryption
 * can be renewed in place); so does an encryption of the copy other than the source's (an SSE-C
 * object decrypted in place), a REPLACE of its metadata, or another checksum algorithm.
 */
function rejectNoOpSelfCopy(ctx: S3Context, source: CopySource, metadata: Directive, algorithm: ChecksumAlgorithm | undefined, encryption: string | undefined): void {
  const sameObject =
    source.bucket.name === ctx.resource.bucket &&
    source.key === ctx.resource.key &&
    (source.requestedVersionId === undefined || source.requestedVersionId === ctx.services.store.getObject(source.bucket.name, source.key)?.versionId);
  const h = ctx.headers;
  const changes =
    metadata === 'REPLACE' ||
    h['x-amz-storage-class'] !== undefined ||
    h['x-amz-website-redirect-location'] !== undefined ||
    h['x-amz-server-side-encryption'] !== undefined ||
    h['x-amz-server-side-encryption-customer-algorithm'] !== undefined ||
    bucketOf(ctx).encryption !== undefined ||
    encryption !== source.object.attrs.encryption?.mode ||
    (algorithm !== undefined && algorithm !== source.object.attrs.checksum?.algorithm);
  if (sameObject && !changes) {
    throw new S3Error('InvalidRequest', {}, {
      message:
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    });
  }
}

export function renderCopyObjectResult(lastModified: number, etag: string, checksum: StoredChecksum | undefined): string {
  let xml = el('LastModified', isoSeconds(lastModified)) + etagEl(etag);
  if (checksum && checksum.type === 'FULL_OBJECT') xml += el(`Checksum${checksum.algorithm}`, checksum.value);
  return doc('CopyObjectResult', xml);
}

export async function handleCopyObject(ctx: S3Context, p: CopyObjectParams): Promise<void> {
  const h = ctx.headers;
  const { metadata, tagging, checksumAlgorithm: algorithm, condition } = p;
  const bucket = bucketOf(ctx);
  const requested = objectAttrsOf(ctx, bucket, h, h['content-encoding']);
  const wanted = requestedEncryption(ctx, bucket)?.mode;
  const source = resolveCopySource(ctx);
  const src = source.object;
  if (objectSize(src) > MAX_COPY_BYTES) {
    throw new S3Error('InvalidRequest', {}, {
      message: `The specified copy source is larger than the maximum allowable size for a copy source: ${MAX_COPY_BYTES}`,
    });
  }
  rejectNoOpSelfCopy(ctx, source, metadata, algorithm, wanted);

  // storage class and ACL come from the request only, never from the source (s3.md §3.18)
  const { tags: requestTags, ...fromRequest } = requested;
  const attrs: S3ObjectAttrs =
    metadata === 'REPLACE'
      ? fromRequest
      : { ...fromRequest, contentType: src.attrs.contentType, headers: { ...src.attrs.headers }, meta: { ...src.attrs.meta } };
  const tags = tagging === 'REPLACE' ? requestTags : src.attrs.tags;
  if (tags && tags.length > 0) attrs.tags = tags;

  // The stored bytes are shared when the copy keeps their encryption: in clear, or SSE-S3 (sealed
  // under this server's key) unless SSE-C or SSE-KMS is asked for. Anything else (an SSE-KMS source
  // too: its data key is bound to the source's name and key), and a checksum asked of an encrypted
  // source (it is of the plaintext), is read with the source's key and written anew; the source's
  // SSE-C key is checked either way.
  const have = src.attrs.encryption?.mode;
  const keeps = have === undefined ? wanted === undefined : have === 'SSE-S3' && (wanted === undefined || wanted === 'SSE-S3');
  // a copy to or from storage class WALRUS is written anew too: its bytes move between the engine and blobs
  const walrus = src.attrs.walrus !== undefined || attrs.storageClass === WALRUS_STORAGE_CLASS;
  if (!keeps || walrus || (have !== undefined && algorithm !== undefined)) return copyAnew(ctx, source, attrs, condition, algorithm);
  await copySourceDataKey(ctx, src);
  if (src.attrs.parts) attrs.parts = src.attrs.parts;
  if (src.attrs.encryption) attrs.encryption = src.attrs.encryption;
  if (algorithm !== undefined && (src.attrs.checksum?.algorithm !== algorithm || src.attrs.checksum.type !== 'FULL_OBJECT')) {
    const copy = await openCopySourceBody(ctx, src, 0, src.size);
    let digests;
    try {
      digests = await hashBody(ctx, copy.body, new Set([digestNameOf(algorithm)]));
    } finally {
      copy.close();
    }
    attrs.checksum = { algorithm, value: digests[digestNameOf(algorithm)]!.toString('base64'), type: 'FULL_OBJECT' };
    // the parts keep their layout; their checksums were of the source's algorithm
    if (attrs.parts) attrs.parts = attrs.parts.map((p) => ({ size: p.size }));
  } else if (src.attrs.checksum) attrs.checksum = src.attrs.checksum;

  await ctx.services.quotas?.checkWrite(bucket.name, ctx.resource.key!, objectSize(src));
  const version = await ctx.services.store.copyObject(
    { bucket: source.bucket.name, key: source.key, versionId: src.versionId },
    bucket.name,
    ctx.resource.key!,
    { etag: src.etag, lastModified: Date.now(), attrs, ...noticeField(requestNotice(ctx, bucket, 'ObjectCreated:Copy', ctx.resource.key!)) },
    condition,
  );
  ctx.services.quotas?.written(bucket.name, objectSize(src));
  sendCopyResult(ctx, source, version, attrs.checksum, encryptionHeaders(attrs.encryption, true));
}

/** The CopyObjectResult, with the new version's id, the source version's, and the copy's encryption headers. */
function sendCopyResult(ctx: S3Context, source: CopySource, version: S3Object, checksum: StoredChecksum | undefined, encryption: ReadonlyArray<readonly [string, string]>): void {
  const headers: Array<readonly [string, string]> = [...encryption];
  if (version.versionId !== 'null') headers.push(['x-amz-version-id', version.versionId]);
  if (source.bucket.versioning !== 'Unversioned') headers.push(['x-amz-copy-source-version-id', source.object.versionId]);
  sendXml(ctx, renderCopyObjectResult(version.lastModified, version.etag, checksum), headers);
}

/** The copy as a new object: the source's plaintext streamed through PutObject's write path (digests, sealing, commit). */
async function copyAnew(ctx: S3Context, source: CopySource, attrs: S3ObjectAttrs, condition: WriteCondition | undefined, algorithm: ChecksumAlgorithm | undefined): Promise<void> {
  const src = source.object;
  const copy = await openCopySourceBody(ctx, src, 0, objectSize(src));
  let stored;
  try {
    stored = await storeObject(ctx, bucketOf(ctx), ctx.resource.key!, copy.body, attrs, {}, condition, algorithm);
  } finally {
    copy.close();
  }
  sendCopyResult(ctx, source, stored.record, stored.checksum, stored.responseHeaders);
}
