// PutObject (s3.md §3.13) as a pipeline with a fixed order (style.md §6): validate headers and
// limits → authorize → decode the body (raw or aws-chunked) → one fused digest pass and the
// segment write, chunk by chunk → verify every declared digest and trailer → conditional index
// commit → answer. Any failure or client abort leaves no index entry.

import { checkSettableAcl, requestedAcl } from '../authz/acl-request.js';
import { bucketOf, type S3Context } from '../context.js';
import { digestsNeeded, headerNameOf, planChecksums, verifyChecksums, type ChecksumPlan } from '../checksums.js';
import { normalizeEtag } from '../conditionals.js';
import { S3Error } from '../errors.js';
import { send } from '../respond.js';
import { openRequestBody } from '../request-body.js';
import { contentSha256MismatchError } from '../auth/index.js';
import type { CannedAcl, WriteCondition } from '../../store/types.js';
import type { S3Bucket, S3Object, S3ObjectAttrs, StoredAcl, StoredChecksum } from '../object-attrs.js';
import { lockOfNewVersion } from '../object-lock.js';
import { expirationHeader, lifecycleRulesOf } from '../lifecycle/rules.js';

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

/** Headers that imply features Tusk does not have yet (s3.md §3.0.3, §2.12). */
function rejectUnsupported(headers: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-amz-server-side-encryption')) throw new S3Error('NotImplemented', { Header: name });
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

/** What PutObject and the POST form upload both store: the object's fields taken from headers (or form fields). */
export interface ObjectFields {
  storageClass: string;
  meta: Record<string, string>;
  headers: Record<string, string>;
  acl: CannedAcl;
  grants?: StoredAcl;
  contentType: string;
  /** object-lock retention and legal hold of the new version (explicit headers or the bucket's default) */
  lock: Pick<S3ObjectAttrs, 'retention' | 'legalHold'>;
}

/** Reads the stored object fields from request headers (PutObject) or lower-cased form fields (POST upload). */
export function objectFieldsOf(ctx: S3Context, bucket: S3Bucket, h: Readonly<Record<string, string>>, contentEncoding: string | undefined): ObjectFields {
  const storageClass = storageClassOf(h);
  const meta = userMetadataOf(h);
  rejectUnsupported(h);
  const lock = lockOfNewVersion(h, bucket, Date.now());
  const { acl, grants } = requestedAcl(h, bucket.owner, ctx.services.accounts);
  checkSettableAcl(bucket, acl, grants);
  const headers = storedHeadersOf(h, contentEncoding);
  return { storageClass, meta, headers, acl, ...(grants ? { grants } : {}), contentType: h['content-type'] ?? DEFAULT_CONTENT_TYPE, lock };
}

/** A body to store: its exact length and its chunks in order. */
export interface ObjectBodySource {
  length: number;
  next(): Promise<Buffer | null>;
}

export interface WriteObjectOptions {
  plan: ChecksumPlan;
  /** lower-case hex SHA-256 the body must have (signed raw payloads) */
  expectedSha256?: string;
  /** trailers after the last chunk (aws-chunked) */
  trailers?: () => Record<string, string>;
  condition?: WriteCondition;
}

/**
 * The write path (style.md §6): one fused digest pass and the segment write, chunk by chunk, then
 * every declared digest verified, then the conditional index commit. Nothing is stored on failure.
 */
export async function writeObject(
  ctx: S3Context,
  bucket: string,
  key: string,
  body: ObjectBodySource,
  fields: ObjectFields,
  options: WriteObjectOptions,
): Promise<{ record: S3Object; checksum: StoredChecksum }> {
  const { plan, expectedSha256, condition } = options;
  const hasher = ctx.services.digester.create(digestsNeeded(plan, expectedSha256 !== undefined));
  const writer = ctx.services.store.beginWrite(body.length);
  let committed = false;
  try {
    // Chunks are hashed and written while the next ones arrive; both keep chunk order on their own
    // (the hasher queues its updates, the writer places each chunk at its offset when called).
    const inFlight: Array<{ done: Promise<unknown>; bytes: number }> = [];
    let inFlightBytes = 0;
    for (;;) {
      const chunk = await body.next();
      if (!chunk) break;
      const done = Promise.all([hasher.update(chunk), writer.write(chunk)]);
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
    const trailers = options.trailers?.() ?? {};
    const digests = hasher.digest();
    if (expectedSha256 !== undefined && digests.sha256!.toString('hex') !== expectedSha256) {
      throw contentSha256MismatchError(expectedSha256, digests.sha256!.toString('hex'));
    }
    const checksum = verifyChecksums(plan, digests, trailers);
    const attrs: S3ObjectAttrs = {
      contentType: fields.contentType,
      storageClass: fields.storageClass,
      acl: fields.acl,
      ...(fields.grants ? { grants: fields.grants } : {}),
      headers: fields.headers,
      meta: fields.meta,
      checksum,
      ...fields.lock,
    };
    // the write condition is checked once, in the engine's commit transaction (style.md §7)
    const record = await writer.commit(bucket, key, { etag: digests.md5.toString('hex'), lastModified: Date.now(), attrs }, condition);
    committed = true;
    return { record, checksum };
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
  const fields = objectFieldsOf(ctx, bucket, h, body.contentEncoding);
  const key = ctx.resource.key!;
  const { record, checksum } = await writeObject(ctx, bucket.name, key, body, fields, {
    plan,
    expectedSha256: body.expectedSha256,
    trailers: () => body.finish(),
    condition,
  });
  const out: Array<readonly [string, string]> = [['ETag', `"${record.etag}"`]];
  if (record.versionId !== 'null') out.push(['x-amz-version-id', record.versionId]);
  const expiration = expirationHeader(lifecycleRulesOf(bucket), record, ctx.services.config.lifecycle.dayMs);
  if (expiration) out.push(['x-amz-expiration', expiration]);
  // echo the checksum when the client supplied or requested one (s3.md §3.0.2)
  if (plan.algorithm) {
    out.push([headerNameOf(checksum.algorithm), checksum.value], ['x-amz-checksum-type', 'FULL_OBJECT']);
  }
  send(ctx, 200, out);
}
