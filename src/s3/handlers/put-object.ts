// PutObject (s3.md §3.13) as a pipeline with a fixed order (style.md §6): validate headers and
// limits → authorize → decode the body (raw or aws-chunked) → one fused digest pass and the
// segment write, chunk by chunk → verify every declared digest and trailer → conditional index
// commit → answer. Any failure or client abort leaves no index entry.

import { requireBucket, requireCapability, parseCannedAcl } from '../access.js';
import { bucketOf, type S3Context } from '../context.js';
import { digestsNeeded, headerNameOf, planChecksums, verifyChecksums } from '../checksums.js';
import { normalizeEtag } from '../conditionals.js';
import { S3Error } from '../errors.js';
import { sealedEtag, sealingForWrite } from '../sse/sse.js';
import { send } from '../respond.js';
import { openRequestBody } from '../request-body.js';
import { contentSha256MismatchError } from '../auth/index.js';
import type { ObjectMeta, WriteCondition } from '../../store/types.js';

export const MAX_PUT_BYTES = 5 * 1024 ** 3;
const MAX_USER_METADATA = 2048;
/** Body bytes of one PUT being hashed and written at once: keeps the disk and the hasher busy, bounds memory. */
const PIPELINE_WINDOW = 4 << 20;

const STORABLE_CLASSES = new Set(['STANDARD', 'REDUCED_REDUNDANCY', 'STANDARD_IA', 'ONEZONE_IA', 'INTELLIGENT_TIERING', 'GLACIER_IR']);
const STORED_HEADERS = ['cache-control', 'content-disposition', 'content-language', 'expires', 'x-amz-website-redirect-location'];
const DEFAULT_CONTENT_TYPE = 'binary/octet-stream';

function storageClassOf(headers: Readonly<Record<string, string>>): string {
  const v = headers['x-amz-storage-class'];
  if (v === undefined) return 'STANDARD';
  const sc = v.trim();
  if (!STORABLE_CLASSES.has(sc)) throw new S3Error('InvalidStorageClass', { StorageClassRequested: v });
  return sc;
}

function userMetadataOf(headers: Readonly<Record<string, string>>): Record<string, string> {
  const meta: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('x-amz-meta-')) continue;
    const short = name.slice('x-amz-meta-'.length);
    meta[short] = value;
    size += Buffer.byteLength(short) + Buffer.byteLength(value);
  }
  if (size > MAX_USER_METADATA) throw new S3Error('MetadataTooLarge', { Size: size, MaxSizeAllowed: MAX_USER_METADATA });
  return meta;
}

function storedHeadersOf(headers: Readonly<Record<string, string>>, contentEncoding: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of STORED_HEADERS) if (headers[name] !== undefined) out[name] = headers[name]!;
  const redirect = out['x-amz-website-redirect-location'];
  if (redirect !== undefined && !/^(\/|https?:\/\/)/.test(redirect)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-website-redirect-location', ArgumentValue: redirect }, {
      message: 'The website redirect location must have a prefix of \'http://\' or \'https://\' or \'/\'.',
    });
  }
  if (contentEncoding) out['content-encoding'] = contentEncoding;
  return out;
}

/** Headers that imply features Tusk does not have yet (s3.md §3.0.3, §3.0.9, §2.12). */
function rejectUnsupported(headers: Readonly<Record<string, string>>, objectLockBucket: boolean): void {
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-amz-grant-')) {
      if (headers['x-amz-acl'] !== undefined) {
        throw new S3Error('InvalidRequest', {}, { message: 'Specifying both Canned ACLs and Header Grants is not allowed' });
      }
      throw new S3Error('NotImplemented', { Header: name });
    }
    if (name.startsWith('x-amz-object-lock-')) {
      if (!objectLockBucket) {
        throw new S3Error('InvalidRequest', {}, { message: 'Bucket is missing Object Lock Configuration' });
      }
      throw new S3Error('NotImplemented', { Header: name });
    }
  }
  if (headers['x-amz-tagging'] !== undefined) throw new S3Error('NotImplemented', { Header: 'x-amz-tagging' });
}

function writeCondition(headers: Readonly<Record<string, string>>): WriteCondition | undefined {
  const inm = headers['if-none-match'];
  const im = headers['if-match'];
  if (inm === undefined && im === undefined) return undefined;
  const cond: WriteCondition = {};
  if (inm !== undefined) {
    if (inm.trim() !== '*') throw new S3Error('NotImplemented', { Header: 'If-None-Match' });
    cond.ifNoneMatchStar = true;
  }
  if (im !== undefined) cond.ifMatch = normalizeEtag(im);
  return cond;
}

/** Early check of a write condition before the body is read; the commit checks again atomically. */
function precheck(ctx: S3Context, bucket: string, key: string, cond: WriteCondition | undefined): void {
  if (!cond) return;
  const current = ctx.services.store.getObject(bucket, key);
  if (cond.ifNoneMatchStar && current) throw new S3Error('PreconditionFailed', { Condition: 'If-None-Match' });
  if (cond.ifMatch !== undefined) {
    if (!current) throw new S3Error('NoSuchKey', { Key: key });
    if (cond.ifMatch !== '*' && current.etag !== cond.ifMatch) throw new S3Error('PreconditionFailed', { Condition: 'If-Match' });
  }
}

export async function handlePutObject(ctx: S3Context): Promise<void> {
  const h = ctx.headers;
  const body = openRequestBody(ctx, MAX_PUT_BYTES);
  const storageClass = storageClassOf(h);
  const meta = userMetadataOf(h);
  const acl = parseCannedAcl(h['x-amz-acl']) ?? 'private';
  const condition = writeCondition(h);
  const plan = planChecksums(h, body.trailer);
  const bucket = bucketOf(ctx);
  rejectUnsupported(h, bucket.objectLock);
  const headers = storedHeadersOf(h, body.contentEncoding);
  requireCapability(ctx.principal, 'write', bucket.name);
  requireBucket(ctx.principal, bucket, 'write');
  const key = ctx.resource.key!;
  precheck(ctx, bucket.name, key, condition);
  ctx.services.quotas?.checkWrite(bucket.name, key, body.length);
  const sealing = sealingForWrite(ctx, bucket, body.length);

  const hasher = ctx.services.digester.create(digestsNeeded(plan, body.expectedSha256 !== undefined));
  const writer = ctx.services.store.beginWrite(sealing ? sealing.storedLength : body.length);
  // digests are of the plaintext; the writer gets sealed blocks when the object is encrypted
  const write = sealing ? (chunk: Buffer) => Promise.all(sealing.sealer.push(chunk).map((b) => writer.write(b))) : (chunk: Buffer) => writer.write(chunk);
  let committed = false;
  try {
    // Chunks are hashed and written while the next ones arrive; both keep chunk order on their own
    // (the hasher queues its updates, the writer places each chunk at its offset when called).
    const inFlight: Array<{ done: Promise<unknown>; bytes: number }> = [];
    let inFlightBytes = 0;
    for (;;) {
      const chunk = await body.next();
      if (!chunk) break;
      const done = Promise.all([hasher.update(chunk), write(chunk)]);
      done.catch(() => undefined); // awaited below; this only keeps an early failure from being "unhandled"
      inFlight.push({ done, bytes: chunk.length });
      inFlightBytes += chunk.length;
      while (inFlightBytes > PIPELINE_WINDOW) {
        const oldest = inFlight.shift()!;
        inFlightBytes -= oldest.bytes;
        await oldest.done;
      }
    }
    await Promise.all(inFlight.map((c) => c.done));
    if (sealing) await Promise.all(sealing.sealer.end().map((b) => writer.write(b)));
    const trailers = body.finish();
    const digests = hasher.digest();
    if (body.expectedSha256 !== undefined && digests.sha256!.toString('hex') !== body.expectedSha256) {
      throw contentSha256MismatchError(body.expectedSha256, digests.sha256!.toString('hex'));
    }
    const checksum = verifyChecksums(plan, digests, trailers);
    const objectMeta: ObjectMeta = {
      size: body.length,
      etag: sealedEtag(sealing, digests.md5.toString('hex')),
      lastModified: Date.now(),
      contentType: h['content-type'] ?? DEFAULT_CONTENT_TYPE,
      storageClass,
      acl,
      headers,
      meta,
      checksum,
      versionId: 'null',
    };
    if (sealing) objectMeta.encryption = sealing.encryption;
    const record = await writer.commit(bucket.name, key, objectMeta, condition);
    committed = true;
    ctx.services.quotas?.written(bucket.name, body.length);
    const out: Array<readonly [string, string]> = [['ETag', `"${record.etag}"`], ...(sealing?.responseHeaders ?? [])];
    // echo the checksum when the client supplied or requested one (s3.md §3.0.2)
    if (plan.algorithm) {
      out.push([headerNameOf(checksum.algorithm), checksum.value], ['x-amz-checksum-type', 'FULL_OBJECT']);
    }
    send(ctx, 200, out);
  } finally {
    if (!committed) await writer.abort();
  }
}
