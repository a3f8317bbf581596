// GetObject and HeadObject (s3.md §3.14–3.15): version id, partNumber, conditionals, Range, response
// overrides, stored headers and checksums; the body is streamed from its extent with back-pressure.

import { canBucket, canReadObject } from '../access.js';
import { bucketOf, type S3Context } from '../context.js';
import { evaluateReadConditions } from '../conditionals.js';
import { S3Error } from '../errors.js';
import { dataKeyForRead, encryptionHeaders, objectSize, openUnsealedRead } from '../sse/sse.js';
import { commonHeaders, send } from '../respond.js';
import { parseRange, type ByteRange } from '../range.js';
import { httpDate } from '../xml.js';
import { requestedVersionId } from './version-id.js';
import type { ObjectRecord } from '../../store/types.js';

const RESPONSE_OVERRIDES: ReadonlyArray<readonly [string, string]> = [
  ['response-content-type', 'Content-Type'],
  ['response-content-language', 'Content-Language'],
  ['response-expires', 'Expires'],
  ['response-cache-control', 'Cache-Control'],
  ['response-content-disposition', 'Content-Disposition'],
  ['response-content-encoding', 'Content-Encoding'],
];

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

function parsePartNumber(ctx: S3Context): number | undefined {
  const raw = ctx.query.get('partNumber');
  if (raw === undefined) return undefined;
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 10000)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'partNumber', ArgumentValue: raw }, {
      message: 'Part number must be an integer between 1 and 10000, inclusive',
    });
  }
  if (ctx.headers['range'] !== undefined) {
    throw new S3Error('InvalidRequest', {}, { message: 'Cannot specify both Range header and partNumber query parameter' });
  }
  return n;
}

function objectHeaders(ctx: S3Context, r: ObjectRecord, whole: boolean): Array<readonly [string, string]> {
  const h: Array<readonly [string, string]> = [
    ['Last-Modified', httpDate(r.lastModified)],
    ['ETag', `"${r.etag}"`],
    ['Accept-Ranges', 'bytes'],
  ];
  const overrides = new Map<string, string>();
  for (const [param, header] of RESPONSE_OVERRIDES) {
    const v = ctx.query.get(param);
    if (v !== undefined) overrides.set(header, v);
  }
  h.push(['Content-Type', overrides.get('Content-Type') ?? r.contentType]);
  for (const [name, value] of Object.entries(r.headers)) {
    const header = STORED_HEADER_NAMES[name];
    if (header && !overrides.has(header)) h.push([header, value]);
  }
  for (const [header, value] of overrides) if (header !== 'Content-Type') h.push([header, value]);
  for (const [name, value] of Object.entries(r.meta)) h.push([`x-amz-meta-${name}`, value]);
  if (r.storageClass !== 'STANDARD') h.push(['x-amz-storage-class', r.storageClass]);
  if (whole && r.checksum && (ctx.headers['x-amz-checksum-mode'] ?? '').toUpperCase() === 'ENABLED') {
    h.push([`x-amz-checksum-${r.checksum.algorithm.toLowerCase()}`, r.checksum.value]);
    h.push(['x-amz-checksum-type', r.checksum.type]);
  }
  return h;
}

export async function handleGetObject(ctx: S3Context): Promise<void> {
  const versionId = requestedVersionId(ctx);
  const partNumber = parsePartNumber(ctx);
  const bucket = bucketOf(ctx);
  const key = ctx.resource.key!;
  const record = ctx.services.store.getObject(bucket.name, key);
  const found = record && (versionId === undefined || versionId === record.versionId) ? record : undefined;
  if (!found) {
    // without bucket READ a missing key is AccessDenied, so keys cannot be probed (s3.md §2.13)
    if (!canBucket(ctx.principal, bucket, 'read')) throw new S3Error('AccessDenied');
    if (versionId !== undefined && versionId !== 'null') throw new S3Error('NoSuchVersion', { Key: key, VersionId: versionId });
    throw new S3Error('NoSuchKey', { Key: key });
  }
  if (!canReadObject(ctx.principal, bucket, found.acl)) throw new S3Error('AccessDenied');
  const dataKey = dataKeyForRead(ctx, found);
  const size = objectSize(found);
  if (ctx.principal.kind === 'anonymous' && RESPONSE_OVERRIDES.some(([p]) => ctx.query.has(p))) {
    throw new S3Error('InvalidRequest', {}, {
      message: 'Request specific response headers cannot be used for anonymous GET requests.',
    });
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
    // a non-multipart object is one part: 206 with its whole content, 200 when empty (s3.md §3.0.6, §8 #12)
    if (partNumber > 1) {
      throw new S3Error('InvalidPartNumber', { PartNumberRequested: partNumber, ActualPartCount: 1 });
    }
    extra.push(['x-amz-mp-parts-count', '1']);
    if (size > 0) range = { start: 0, end: size - 1 };
  } else {
    range = parseRange(ctx.headers['range'], size);
  }
  if (range) {
    status = 206;
    extra.push(['Content-Range', `bytes ${range.start}-${range.end}/${size}`]);
  }
  extra.push(...encryptionHeaders(found.encryption));
  const headers = [
    ...commonHeaders(ctx, ctx.services.config.serverHeader),
    ...objectHeaders(ctx, found, range === undefined),
    ...extra,
  ];
  const start = range?.start ?? 0;
  const end = range ? range.end + 1 : size;
  const length = end - start;
  if (ctx.head.method === 'HEAD') return ctx.ex.sendHead(status, headers, length);
  const reader = dataKey ? openUnsealedRead(ctx.services.store, found, dataKey, start, end) : ctx.services.store.openRead(found, start, end);
  try {
    if (length <= SMALL_BODY) {
      const body = length === 0 ? Buffer.alloc(0) : await reader.read(length);
      if (!body || body.length !== length) throw new Error(`short read: ${body?.length ?? 0} of ${length}`);
      ctx.ex.send(status, headers, body);
    } else {
      await ctx.ex.stream(status, headers, length, (max) => reader.read(max));
    }
  } finally {
    reader.close();
  }
}

export const handleHeadObject = handleGetObject;
