// CopyObject (s3.md §3.18): a new version sharing the source's extents (no bytes copied), with the
// source's or the request's metadata and tags; answers only after the copy committed.

import { hashStoredRange } from '../body-pipeline.js';
import { CHECKSUM_ALGORITHMS, digestNameOf } from '../checksums.js';
import { bucketOf, type S3Context } from '../context.js';
import { MAX_COPY_BYTES, resolveCopySource, type CopySource } from '../copy-source.js';
import { S3Error } from '../errors.js';
import type { ChecksumAlgorithm, S3ObjectAttrs, StoredChecksum } from '../object-attrs.js';
import { objectAttrsOf, rejectEncryption, storageClassOf, writeCondition } from '../object-input.js';
import { sendXml } from '../respond.js';
import { objectSize } from '../sse/sse.js';
import { doc, el, isoSeconds } from '../xml.js';

type Directive = 'COPY' | 'REPLACE';

function directiveOf(ctx: S3Context, header: string, what: string): Directive {
  const v = ctx.headers[header];
  if (v === undefined) return 'COPY';
  const d = v.trim().toUpperCase();
  if (d !== 'COPY' && d !== 'REPLACE') {
    throw new S3Error('InvalidArgument', { ArgumentName: header, ArgumentValue: v }, { message: `Unknown ${what} directive.` });
  }
  return d;
}

function checksumAlgorithmOf(ctx: S3Context): ChecksumAlgorithm | undefined {
  const v = ctx.headers['x-amz-checksum-algorithm'];
  if (v === undefined) return undefined;
  const alg = CHECKSUM_ALGORITHMS.find((a) => a === v.trim().toUpperCase());
  if (!alg) throw new S3Error('InvalidRequest', {}, { message: 'Value for x-amz-checksum-algorithm header is invalid.' });
  return alg;
}

/** S3 refuses a copy onto itself that changes nothing (s3.md §3.18). */
function rejectNoOpSelfCopy(ctx: S3Context, source: CopySource, metadata: Directive, algorithm: ChecksumAlgorithm | undefined): void {
  const sameObject =
    source.bucket.name === ctx.resource.bucket &&
    source.key === ctx.resource.key &&
    (source.requestedVersionId === undefined || source.requestedVersionId === ctx.services.store.getObject(source.bucket.name, source.key)?.versionId);
  const h = ctx.headers;
  const changes =
    metadata === 'REPLACE' ||
    (h['x-amz-storage-class'] !== undefined && storageClassOf(h) !== source.object.attrs.storageClass) ||
    h['x-amz-website-redirect-location'] !== undefined ||
    (algorithm !== undefined && algorithm !== source.object.attrs.checksum?.algorithm);
  if (sameObject && !changes) {
    throw new S3Error('InvalidRequest', {}, {
      message:
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    });
  }
}

export function renderCopyObjectResult(lastModified: number, etag: string, checksum: StoredChecksum | undefined): string {
  let xml = el('LastModified', isoSeconds(lastModified)) + el('ETag', `"${etag}"`);
  if (checksum && checksum.type === 'FULL_OBJECT') xml += el(`Checksum${checksum.algorithm}`, checksum.value);
  return doc('CopyObjectResult', xml);
}

export async function handleCopyObject(ctx: S3Context): Promise<void> {
  const h = ctx.headers;
  const metadata = directiveOf(ctx, 'x-amz-metadata-directive', 'metadata');
  const tagging = directiveOf(ctx, 'x-amz-tagging-directive', 'tagging');
  const algorithm = checksumAlgorithmOf(ctx);
  const condition = writeCondition(h);
  const bucket = bucketOf(ctx);
  // a copy shares its source's stored bytes: it keeps the source's encryption, and cannot ask for another
  rejectEncryption(h);
  const requested = objectAttrsOf(ctx, bucket, h, h['content-encoding']);
  const source = resolveCopySource(ctx);
  const src = source.object;
  if (src.size > MAX_COPY_BYTES) {
    throw new S3Error('InvalidRequest', {}, {
      message: `The specified copy source is larger than the maximum allowable size for a copy source: ${MAX_COPY_BYTES}`,
    });
  }
  rejectNoOpSelfCopy(ctx, source, metadata, algorithm);

  // storage class and ACL come from the request only, never from the source (s3.md §3.18)
  const { tags: requestTags, ...fromRequest } = requested;
  const attrs: S3ObjectAttrs =
    metadata === 'REPLACE'
      ? fromRequest
      : { ...fromRequest, contentType: src.attrs.contentType, headers: { ...src.attrs.headers }, meta: { ...src.attrs.meta } };
  const tags = tagging === 'REPLACE' ? requestTags : src.attrs.tags;
  if (tags && tags.length > 0) attrs.tags = tags;
  if (src.attrs.parts) attrs.parts = src.attrs.parts;
  if (src.attrs.encryption) {
    if (algorithm !== undefined) throw new S3Error('NotImplemented', {}, { message: 'A new checksum for an encrypted copy source is not implemented yet.' });
    attrs.encryption = src.attrs.encryption;
  }
  if (algorithm !== undefined && (src.attrs.checksum?.algorithm !== algorithm || src.attrs.checksum.type !== 'FULL_OBJECT')) {
    const digests = await hashStoredRange(ctx, src, 0, src.size, new Set([digestNameOf(algorithm)]));
    attrs.checksum = { algorithm, value: digests[digestNameOf(algorithm)]!.toString('base64'), type: 'FULL_OBJECT' };
    // the parts keep their layout; their checksums were of the source's algorithm
    if (attrs.parts) attrs.parts = attrs.parts.map((p) => ({ size: p.size }));
  } else if (src.attrs.checksum) attrs.checksum = src.attrs.checksum;

  await ctx.services.quotas?.checkWrite(bucket.name, ctx.resource.key!, objectSize(src));
  const version = await ctx.services.store.copyObject(
    { bucket: source.bucket.name, key: source.key, versionId: src.versionId },
    bucket.name,
    ctx.resource.key!,
    { etag: src.etag, lastModified: Date.now(), attrs },
    condition,
  );
  ctx.services.quotas?.written(bucket.name, objectSize(src));
  const headers: Array<readonly [string, string]> = [];
  if (version.versionId !== 'null') headers.push(['x-amz-version-id', version.versionId]);
  if (source.bucket.versioning !== 'Unversioned') headers.push(['x-amz-copy-source-version-id', src.versionId]);
  sendXml(ctx, renderCopyObjectResult(version.lastModified, version.etag, attrs.checksum), headers);
}
