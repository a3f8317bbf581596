// The segment file byte layout, format version 1 (docs/FORMAT.md is the normative table).
// All integers are little-endian; 64-bit fields hold values < 2^48 (upper two bytes zero).

import type { Crc32c } from './crc32c.js';

export const FORMAT_VERSION = 1;

export const SEGMENT_MAGIC = Buffer.from('TUSK-SEG', 'latin1');
export const SEGMENT_HEADER_SIZE = 32;

export const RECORD_MAGIC = 0x43455254; // 'TREC'
export const RECORD_HEADER_SIZE = 32;

export const TRAILER_MAGIC = 0x444e4554; // 'TEND'
/** Trailer bytes besides the key: 24 fixed + 4 CRC. */
export const TRAILER_FIXED_SIZE = 28;

/** Records start on 8-byte boundaries so a scanner can resynchronise after a hole. */
export const RECORD_ALIGN = 8;

/** Longest record key: bucket name (63) + 0x00 + object key (1024), s3.md §1.4. */
export const MAX_BUCKET_BYTES = 63;
export const MAX_OBJECT_KEY_BYTES = 1024;
export const MAX_RECORD_KEY_BYTES = MAX_BUCKET_BYTES + 1 + MAX_OBJECT_KEY_BYTES;

/** Trailer kind: the record holds a body (of an object version or a part). */
export const RECORD_KIND_OBJECT = 0;
/** Trailer kind: the record holds a redo operation (msgpack, src/store/redo-ops.ts) and no body. */
export const RECORD_KIND_OP = 1;

export function align(n: number): number {
  return Math.ceil(n / RECORD_ALIGN) * RECORD_ALIGN;
}

/** Bytes a record occupies when its key length is known (bodies written at commit). */
export function exactRecordLength(bodyLength: number, keyLength: number): number {
  return align(RECORD_HEADER_SIZE + bodyLength + TRAILER_FIXED_SIZE + keyLength);
}

/** Bytes reserved for a streamed body, whose key is only known at commit. */
export function reservedRecordLength(bodyLength: number): number {
  return exactRecordLength(bodyLength, MAX_RECORD_KEY_BYTES);
}

function writeU48(buf: Buffer, value: number, offset: number): void {
  buf.writeUIntLE(value, offset, 6);
  buf.writeUInt16LE(0, offset + 6);
}

function readU48(buf: Buffer, offset: number): number | undefined {
  return buf.readUInt16LE(offset + 6) === 0 ? buf.readUIntLE(offset, 6) : undefined;
}

export function encodeSegmentHeader(segment: number, created: number, crc32c: Crc32c): Buffer {
  const b = Buffer.alloc(SEGMENT_HEADER_SIZE);
  SEGMENT_MAGIC.copy(b, 0);
  b.writeUInt16LE(FORMAT_VERSION, 8);
  b.writeUInt16LE(0, 10);
  b.writeUInt32LE(segment, 12);
  writeU48(b, created, 16);
  b.writeUInt32LE(crc32c(b.subarray(0, 28), 0), 28);
  return b;
}

export interface SegmentHeader {
  version: number;
  segment: number;
  created: number;
}

export function decodeSegmentHeader(b: Buffer, crc32c: Crc32c): SegmentHeader | undefined {
  if (b.length < SEGMENT_HEADER_SIZE || !b.subarray(0, 8).equals(SEGMENT_MAGIC)) return undefined;
  if (b.readUInt32LE(28) !== crc32c(b.subarray(0, 28), 0)) return undefined;
  const created = readU48(b, 16);
  if (created === undefined) return undefined;
  return { version: b.readUInt16LE(8), segment: b.readUInt32LE(12), created };
}

export interface RecordHeader {
  version: number;
  flags: number;
  bodyLength: number;
  recordLength: number;
}

export function encodeRecordHeader(bodyLength: number, recordLength: number, crc32c: Crc32c): Buffer {
  const b = Buffer.alloc(RECORD_HEADER_SIZE);
  b.writeUInt32LE(RECORD_MAGIC, 0);
  b.writeUInt16LE(FORMAT_VERSION, 4);
  b.writeUInt16LE(0, 6);
  writeU48(b, bodyLength, 8);
  writeU48(b, recordLength, 16);
  b.writeUInt32LE(0, 24);
  b.writeUInt32LE(crc32c(b.subarray(0, 28), 0), 28);
  return b;
}

export function decodeRecordHeader(b: Buffer, crc32c: Crc32c): RecordHeader | undefined {
  if (b.length < RECORD_HEADER_SIZE || b.readUInt32LE(0) !== RECORD_MAGIC) return undefined;
  if (b.readUInt32LE(28) !== crc32c(b.subarray(0, 28), 0)) return undefined;
  const bodyLength = readU48(b, 8);
  const recordLength = readU48(b, 16);
  if (bodyLength === undefined || recordLength === undefined) return undefined;
  if (recordLength % RECORD_ALIGN !== 0 || recordLength < RECORD_HEADER_SIZE + bodyLength + TRAILER_FIXED_SIZE) {
    return undefined;
  }
  return { version: b.readUInt16LE(4), flags: b.readUInt16LE(6), bodyLength, recordLength };
}

export interface RecordTrailer {
  kind: number;
  bodyCrc32c: number;
  committed: number;
  /** bucket 0x00 key, UTF-8 */
  key: Buffer;
}

/** `length` (default: exact) zero-pads the trailer to the record's end, so a file always ends on a record boundary. */
export function encodeTrailer(
  recordKey: Buffer,
  bodyCrc32c: number,
  committed: number,
  crc32c: Crc32c,
  length = TRAILER_FIXED_SIZE + recordKey.length,
  kind = RECORD_KIND_OBJECT,
): Buffer {
  const b = Buffer.alloc(length);
  b.writeUInt32LE(TRAILER_MAGIC, 0);
  b.writeUInt16LE(recordKey.length, 4);
  b.writeUInt16LE(kind, 6);
  b.writeUInt32LE(bodyCrc32c, 8);
  b.writeUInt32LE(0, 12);
  writeU48(b, committed, 16);
  recordKey.copy(b, 24);
  const end = 24 + recordKey.length;
  b.writeUInt32LE(crc32c(b.subarray(0, end), 0), end);
  return b;
}

/** `b` starts at the trailer and holds at least TRAILER_FIXED_SIZE + MAX_RECORD_KEY_BYTES bytes or up to the file end. */
export function decodeTrailer(b: Buffer, crc32c: Crc32c): RecordTrailer | undefined {
  if (b.length < TRAILER_FIXED_SIZE || b.readUInt32LE(0) !== TRAILER_MAGIC) return undefined;
  const keyLength = b.readUInt16LE(4);
  const end = 24 + keyLength;
  if (keyLength > MAX_RECORD_KEY_BYTES || b.length < end + 4) return undefined;
  if (b.readUInt32LE(end) !== crc32c(b.subarray(0, end), 0)) return undefined;
  const committed = readU48(b, 16);
  if (committed === undefined) return undefined;
  return { kind: b.readUInt16LE(6), bodyCrc32c: b.readUInt32LE(8), committed, key: Buffer.from(b.subarray(24, end)) };
}
