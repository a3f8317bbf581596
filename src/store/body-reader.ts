// Streams bytes [start, end) of an object's extents with pread. One buffer per reader, sized to the
// smaller of the range and the chunk limit, reused for every read: a small range is one read into an
// exact-size buffer, a large one a sequence of chunks whose memory does not grow with the body.

import { S3Error } from '../s3/errors.js';
import { preadFull } from './fd-io.js';
import type { SegmentFile, SegmentFiles } from './segment-files.js';
import type { BodyReader, Extent, ObjectRecord } from './types.js';

export const READ_CHUNK_MAX = 1 << 20;

interface Piece {
  segment: number;
  /** file offset of the first byte still to read */
  position: number;
  remaining: number;
}

export class SegmentBodyReader implements BodyReader {
  private readonly pieces: Piece[] = [];
  private readonly held: SegmentFile[] = [];
  private index = 0;
  private buffer: Buffer | undefined;
  private closed = false;
  private readonly total: number;

  constructor(
    private readonly files: SegmentFiles,
    record: ObjectRecord,
    start: number,
    end: number,
  ) {
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && 0 <= start && start <= end && end <= record.size)) {
      throw new S3Error('InvalidRange');
    }
    this.total = end - start;
    let base = 0;
    for (const extent of record.extents) {
      this.addPiece(extent, base, start, end);
      base += extent.length;
    }
  }

  async read(maxBytes: number): Promise<Buffer | null> {
    if (this.closed) throw new Error('read after close');
    let piece = this.pieces[this.index];
    while (piece && piece.remaining === 0) piece = this.pieces[++this.index];
    if (!piece || maxBytes <= 0) return piece ? Buffer.alloc(0) : null;
    this.buffer ??= Buffer.allocUnsafe(Math.min(this.total, READ_CHUNK_MAX));
    const want = Math.min(maxBytes, piece.remaining, this.buffer.length);
    const file = this.files.get(piece.segment);
    const fd = file.fd ?? (await file.ready);
    const got = await preadFull(fd, this.buffer, want, piece.position);
    if (got < want) throw new Error(`segment ${piece.segment} ends before offset ${piece.position + want}`);
    piece.position += got;
    piece.remaining -= got;
    return this.buffer.subarray(0, got);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = undefined;
    for (const file of this.held) this.files.release(file);
  }

  private addPiece(extent: Extent, base: number, start: number, end: number): void {
    const from = Math.max(start, base);
    const to = Math.min(end, base + extent.length);
    if (from >= to) return;
    this.pieces.push({ segment: extent.segment, position: extent.offset + (from - base), remaining: to - from });
    if (!this.held.some((f) => f.segment === extent.segment)) this.held.push(this.files.acquire(extent.segment));
  }
}
