import { errorCode, NetworkError, type S3Client, type S3Response } from './client.js';
import type { ContentSource } from './content.js';
import { UNSIGNED_PAYLOAD } from './sigv4-client.js';

/** One S3 operation as the generator sees it: success with what it moved, or the code it failed with. */
export type Outcome =
  | { ok: true; bytes: number; firstByteAt?: number; items?: number }
  | { ok: false; code: string };

export type PayloadMode = 'unsigned' | 'sha256';

export interface OpContext {
  client: S3Client;
  content: ContentSource;
  bucket: string;
  payload: PayloadMode;
  /** headers every object write carries (e.g. x-amz-server-side-encryption) */
  writeHeaders?: Record<string, string>;
}

async function attempt(run: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof NetworkError) return { ok: false, code: err.code };
    return { ok: false, code: `client:${(err as Error).message}` };
  }
}

function failed(res: S3Response): Outcome {
  return { ok: false, code: errorCode(res) };
}

function payloadHash(ctx: OpContext, key: string, size: number): string {
  return ctx.payload === 'sha256' ? ctx.content.sha256Hex(key, size) : UNSIGNED_PAYLOAD;
}

export function putObject(ctx: OpContext, key: string, size: number): Promise<Outcome> {
  return attempt(async () => {
    const res = await ctx.client.send({
      method: 'PUT', bucket: ctx.bucket, key,
      body: ctx.content.body(key, size),
      payloadHash: payloadHash(ctx, key, size),
      headers: ctx.writeHeaders,
    });
    return res.status === 200 ? { ok: true, bytes: size } : failed(res);
  });
}

/** GET, verified while it streams: a body that differs in length or content is an error, never throughput. */
export function getObject(ctx: OpContext, key: string, size: number): Promise<Outcome> {
  return attempt(async () => {
    const verifier = ctx.content.verifier(key, size);
    const res = await ctx.client.send({
      method: 'GET', bucket: ctx.bucket, key,
      onChunk: (chunk) => verifier.update(chunk),
    });
    if (res.status !== 200) return failed(res);
    const verdict = verifier.finish();
    return verdict === 'ok' ? { ok: true, bytes: size, firstByteAt: res.firstByteAt } : { ok: false, code: verdict };
  });
}

export function headObject(ctx: OpContext, key: string, size: number): Promise<Outcome> {
  return attempt(async () => {
    const res = await ctx.client.send({ method: 'HEAD', bucket: ctx.bucket, key });
    if (res.status !== 200) return { ok: false, code: `HTTP ${res.status}` }; // HEAD answers carry no error body
    return Number(res.headers['content-length']) === size ? { ok: true, bytes: 0 } : { ok: false, code: 'verify:length' };
  });
}

export function deleteObject(ctx: OpContext, key: string): Promise<Outcome> {
  return attempt(async () => {
    const res = await ctx.client.send({ method: 'DELETE', bucket: ctx.bucket, key });
    return res.status === 204 || res.status === 200 ? { ok: true, bytes: 0 } : failed(res);
  });
}

export interface ListCursor {
  token?: string;
  /** Keys seen since the listing began; compared with the expected count when it ends. */
  seen: number;
  lastKey: string;
}

/**
 * One ListObjectsV2 page. Checks keys are under the prefix and strictly ascending; when a full pass ends and
 * `expectedKeys` is known (static population), the number of keys seen must equal it.
 */
export function listPage(
  ctx: OpContext, prefix: string, maxKeys: number, cursor: ListCursor, expectedKeys: number | undefined,
): Promise<Outcome> {
  return attempt(async () => {
    const query: [string, string][] = [['list-type', '2'], ['prefix', prefix], ['max-keys', String(maxKeys)]];
    if (cursor.token) query.push(['continuation-token', cursor.token]);
    const res = await ctx.client.send({ method: 'GET', bucket: ctx.bucket, query });
    if (res.status !== 200) return failed(res);
    const xml = res.body.toString('utf8');
    const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unescapeXml(m[1]!));
    const truncated = /<IsTruncated>true<\/IsTruncated>/.test(xml);
    const next = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1];
    let bad = keys.length > maxKeys;
    for (const key of keys) {
      if (!key.startsWith(prefix) || key <= cursor.lastKey) bad = true;
      cursor.lastKey = key;
    }
    cursor.seen += keys.length;
    const passEnded = !truncated || !next;
    const countWrong = passEnded && expectedKeys !== undefined && cursor.seen !== expectedKeys;
    if (passEnded) {
      cursor.token = undefined;
      cursor.seen = 0;
      cursor.lastKey = '';
    } else {
      cursor.token = unescapeXml(next);
    }
    if (bad) return { ok: false, code: 'verify:list-order' };
    if (countWrong) return { ok: false, code: 'verify:list-count' };
    return { ok: true, bytes: 0, items: keys.length, firstByteAt: res.firstByteAt };
  });
}

/** Thrown when the endpoint does not implement multipart uploads, so the caller can skip the operation. */
export const MULTIPART_UNSUPPORTED = 'NotImplemented';

/** CreateMultipartUpload → UploadPart × n (sequential) → CompleteMultipartUpload; aborts on failure. */
export function multipartPut(
  ctx: OpContext, key: string, size: number, partSize: number, uploads: Set<string>,
): Promise<Outcome> {
  return attempt(async () => {
    const created = await ctx.client.send({ method: 'POST', bucket: ctx.bucket, key, query: [['uploads', '']], headers: ctx.writeHeaders });
    if (created.status === 501) return { ok: false, code: MULTIPART_UNSUPPORTED };
    if (created.status !== 200) return failed(created);
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created.body.toString('utf8'))?.[1];
    if (!uploadId) return { ok: false, code: 'client:no UploadId in CreateMultipartUpload answer' };
    const id = unescapeXml(uploadId);
    const handle = `${key}\n${id}`;
    uploads.add(handle);
    const [prefix, stamp] = ctx.content.body(key, size);
    const etags: string[] = [];
    for (let start = 0, part = 1; start < size || part === 1; start += partSize, part++) {
      const end = Math.min(size, start + partSize);
      const res = await ctx.client.send({
        method: 'PUT', bucket: ctx.bucket, key,
        query: [['partNumber', String(part)], ['uploadId', id]],
        body: sliceParts(prefix, stamp, start, end),
        payloadHash: UNSIGNED_PAYLOAD,
      });
      if (res.status !== 200) return failed(res);
      etags.push(String(res.headers['etag'] ?? ''));
    }
    const xml = `<CompleteMultipartUpload>${etags
      .map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`)
      .join('')}</CompleteMultipartUpload>`;
    const done = await ctx.client.send({
      method: 'POST', bucket: ctx.bucket, key, query: [['uploadId', id]], body: [Buffer.from(xml)],
      payloadHash: UNSIGNED_PAYLOAD,
    });
    // a Complete that takes long answers 200 and may carry an <Error> body (AWS CompleteMultipartUpload docs; Tusk too)
    if (done.status !== 200 || done.body.includes('<Error>')) return failed(done);
    uploads.delete(handle);
    return { ok: true, bytes: size };
  });
}

export async function abortMultipart(ctx: OpContext, handle: string): Promise<Outcome> {
  const [key, uploadId] = handle.split('\n') as [string, string];
  return attempt(async () => {
    const res = await ctx.client.send({ method: 'DELETE', bucket: ctx.bucket, key, query: [['uploadId', uploadId]] });
    return res.status === 204 || res.status === 200 ? { ok: true, bytes: 0 } : failed(res);
  });
}

/** Bytes [start, end) of the two-slice body as at most two slices (no copy). */
function sliceParts(prefix: Buffer, stamp: Buffer, start: number, end: number): Buffer[] {
  const parts: Buffer[] = [];
  if (start < prefix.length) parts.push(prefix.subarray(start, Math.min(end, prefix.length)));
  if (end > prefix.length) parts.push(stamp.subarray(Math.max(0, start - prefix.length), end - prefix.length));
  return parts;
}

export async function bucketExists(ctx: OpContext): Promise<boolean> {
  const res = await ctx.client.send({ method: 'HEAD', bucket: ctx.bucket });
  if (res.status === 200) return true;
  if (res.status === 404) return false;
  // a HEAD answer has no error body: a 403 here is most often rejected credentials
  if (res.status === 403) {
    throw new Error(`HeadBucket ${ctx.bucket} answered 403 Forbidden: the credentials are rejected or may not use this bucket (check --access-key/--secret-key and --region)`);
  }
  throw new Error(`HeadBucket ${ctx.bucket} answered HTTP ${res.status}`);
}

export async function createBucket(ctx: OpContext): Promise<void> {
  const res = await ctx.client.send({ method: 'PUT', bucket: ctx.bucket });
  if (res.status !== 200) throw new Error(`CreateBucket ${ctx.bucket} failed: ${errorCode(res)}`);
}

export async function deleteBucket(ctx: OpContext): Promise<void> {
  const res = await ctx.client.send({ method: 'DELETE', bucket: ctx.bucket });
  if (res.status !== 204 && res.status !== 200) throw new Error(`DeleteBucket ${ctx.bucket} failed: ${errorCode(res)}`);
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) =>
    e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16))
      : e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1)))
        : XML_ENTITIES[e]!,
  );
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
