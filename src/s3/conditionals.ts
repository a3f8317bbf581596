// Read conditionals with S3's precedence (s3.md §3.0.5, AWS GetObject doc) and ETag comparison (§3.0.1).

import { S3Error } from './errors/errors.js';

/** Strips quotes and a W/ prefix, lower-cases (s3.md §3.0.1). */
export function normalizeEtag(value: string): string {
  let v = value.trim();
  if (v.startsWith('W/')) v = v.slice(2);
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
  return v.toLowerCase();
}

function etagListMatches(header: string, etag: string): boolean {
  return header.split(',').some((item) => {
    const t = item.trim();
    return t === '*' || normalizeEtag(t) === etag;
  });
}

/** Whole seconds of an HTTP date; undefined when unparseable or later than now (ignored, RFC 9110; s3.md §8 #5). */
function parseDateSeconds(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || ms > nowMs) return undefined;
  return Math.floor(ms / 1000);
}

export type ReadConditionOutcome = 'ok' | 'not-modified';

/**
 * Evaluates If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since in S3's order.
 * Throws PreconditionFailed; returns 'not-modified' for a 304.
 */
export function evaluateReadConditions(
  headers: Readonly<Record<string, string>>,
  etag: string,
  lastModifiedMs: number,
  nowMs: number,
): ReadConditionOutcome {
  const lm = Math.floor(lastModifiedMs / 1000);
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    if (!etagListMatches(ifMatch, etag)) throw new S3Error('PreconditionFailed', { Condition: 'If-Match' });
  } else {
    const ius = parseDateSeconds(headers['if-unmodified-since'], nowMs);
    if (ius !== undefined && lm > ius) throw new S3Error('PreconditionFailed', { Condition: 'If-Unmodified-Since' });
  }
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    if (etagListMatches(ifNoneMatch, etag)) return 'not-modified';
  } else {
    const ims = parseDateSeconds(headers['if-modified-since'], nowMs);
    if (ims !== undefined && lm <= ims) return 'not-modified';
  }
  return 'ok';
}
