// The aggregator's Range support (walrus.md §11): exactly one `bytes=a-b` range with both ends;
// open (`a-`), suffix (`-b`) and multiple ranges are refused with 416 INVALID_BYTE_RANGE.

import { PublisherError } from './errors.js';

export interface ByteRange {
  start: number;
  /** inclusive */
  end: number;
}

const SINGLE_RANGE = /^bytes=([0-9]{1,15})-([0-9]{1,15})$/;

/** undefined when there is no Range header; an end past the blob is cut to its last byte (RFC 9110 §14.1.2). */
export function parseByteRange(header: string | undefined, total: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const m = SINGLE_RANGE.exec(header.trim());
  const start = m ? Number(m[1]) : NaN;
  const end = m ? Number(m[2]) : NaN;
  if (!m || start > end || start >= total) {
    throw new PublisherError('INVALID_BYTE_RANGE', `'${header}' for a blob of ${total} bytes`, { size: String(total) });
  }
  return { start, end: Math.min(end, total - 1) };
}
