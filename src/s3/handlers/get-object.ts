// GetObject and HeadObject (s3.md §3.14–3.15): version id, partNumber, conditionals, Range, response
// overrides, stored headers and checksums; the body is streamed from its extent with back-pressure.

import { isSafeFieldValue } from '../../http/header-fields.js';
import { canListBucket, requireObjectAccess } from '../authz/request.js';
import { bucketOf, type S3Context } from '../context.js';
import { evaluateReadConditions } from '../conditionals.js';
import { S3Error } from '../errors/errors.js';
import { objectDamaged } from '../store-errors.js';
import { dataKeyForRead, encryptionHeaders, objectSize } from '../sse/sse.js';
import { walrusHeaders } from '../walrus-objects.js';
import { openObjectRead } from './object-read.js';
import { commonHeaders, send } from '../respond.js';
import { parseRange, type ByteRange } from '../range.js';
import { httpDate } from '../xml.js';
import type { GetObjectParams } from '../routes/object-reads.js';
import type { S3Object } from '../object-attrs.js';
import { lockHeaders } from '../object-lock.js';
import { expirationHeader, lifecycleRulesOf } from '../lifecycle/rules.js';
import { NULL_VERSION, type BodyReader } from '../../store/types.js';
import type { S3Bucket } from '../object-attrs.js';

const STORED_HEADER_NAMES: Record<string, string> = {
  'cache-control': 'Cache-Control',
  'content-disposition': 'Content-Disposition',
  'content-encoding': 'Content-Encoding',
  'content-language': 'Content-Language',
  expires: 'Expires',
  'x-amz-website-redirect-location': 'x-amz-website-redirect-location',
};

/** Bodies up to this size are read in one pread and sent with one end(). */
const SMALL_BODY = 256 * 1024;

function objectHeaders(ctx: S3Context, p: GetObjectParams, bucket: S3Bucket, version: S3Object, whole: boolean): Array<readonly [string, string]> {
  const r = version.attrs;
  const h: Array<readonly [string, string]> = [
    ['Last-Modified', httpDate(version.lastModified)],
    ['ETag', `"${version.etag}"`],
    ['Accept-Ranges', 'bytes'],
  ];
  // once versioning was configured, even the null version names itself (s3.md §3.0.7)
  if (version.versionId !== NULL_VERSION || bucket.versioning !== 'Unversioned') h.push(['x-amz-version-id', version.versionId]);
  const overrides = new Map<string, string>();
  for (const { header, value } of p.overrides) overrides.set(header, value);
  h.push(['Content-Type', overrides.get('Content-Type') ?? r.contentType]);
  for (const [name, value] of Object.entries(r.headers)) {
    const header = STORED_HEADER_NAMES[name];
    if (header && !overrides.has(header)) h.push([header, value]);
  }
  for (const [header, value] of overrides) if (header !== 'Content-Type') h.push([header, value]);
  for (const [name, value] of Object.entries(r.meta)) h.push([`x-amz-meta-${name}`, value]);
  h.push(...lockHeaders(r));
  const expiration = expirationHeader(lifecycleRulesOf(bucket), version, ctx.services.config.lifecycle.dayMs);
  if (expiration) h.push(['x-amz-expiration', expiration]);
  if (r.storageClass !== 'STANDARD') h.push(['x-amz-storage-class', r.storageClass]);
  h.push(...walrusHeaders(version));
  if (r.tags && r.tags.length > 0) h.push(['x-amz-tagging-count', String(r.tags.length)]);
  if (whole && r.checksum && p.checksumMode) {
    h.push([`x-amz-checksum-${r.checksum.algorithm.toLowerCase()}`, r.checksum.value]);
    h.push(['x-amz-checksum-type', r.checksum.type]);
  }
  return h;
}

export async function handleGetObject(ctx: S3Context, p: GetObjectParams): Promise<void> {
  const { versionId, partNumber } = p;
  const bucket = bucketOf(ctx);
  const key = ctx.resource.key!;
  const found = ctx.services.store.getObject(bucket.name, key, versionId);
  if (!found || found.deleteMarker) {
    // without bucket READ a missing key is AccessDenied, so keys cannot be probed (s3.md §2.13)
    if (!canListBucket(ctx, bucket)) throw new S3Error('AccessDenied');
    if (found) throw deleteMarkerError(found, versionId !== undefined, key, ctx.head.method);
    if (versionId !== undefined && versionId !== 'null') throw new S3Error('NoSuchVersion', { Key: key, VersionId: versionId });
    throw new S3Error('NoSuchKey', { Key: key });
  }
  requireObjectAccess(ctx, bucket, found);
  // a damaged object is refused whole, HEAD included: its metadata describes bytes that are gone
  if (found.damaged) throw objectDamaged(key);
  const dataKey = await dataKeyForRead(ctx, found);
  const size = objectSize(found);
  // both checks follow the object's lookup and access check, as S3's answers do
  if (ctx.principal.kind === 'anonymous' && p.overrides.length > 0) {
    throw new S3Error('InvalidRequest', {}, {
      message: 'Request specific response headers cannot be used for anonymous GET requests.',
    });
  }
  for (const { param, value } of p.overrides) {
    if (!isSafeFieldValue(value)) {
      throw new S3Error('InvalidArgument', { ArgumentName: param }, { message: `${param} must not contain control characters such as CR or LF.` });
    }
  }
  if (evaluateReadConditions(ctx.headers, found.etag, found.lastModified, Date.now()) === 'not-modified') {
    return send(ctx, 304, [
      ['ETag', `"${found.etag}"`],
      ['Last-Modified', httpDate(found.lastModified)],
    ]);
  }
  let range: ByteRange | undefined;
  let status = 200;
  const extra: Array<readonly [string, string]> = [];
  if (partNumber !== undefined) {
    range = partRange(found, partNumber);
    extra.push(['x-amz-mp-parts-count', String(found.attrs.parts?.length ?? 1)]);
  } else {
    range = parseRange(p.range, size);
  }
  if (range) {
    status = 206;
    extra.push(['Content-Range', `bytes ${range.start}-${range.end}/${size}`]);
  }
  extra.push(...encryptionHeaders(found.attrs.encryption));
  const headers = [
    ...commonHeaders(ctx, ctx.services.config.serverHeader),
    ...objectHeaders(ctx, p, bucket, found, range === undefined),
    ...extra,
  ];
  const start = range?.start ?? 0;
  const end = range ? range.end + 1 : size;
  const length = end - start;
  if (ctx.head.method === 'HEAD') return ctx.ex.sendHead(status, headers, length);
  const reader = openObjectRead(ctx.services, found, dataKey, start, end);
  try {
    if (length <= SMALL_BODY) {
      // a small body's one block is mostly read synchronously: no promise round trips
      const first = length === 0 ? Buffer.alloc(0) : reader.readNow?.(length);
      ctx.ex.send(status, headers, first?.length === length ? first : await readWhole(reader, length, first));
    } else if (found.attrs.walrus) {
      // the first blob read can fail (a lapsed blob, too few nodes): fail before the status line goes out
      let held: Buffer | null | undefined = await reader.read(length);
      await ctx.ex.stream(status, headers, length, (max) => {
        if (!held) return reader.read(max);
        const out = held.subarray(0, max);
        held = out.length < held.length ? held.subarray(out.length) : undefined;
        return Promise.resolve(out);
      });
    } else {
      await ctx.ex.stream(status, headers, length, (max) => reader.read(max));
    }
  } finally {
    reader.close();
  }
}

export const handleHeadObject = handleGetObject;

/**
 * `length` bytes of `reader` as one buffer: the store's reader gives them in one read, the SSE reader
 * block by block. `read`: what `readNow` gave already, if anything.
 */
async function readWhole(reader: BodyReader, length: number, read?: Buffer | null): Promise<Buffer> {
  if (length === 0) return Buffer.alloc(0);
  const first = read === undefined ? await reader.read(length) : read;
  if (first && first.length === length) return first;
  // a reader's buffer is valid until its next call: keep copies
  const parts = first ? [Buffer.from(first)] : [];
  let got = first?.length ?? 0;
  while (first && got < length) {
    const chunk = await reader.read(length - got);
    if (!chunk || chunk.length === 0) break;
    parts.push(Buffer.from(chunk));
    got += chunk.length;
  }
  if (got !== length) throw new Error(`short read: ${got} of ${length}`);
  return Buffer.concat(parts, got);
}

/**
 * Part N's bytes: a multipart object's parts are in its attrs; any other object is one part, whose
 * whole content is a 206, or a 200 when empty (s3.md §3.0.6, §8 #12).
 */
function partRange(found: S3Object, partNumber: number): ByteRange | undefined {
  const parts = found.attrs.parts;
  const count = parts?.length ?? 1;
  if (partNumber > count) throw new S3Error('InvalidPartNumber', { PartNumberRequested: partNumber, ActualPartCount: count });
  if (!parts) return objectSize(found) > 0 ? { start: 0, end: objectSize(found) - 1 } : undefined;
  let start = 0;
  for (let i = 0; i < partNumber - 1; i++) start += parts[i]!.size;
  const size = parts[partNumber - 1]!.size;
  return size > 0 ? { start, end: start + size - 1 } : undefined;
}

/** A delete marker: 404 NoSuchKey as the latest version, 405 when asked for by id (s3.md §3.0.7). */
function deleteMarkerError(marker: S3Object, byId: boolean, key: string, method: string): S3Error {
  const headers = { 'x-amz-delete-marker': 'true', 'x-amz-version-id': marker.versionId };
  if (!byId) return new S3Error('NoSuchKey', { Key: key }, { headers });
  return new S3Error('MethodNotAllowed', { Method: method, ResourceType: 'DeleteMarker' }, {
    headers: { ...headers, 'Last-Modified': httpDate(marker.lastModified), Allow: 'DELETE' },
  });
}
