// CreateMultipartUpload, CompleteMultipartUpload and AbortMultipartUpload (s3.md §3.20, §3.23,
// §3.24). Complete never copies part data: the object becomes its parts' extents (engine).

import { noticeField, requestNotice } from './notification.js';
import { createHash } from 'node:crypto';
import { checkCompleteChecksumHeaders, headerNameOf, CHECKSUM_ALGORITHMS } from '../checksums.js';
import { normalizeEtag } from '../conditionals.js';
import { principalId } from '../access.js';
import { requireUploadAccess } from '../authz/request.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { choiceOf, recallCompleted, rememberCompleted } from '../completed-uploads.js';
import { answerWithKeepAlive, type XmlAnswer } from '../long-running.js';
import { objectChecksumOf, parseChecksumType, parseUploadChecksum } from '../multipart-checksums.js';
import type { ObjectPart, S3Bucket, S3Object, S3ObjectAttrs, S3PartAttrs } from '../object-attrs.js';
import { objectAttrsOf } from './object-input.js';
import type { CompleteMultipartUploadParams, UploadIdParams } from '../routes/uploads.js';
import { checkCompleteKey, completedEncryption, encryptionForUpload, encryptionHeaders } from '../sse/sse.js';
import { MAX_PART_NUMBER, parsePartNumber } from '../part-number.js';
import { readSmallBody } from '../request-body.js';
import { objectLocation, send, sendXml } from '../respond.js';
import { doc, el, etagEl } from '../xml.js';
import { childrenOf, parseExactXml, textOf } from '../xml-input.js';
import type { Part, Upload, VersionInput, WriteCondition } from '../../store/types.js';
import { storePartsAsBlobs, WALRUS_STORAGE_CLASS, walrusPatchLabel } from '../walrus-objects.js';

/** Smallest part but the last (s3.md §6 min_part_size). */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
/** Largest multipart object (s3.md §6). */
const MAX_OBJECT_SIZE = 5 * 1024 ** 4;
/** Largest CompleteMultipartUpload body (s3.md §6). */
const MAX_COMPLETE_XML = 4 * 1024 * 1024;

/** Upload ids are the engine's ids (store/ids.ts); anything else names no upload and never reaches the index. */
const UPLOAD_ID = /^[0-9A-Za-z]{32}$/;

/** The upload named by `?uploadId=` on this key, once the caller may act on it; NoSuchUpload when there is none. */
export function uploadOf(ctx: S3Context, bucket: S3Bucket, uploadId: string): Upload<S3ObjectAttrs> {
  const upload = UPLOAD_ID.test(uploadId) ? ctx.services.store.getUpload(bucket.name, ctx.resource.key!, uploadId) : undefined;
  requireUploadAccess(ctx, bucket, upload);
  if (!upload) throw new S3Error('NoSuchUpload', { UploadId: uploadId });
  return upload;
}

export async function handleCreateMultipartUpload(ctx: S3Context): Promise<void> {
  const h = ctx.headers;
  const bucket = bucketOf(ctx);
  const attrs = objectAttrsOf(ctx, bucket, h, h['content-encoding']);
  const uploadChecksum = parseUploadChecksum(h);
  if (uploadChecksum) attrs.uploadChecksum = uploadChecksum;
  // one data key for the upload; each part is sealed as its own segment (sse.ts)
  const uploadEncryption = await encryptionForUpload(ctx, bucket);
  if (uploadEncryption && attrs.storageClass === WALRUS_STORAGE_CLASS) {
    throw new S3Error('NotImplemented', {}, { message: 'Encryption at rest is not implemented for storage class WALRUS yet' });
  }
  if (uploadEncryption) attrs.uploadEncryption = uploadEncryption;
  attrs.initiator = principalId(ctx.principal);
  const key = ctx.resource.key!;
  const upload = await ctx.services.store.createUpload(bucket.name, key, attrs);
  const headers: Array<readonly [string, string]> = [...encryptionHeaders(uploadEncryption, true)];
  if (uploadChecksum) headers.push(['x-amz-checksum-algorithm', uploadChecksum.algorithm], ['x-amz-checksum-type', uploadChecksum.type]);
  sendXml(ctx, renderInitiateMultipartUploadResult(bucket.name, key, upload.uploadId), headers);
}

export function renderInitiateMultipartUploadResult(bucket: string, key: string, uploadId: string): string {
  return doc('InitiateMultipartUploadResult', el('Bucket', bucket) + el('Key', key) + el('UploadId', uploadId));
}

export async function handleAbortMultipartUpload(ctx: S3Context, { uploadId }: UploadIdParams): Promise<void> {
  const bucket = bucketOf(ctx);
  // not the owner: only the upload's initiator may end it
  if (ctx.verdict === 'initiator') uploadOf(ctx, bucket, uploadId);
  const ended = UPLOAD_ID.test(uploadId) && (await ctx.services.store.abortUpload(bucket.name, ctx.resource.key!, uploadId));
  if (!ended) throw new S3Error('NoSuchUpload', { UploadId: uploadId });
  send(ctx, 204);
}

/** One `<Part>` of the Complete request. */
interface ChosenPart {
  partNumber: number;
  etag: string;
  /** Checksum<ALG> elements the client sent, by algorithm */
  checksums: Map<string, string>;
}

function parseCompleteBody(body: Buffer): ChosenPart[] {
  const root = parseExactXml(body, 'CompleteMultipartUpload');
  const parts = childrenOf(root, 'Part');
  if (parts.length < 1 || parts.length > MAX_PART_NUMBER) throw new S3Error('MalformedXML');
  return parts.map((p) => {
    const n = textOf(p, 'PartNumber');
    const etag = textOf(p, 'ETag');
    if (n === undefined || etag === undefined || !/^\s*\d+\s*$/.test(n)) throw new S3Error('MalformedXML');
    const checksums = new Map<string, string>();
    for (const alg of CHECKSUM_ALGORITHMS) {
      const v = textOf(p, `Checksum${alg}`);
      if (v !== undefined) checksums.set(alg, v.trim());
    }
    return { partNumber: parsePartNumber(n.trim()), etag: normalizeEtag(etag), checksums };
  });
}

/** `"<md5 of the parts' binary md5s>-N"` (s3.md §3.0.1). */
export function multipartEtag(partEtags: readonly string[]): string {
  const md5 = createHash('md5');
  for (const e of partEtags) md5.update(Buffer.from(e, 'hex'));
  return `${md5.digest('hex')}-${partEtags.length}`;
}

/** A part's size as the client sent it (a sealed part stores more). */
export function partSize(part: Part<S3PartAttrs>): number {
  return part.attrs.sealed?.plaintextSize ?? part.size;
}

/** Checks 3–7 of s3.md §3.23, in order; returns the stored parts in request order. */
function checkChoice(uploadId: string, upload: Upload<S3ObjectAttrs>, chosen: ChosenPart[], stored: Map<number, Part<S3PartAttrs>>): Part<S3PartAttrs>[] {
  for (let i = 1; i < chosen.length; i++) {
    if (chosen[i]!.partNumber <= chosen[i - 1]!.partNumber) throw new S3Error('InvalidPartOrder', { UploadId: uploadId });
  }
  const out: Part<S3PartAttrs>[] = [];
  const algorithm = upload.attrs.uploadChecksum?.algorithm;
  const composite = upload.attrs.uploadChecksum?.type === 'COMPOSITE';
  for (const c of chosen) {
    const part = stored.get(c.partNumber);
    const invalidPart = () => new S3Error('InvalidPart', { UploadId: uploadId, PartNumber: c.partNumber, ETag: c.etag });
    if (!part || normalizeEtag(part.etag) !== c.etag) throw invalidPart();
    const partChecksum = part.attrs.checksum;
    if (composite && !c.checksums.has(algorithm!)) {
      throw new S3Error('InvalidRequest', {}, {
        message: `The upload was created using a ${algorithm!.toLowerCase()} checksum. The complete request must include the checksum for each part. It was missing for part ${c.partNumber} in the request.`,
      });
    }
    for (const [alg, value] of c.checksums) {
      // compared when the part stored that algorithm (s3.md §3.23 #5)
      if (partChecksum?.algorithm === alg && partChecksum.value !== value) throw invalidPart();
      if (algorithm !== undefined && alg !== algorithm) throw invalidPart();
    }
    out.push(part);
  }
  let total = 0;
  out.forEach((part, i) => {
    const size = partSize(part);
    if (i < out.length - 1 && size < MIN_PART_SIZE) {
      throw new S3Error('EntityTooSmall', {
        ProposedSize: size,
        MinSizeAllowed: MIN_PART_SIZE,
        PartNumber: part.partNumber,
        ETag: part.etag,
      });
    }
    total += size;
  });
  if (total > MAX_OBJECT_SIZE) throw new S3Error('EntityTooLarge', { ProposedSize: total, MaxSizeAllowed: MAX_OBJECT_SIZE });
  return out;
}

export function renderCompleteMultipartUploadResult(
  location: string,
  bucket: string,
  key: string,
  etag: string,
  checksum: S3ObjectAttrs['checksum'],
): string {
  let xml = el('Location', location) + el('Bucket', bucket) + el('Key', key) + etagEl(etag);
  if (checksum) xml += el(`Checksum${checksum.algorithm}`, checksum.value) + el('ChecksumType', checksum.type);
  return doc('CompleteMultipartUploadResult', xml);
}

export async function handleCompleteMultipartUpload(ctx: S3Context, params: CompleteMultipartUploadParams): Promise<void> {
  const h = ctx.headers;
  const { condition, uploadId: requestedId } = params;
  const bucket = bucketOf(ctx);
  const key = ctx.resource.key!;
  if (UPLOAD_ID.test(requestedId) && !ctx.services.store.getUpload(bucket.name, key, requestedId)) {
    const retried = await retriedComplete(ctx, bucket.name, key, requestedId);
    if (retried) return sendXml(ctx, retried.xml, retried.headers);
  }
  const upload = uploadOf(ctx, bucket, requestedId);
  const uploadId = upload.uploadId;
  checkCompleteKey(ctx, upload.attrs.uploadEncryption);
  const chosen = parseCompleteBody(await readSmallBody(ctx, MAX_COMPLETE_XML));
  // the headers' form is checked before the parts, as S3 does
  checkCompleteChecksumHeaders(h);
  const expectedSize = h['x-amz-mp-object-size'];
  if (expectedSize !== undefined && !/^\d+$/.test(expectedSize.trim())) {
    throw new S3Error('InvalidRequest', {}, { message: 'Value for x-amz-mp-object-size header is invalid.' });
  }
  const store = ctx.services.store;
  const stored = new Map(store.listParts(uploadId, 0, MAX_PART_NUMBER).parts.map((p) => [p.partNumber, p] as const));
  const parts = checkChoice(uploadId, upload, chosen, stored);
  const size = parts.reduce((n, p) => n + partSize(p), 0);

  if (expectedSize !== undefined && expectedSize.trim() !== String(size)) {
    throw new S3Error('InvalidRequest', {}, { message: `The provided 'x-amz-mp-object-size' header value ${expectedSize} does not match what was computed: ${size}` });
  }
  const uploadChecksum = upload.attrs.uploadChecksum;
  const requestedType = parseChecksumType(h);
  if (requestedType !== undefined && requestedType !== uploadChecksum?.type) {
    throw new S3Error('InvalidRequest', {}, { message: 'The upload was created using a different checksum type than the one specified in the complete request.' });
  }
  const checksum = uploadChecksum
    ? objectChecksumOf(uploadChecksum, parts.map((p) => ({ size: partSize(p), value: p.attrs.checksum?.value ?? '' })))
    : undefined;
  if (uploadChecksum) {
    const expected = h[headerNameOf(uploadChecksum.algorithm)];
    if (expected !== undefined && expected.trim().replace(/-\d+$/, '') !== checksum!.value.replace(/-\d+$/, '')) {
      throw new S3Error('BadDigest', {}, { message: `The ${uploadChecksum.algorithm} you specified did not match the calculated checksum.` });
    }
  }

  const etag = multipartEtag(parts.map((p) => normalizeEtag(p.etag)));
  const objectParts: ObjectPart[] = parts.map((p) => {
    const part: ObjectPart = { size: partSize(p) };
    if (uploadChecksum && p.attrs.checksum) part.checksum = p.attrs.checksum.value;
    return part;
  });
  const { uploadChecksum: _created, uploadEncryption, initiator: _initiator, ...rest } = upload.attrs;
  const attrs: S3ObjectAttrs = { ...rest, parts: objectParts };
  if (checksum) attrs.checksum = checksum;
  if (uploadEncryption) {
    attrs.encryption = completedEncryption(uploadEncryption, parts.map((p) => {
      // every part of an encrypted upload is sealed (upload-part.ts)
      if (!p.attrs.sealed) throw new Error(`part ${p.partNumber} of encrypted upload ${uploadId} is not sealed`);
      return p.attrs.sealed;
    }));
  }
  await ctx.services.quotas?.checkWrite(bucket.name, key, size);
  await answerWithKeepAlive(ctx, async () => {
    const input = { etag, lastModified: Date.now(), attrs, ...noticeField(requestNotice(ctx, bucket, 'ObjectCreated:CompleteMultipartUpload', key)) };
    const version =
      attrs.storageClass === WALRUS_STORAGE_CLASS
        ? await completeOnWalrus(ctx, bucket.name, key, uploadId, parts, input, condition)
        : await store.completeUpload(bucket.name, key, uploadId, parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })), input, condition);
    ctx.services.quotas?.written(bucket.name, size);
    const headers: Array<readonly [string, string]> = [...encryptionHeaders(attrs.encryption)];
    if (version.versionId !== 'null') headers.push(['x-amz-version-id', version.versionId]);
    const answer = { headers, xml: renderCompleteMultipartUploadResult(objectLocation(ctx, bucket.name, key), bucket.name, key, etag, checksum) };
    rememberCompleted(bucket.name, key, uploadId, choiceOf(chosen), answer);
    return answer;
  });
}

/**
 * Complete of an upload to storage class WALRUS: the chosen parts' bytes become blobs (each
 * certified), the object commits with an empty body that names them, and the upload ends, freeing
 * its parts. A failure before the commit leaves the upload as it was (it can be completed again).
 */
async function completeOnWalrus(
  ctx: S3Context,
  bucket: string,
  key: string,
  uploadId: string,
  parts: ReadonlyArray<Part<S3PartAttrs>>,
  input: VersionInput<S3ObjectAttrs>,
  condition: WriteCondition | undefined,
): Promise<S3Object> {
  const walrus = await storePartsAsBlobs(ctx.services, parts, walrusPatchLabel(bucket, key, input.attrs, input.etag, input.lastModified));
  const writer = ctx.services.store.beginWrite(0);
  let version: S3Object;
  try {
    version = await writer.commit(bucket, key, { ...input, attrs: { ...input.attrs, walrus } }, condition);
  } catch (e) {
    await writer.abort();
    throw e;
  }
  await ctx.services.store.abortUpload(bucket, key, uploadId);
  return version;
}

/** A retry of a Complete that succeeded, with the same parts: its answer again (s3.md §3.23). */
async function retriedComplete(ctx: S3Context, bucket: string, key: string, uploadId: string): Promise<XmlAnswer | undefined> {
  let chosen: ChosenPart[];
  try {
    chosen = parseCompleteBody(await readSmallBody(ctx, MAX_COMPLETE_XML));
  } catch {
    return undefined; // the upload is gone: NoSuchUpload comes first (s3.md §3.23 #1)
  }
  return recallCompleted(bucket, key, uploadId, choiceOf(chosen));
}
