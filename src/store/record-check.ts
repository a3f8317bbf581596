// Checks one record in a segment file without the index (recovery, scrubbing): header CRC, trailer
// CRC, body CRC32C. Synchronous: used at start-up and by offline tools, never on the request path.

import type { Crc32c } from './crc32c.js';
import { preadFullSync } from './fd-io.js';
import {
  RECORD_ALIGN,
  decodeRecordHeader,
  decodeTrailer,
  MAX_RECORD_KEY_BYTES,
  RECORD_HEADER_SIZE,
  TRAILER_FIXED_SIZE,
  type RecordHeader,
  type RecordTrailer,
} from './format.js';

export type RecordCheck =
  /** header, trailer and body CRC all hold */
  | { status: 'valid'; header: RecordHeader; trailer: RecordTrailer }
  /** a reserved extent whose writer never committed (aborted, or killed mid-write) */
  | { status: 'uncommitted'; header: RecordHeader }
  /** header and trailer hold but the body does not match its CRC32C */
  | { status: 'corrupt'; header: RecordHeader; trailer: RecordTrailer }
  /** no record header here: torn header, hole, or end of data */
  | { status: 'invalid' };

const CHUNK = 1 << 20;

/** `checkBody` false: header and trailer only (a body read back whole is the caller's to check). */
export function checkRecordSync(fd: number, offset: number, fileSize: number, crc32c: Crc32c, checkBody = true): RecordCheck {
  const headerBuf = Buffer.alloc(RECORD_HEADER_SIZE);
  if (preadFullSync(fd, headerBuf, RECORD_HEADER_SIZE, offset) < RECORD_HEADER_SIZE) return { status: 'invalid' };
  const header = decodeRecordHeader(headerBuf, crc32c);
  if (!header) return { status: 'invalid' };

  const bodyStart = offset + RECORD_HEADER_SIZE;
  const trailerStart = bodyStart + header.bodyLength;
  const trailerMax = Math.max(0, Math.min(TRAILER_FIXED_SIZE + MAX_RECORD_KEY_BYTES, fileSize - trailerStart));
  const trailerBuf = Buffer.alloc(trailerMax);
  const got = preadFullSync(fd, trailerBuf, trailerMax, trailerStart);
  const trailer = decodeTrailer(trailerBuf.subarray(0, got), crc32c);
  if (!trailer) return { status: 'uncommitted', header };
  if (!checkBody) return { status: 'valid', header, trailer };

  const chunk = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, header.bodyLength)));
  let crc = 0;
  for (let pos = 0; pos < header.bodyLength; ) {
    const want = Math.min(chunk.length, header.bodyLength - pos);
    const n = preadFullSync(fd, chunk, want, bodyStart + pos);
    if (n < want) return { status: 'uncommitted', header };
    crc = crc32c(chunk.subarray(0, n), crc);
    pos += n;
  }
  return crc === trailer.bodyCrc32c ? { status: 'valid', header, trailer } : { status: 'corrupt', header, trailer };
}

const ZEROS_WINDOW = 64 * 1024;

/**
 * Where to look for a record after finding none at `pos`: the next RECORD_ALIGN boundary, or past
 * the zeros that follow it. Extents granted and never written (a thread's lease when it stopped, a
 * crash) are holes of zeros, skipped a window at a time rather than one boundary per read. A
 * record starts with its nonzero magic, so none lies inside zeros.
 */
export function nextRecordStart(fd: number, pos: number, fileSize: number): number {
  const window = Buffer.allocUnsafe(ZEROS_WINDOW);
  for (let at = pos + RECORD_ALIGN; at < fileSize; ) {
    const n = preadFullSync(fd, window, Math.min(ZEROS_WINDOW, fileSize - at), at);
    if (n === 0) break;
    let i = 0;
    while (i < n && window[i] === 0) i++;
    if (i < n) return at + i - (i % RECORD_ALIGN);
    at += n;
  }
  return fileSize;
}
