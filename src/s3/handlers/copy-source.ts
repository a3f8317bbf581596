// The source of CopyObject and UploadPartCopy (s3.md §3.18, §3.22): `x-amz-copy-source`, its
// version id, the `x-amz-copy-source-if-*` conditionals and `x-amz-copy-source-range`.

import { percentDecode } from '../../http/query.js';
import { checkExpectedOwner } from '../access.js';
import { requireReadable } from '../authz/request.js';
import { evaluateReadConditions } from '../conditionals.js';
import type { S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { objectDamaged } from '../store-errors.js';
import type { S3Object } from '../object-attrs.js';
import type { RequestBody } from '../request-body.js';
import { copySourceDataKey } from '../sse/sse.js';
import { openObjectRead } from './object-read.js';
import { isVersionId } from '../routes/version-id.js';
import type { BucketRecord } from '../../store/types.js';

/** Largest CopyObject source and UploadPartCopy range (s3.md §6). */
export const MAX_COPY_BYTES = 5 * 1024 ** 3;

export interface CopySource {
  bucket: BucketRecord;
  key: string;
  /** the version id the request named, if any */
  requestedVersionId?: string;
  object: S3Object;
}

function malformed(value: string): S3Error {
  return new S3Error('InvalidArgument', { ArgumentName: 'x-amz-copy-source', ArgumentValue: value }, {
    message: 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
  });
}

/** `[/]<bucket>/<key>[?versionId=<id>]`: split at the first `?`, percent-decode the left part. */
export function parseCopySourceHeader(raw: string): { bucket: string; key: string; versionId?: string } {
  const q = raw.indexOf('?');
  const left = q < 0 ? raw : raw.slice(0, q);
  const decoded = percentDecode(left, false);
  if (decoded === undefined) throw malformed(raw);
  const path = decoded.startsWith('/') ? decoded.slice(1) : decoded;
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1) throw malformed(raw);
  const out: { bucket: string; key: string; versionId?: string } = { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
  if (q >= 0) {
    for (const pair of raw.slice(q + 1).split('&')) {
      const [name, value = ''] = pair.split('=');
      if (name !== 'versionId') continue;
      if (value !== 'null' && !isVersionId(value)) {
        throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-copy-source', ArgumentValue: raw }, { message: 'Invalid version id specified' });
      }
      out.versionId = value;
    }
  }
  return out;
}

const COPY_CONDITIONS: ReadonlyArray<readonly [string, string]> = [
  ['x-amz-copy-source-if-match', 'if-match'],
  ['x-amz-copy-source-if-none-match', 'if-none-match'],
  ['x-amz-copy-source-if-modified-since', 'if-modified-since'],
  ['x-amz-copy-source-if-unmodified-since', 'if-unmodified-since'],
];

/** The source object, readable by the caller, its copy conditionals met (all failures 412, s3.md §3.18). */
export function resolveCopySource(ctx: S3Context): CopySource {
  const raw = ctx.headers['x-amz-copy-source']!;
  const parsed = parseCopySourceHeader(raw);
  const bucket = ctx.services.store.getBucket(parsed.bucket);
  if (!bucket) throw new S3Error('NoSuchBucket', { BucketName: parsed.bucket });
  checkExpectedOwner(ctx, bucket, 'x-amz-source-expected-bucket-owner');
  const found = ctx.services.store.getObject(bucket.name, parsed.key, parsed.versionId);
  if (!found) {
    if (parsed.versionId !== undefined && parsed.versionId !== 'null') {
      throw new S3Error('NoSuchVersion', { Key: parsed.key, VersionId: parsed.versionId });
    }
    throw new S3Error('NoSuchKey', { Key: parsed.key });
  }
  if (found.deleteMarker) {
    if (parsed.versionId === undefined) throw new S3Error('NoSuchKey', { Key: parsed.key });
    throw new S3Error('InvalidRequest', {}, {
      message: 'The source of a copy request may not specifically refer to a delete marker by version id.',
    });
  }
  requireReadable(ctx, bucket, found, parsed.versionId !== undefined);
  if (found.damaged) throw objectDamaged(parsed.key);
  const conditions: Record<string, string> = {};
  for (const [copyName, name] of COPY_CONDITIONS) {
    const v = ctx.headers[copyName];
    if (v !== undefined) conditions[name] = v;
  }
  // a copy whose source "was not modified" is a failed precondition too, never a 304 (s3.md §3.18)
  if (evaluateReadConditions(conditions, found.etag, found.lastModified, Date.now()) === 'not-modified') {
    throw new S3Error('PreconditionFailed', { Condition: 'x-amz-copy-source-If-None-Match' });
  }
  const source: CopySource = { bucket, key: parsed.key, object: found };
  if (parsed.versionId !== undefined) source.requestedVersionId = parsed.versionId;
  return source;
}

/** Plaintext bytes read from a copy's source per step. */
const COPY_CHUNK = 1 << 20;

/**
 * Plaintext bytes [start, end) of a copy's source as a request body, for a copy that writes them
 * anew (a part copy, a copy that encrypts otherwise): an encrypted source is opened with its key
 * (SSE-C: the x-amz-copy-source-server-side-encryption-customer-* headers). Each chunk is the
 * caller's own (the reader reuses its buffers); `close` ends the read early.
 */
export async function openCopySourceBody(ctx: S3Context, object: S3Object, start: number, end: number): Promise<{ body: RequestBody; close(): void }> {
  const dataKey = await copySourceDataKey(ctx, object);
  const reader = openObjectRead(ctx.services, object, dataKey, start, end);
  let at = start;
  return {
    body: {
      length: end - start,
      async next() {
        if (at >= end) return null;
        const chunk = await reader.read(Math.min(COPY_CHUNK, end - at));
        if (!chunk || chunk.length === 0) throw new Error(`stored body ended early at ${at} of ${end}`);
        at += chunk.length;
        return Buffer.from(chunk);
      },
      finish: () => ({}),
    },
    close: () => reader.close(),
  };
}

/** `x-amz-copy-source-range: bytes=first-last`, both inclusive and required; the whole source when absent. */
export function copySourceRange(header: string | undefined, size: number): { start: number; end: number } {
  if (header === undefined) return { start: 0, end: size };
  const m = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
  const first = m ? Number(m[1]) : NaN;
  const last = m ? Number(m[2]) : NaN;
  if (!m || first > last || last >= size || last - first + 1 > MAX_COPY_BYTES) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: header }, {
      message: `Range specified is not valid for source object of size: ${size}`,
    });
  }
  return { start: first, end: last + 1 };
}
