// The aggregator's Range support (walrus.md §11): exactly one `bytes=a-b` range with both ends,
// inside the blob; open (`a-`), suffix (`-b`), multiple ranges and an end past the blob are refused
// with 416 INVALID_BYTE_RANGE, as the Walrus aggregator refuses them (its byte-range reader's
// "byte range out of bounds", walrus-sdk byte_range_read_client.rs) rather than cutting the range.

import { PublisherError } from './errors.js';

export interface ByteRange {
  start: number;
  /** inclusive */
  end: number;
}

const SINGLE_RANGE = /^bytes=([0-9]{1,15})-([0-9]{1,15})$/;

/** undefined when there is no Range header. */
export function parseByteRange(header: string | undefined, total: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const m = SINGLE_RANGE.exec(header.trim());
  const start = m ? Number(m[1]) : NaN;
  const end = m ? Number(m[2]) : NaN;
  if (!m || start > end || end >= total) {
    throw new PublisherError('INVALID_BYTE_RANGE', `'${header}' for a blob of ${total} bytes`, { size: String(total) });
  }
  return { start, end };
}
