// The decoded request body of a PUT/POST: raw or aws-chunked (s3.md §1.7, §2.6–2.8), streamed
// chunk by chunk from the exchange, with its declared length enforced.

import { createHash } from 'node:crypto';
import { AwsChunkedDecoder, contentSha256MismatchError, describeBody, type BodyDescription } from './sigv4/index.js';
import { digestsNeeded, planChecksums, verifyChecksums } from './checksums.js';
import type { S3Context } from './context.js';
import { S3Error } from './errors/errors.js';

export interface RequestBody {
  /** decoded payload length */
  length: number;
  /** Content-Encoding to store: the request's list without `aws-chunked` (s3.md §2.7) */
  contentEncoding?: string;
  /** trailer header name declared by `x-amz-trailer` */
  trailer?: string;
  /** lower-case hex SHA-256 the payload must have (signed raw payloads) */
  expectedSha256?: string;
  /** Next decoded chunk, or null after the last one. Throws IncompleteBody / signature errors. */
  next(): Promise<Buffer | null>;
  /** After next() returned null: the parsed trailers (lower-case names). */
  finish(): Record<string, string>;
}

/**
 * Validates the framing headers (length required, ≤ maxLength, aws-chunked rules) before any body
 * byte is read, and returns the body as a stream of decoded chunks.
 */
export function openRequestBody(ctx: S3Context, maxLength: number, lengthRequired = true): RequestBody {
  const h = ctx.headers;
  const payload = ctx.auth.kind === 'signed' ? ctx.auth.payload : ({ kind: 'unsigned' } as const);
  const bodyless =
    !lengthRequired && h['content-length'] === undefined && h['transfer-encoding'] === undefined &&
    h['x-amz-decoded-content-length'] === undefined;
  const description: BodyDescription = bodyless ? { encoding: 'raw', decodedLength: 0 } : describeBody(ctx.head, ctx.auth);
  const length = description.decodedLength;
  if (length > maxLength) throw new S3Error('EntityTooLarge', { ProposedSize: length, MaxSizeAllowed: maxLength });
  const trailer = description.declaredTrailer;
  const ex = ctx.ex;
  let received = 0;

  if (description.encoding === 'raw') {
    return {
      length,
      contentEncoding: description.storedContentEncoding,
      expectedSha256: payload.kind === 'sha256' ? payload.expectedHex : undefined,
      async next() {
        const chunk = await ex.nextBodyChunk();
        if (chunk === null) {
          if (received !== length) throw new S3Error('IncompleteBody');
          return null;
        }
        received += chunk.length;
        if (received > length) throw new S3Error('IncompleteBody', {}, { close: true });
        return chunk;
      },
      finish: () => ({}),
    };
  }

  const auth = ctx.auth.kind === 'signed' ? ctx.auth : undefined;
  const decoder = new AwsChunkedDecoder({
    decodedLength: length,
    trailer,
    signed:
      payload.kind === 'streaming-signed' && auth
        ? { signingKey: auth.signingKey, requestTime: auth.requestTime, scope: auth.scope, seedSignature: auth.seedSignature }
        : undefined,
  });
  const ready: Buffer[] = [];
  let trailers: Record<string, string> | undefined;
  return {
    length,
    contentEncoding: description.storedContentEncoding,
    trailer,
    async next() {
      while (ready.length === 0) {
        if (trailers) return null;
        const raw = await ex.nextBodyChunk();
        if (raw === null) {
          trailers = decoder.end().trailers;
          return null;
        }
        decoder.push(raw, (slice) => ready.push(slice));
      }
      return ready.shift()!;
    },
    finish: () => trailers ?? {},
  };
}

/** Reads a whole small body (XML requests); MaxMessageLengthExceeded past `max`. */
export async function readSmallBody(ctx: S3Context, max: number): Promise<Buffer> {
  return (await readWholeBody(ctx, max)).all;
}

/**
 * A small body whose integrity S3 requires (PutBucketCors, DeleteObjects: s3.md §3.0.2): Content-MD5
 * or a flexible checksum must be present and match.
 */
export function readIntegrityCheckedBody(ctx: S3Context, max: number): Promise<Buffer> {
  return readCheckedBody(ctx, max, true);
}

/** A small body checked against its Content-MD5 or flexible checksum when it has one (`required`: it must). */
export async function readCheckedBody(ctx: S3Context, max: number, required: boolean): Promise<Buffer> {
  const h = ctx.headers;
  const plan = planChecksums(h, h['x-amz-trailer']);
  if (required && !plan.contentMd5 && !plan.algorithm) {
    throw new S3Error('InvalidRequest', {}, { message: 'Missing required header for this request: Content-MD5 OR x-amz-checksum-*' });
  }
  const { all, trailers } = await readWholeBody(ctx, max);
  if (plan.contentMd5 || plan.algorithm) {
    const hasher = ctx.services.digester.create(digestsNeeded(plan, false));
    await hasher.update(all);
    verifyChecksums(plan, hasher.digest(), trailers);
  }
  return all;
}

async function readWholeBody(ctx: S3Context, max: number): Promise<{ all: Buffer; trailers: Record<string, string> }> {
  const body = openRequestBody(ctx, Number.MAX_SAFE_INTEGER, false);
  if (body.length > max) throw new S3Error('MaxMessageLengthExceeded', {}, { close: true });
  const parts: Buffer[] = [];
  for (;;) {
    const chunk = await body.next();
    if (!chunk) break;
    parts.push(chunk);
  }
  const trailers = body.finish();
  const all = Buffer.concat(parts);
  if (body.expectedSha256 !== undefined) {
    const got = createHash('sha256').update(all).digest('hex');
    if (got !== body.expectedSha256) {
      throw contentSha256MismatchError(body.expectedSha256, got);
    }
  }
  return { all, trailers };
}
