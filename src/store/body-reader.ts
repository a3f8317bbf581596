// Streams bytes [start, end) of a body's extents with pread, block by block: every block the range
// touches is read whole and checked against its CRC32C (index format 2) before any of its bytes is
// returned, so that corrupted bytes never leave the server as good ones. Two buffers per reader at
// most (the chunk the caller holds and the read-ahead), so memory does not grow with the body.

import { BufferShelf } from '../base/buffer-shelf.js';
import type { BlockCache } from './block-cache.js';
import { BLOCK_SIZE } from './block-crcs.js';
import type { Crc32c } from './crc32c.js';
import { StoreError } from './errors.js';
import { preadFull, preadFullSync } from './fd-io.js';
import type { ReadableSegment, SegmentReadTable } from './segment-files.js';
import type { BodyReader, Extent } from './types.js';

export const READ_CHUNK_MAX = BLOCK_SIZE;

/**
 * Bodies up to this size are read with one pread on the event loop, as the LMDB index itself is
 * read through its memory map: a thread-pool round trip costs several times the copy (4 KiB GETs:
 * 8.1k → 14.1k requests/s measured), and the work per read is bounded.
 */
export const SYNC_READ_MAX = 64 * 1024;

/** Block-sized read buffers, reused from reader to reader. A reader gives its buffers back when
 * closed, once no read of its own still fills them. */
const blockBuffers = new BufferShelf(BLOCK_SIZE, 32);

/** The part of one extent the range covers, read in blocks. */
interface Piece {
  extent: Extent;
  /** next block to read, as a body offset within the extent (block-aligned when the extent has CRCs) */
  next: number;
  /** body offsets within the extent of the range's part: [from, to) */
  from: number;
  to: number;
}

export interface ReadContext {
  files: SegmentReadTable;
  crc32c: Crc32c;
  /** called once per block that fails its check, before the read fails */
  onCorrupt(extent: Extent, block: number): void;
  /** small bodies read before, checked */
  cache?: BlockCache;
}

/** blockNow's answer when the block has to be waited for */
const WAIT = Symbol('wait');

interface BlockPlan {
  piece: Piece;
  /** the block's body offsets within the extent */
  blockStart: number;
  blockEnd: number;
  /** what is read of it: the whole block when it has a CRC */
  readFrom: number;
  readTo: number;
  want: number;
  /** in the segment file */
  position: number;
  cache: BlockCache | undefined;
  cached: Buffer | undefined;
  file: ReadableSegment;
}

function readsAtOnce(plan: BlockPlan): boolean {
  return plan.want <= SYNC_READ_MAX && plan.file.fd !== undefined;
}

export class SegmentBodyReader implements BodyReader {
  private readonly pieces: Piece[] = [];
  private readonly held: ReadableSegment[] = [];
  private index = 0;
  private readonly buffers: Buffer[] = [];
  private turn = 0;
  /** the checked block being handed out, and how far */
  private pending: Buffer | undefined;
  private readAhead: Promise<Buffer | null> | undefined;
  private lastRead: Promise<Buffer | null> | undefined;
  private closed = false;
  private readonly total: number;

  constructor(
    private readonly ctx: ReadContext,
    record: { size: number; extents: Extent[] },
    start: number,
    end: number,
  ) {
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && 0 <= start && start <= end && end <= record.size)) {
      throw new RangeError(`range [${start}, ${end}) outside a body of ${record.size} bytes`);
    }
    this.total = end - start;
    let base = 0;
    for (const extent of record.extents) {
      this.addPiece(extent, base, start, end);
      base += extent.length;
    }
  }

  /**
   * A body larger than one chunk is read one chunk ahead, so that the disk read of the next chunk
   * overlaps the socket write of this one; the returned buffer stays valid until the next call.
   */
  async read(maxBytes: number): Promise<Buffer | null> {
    if (this.closed) throw new Error('read after close');
    const chunk = await (this.readAhead ?? this.readNext(maxBytes));
    this.readAhead = undefined;
    if (chunk && chunk.length > 0 && this.total > READ_CHUNK_MAX && !this.exhausted()) {
      this.readAhead = this.readNext(maxBytes);
      // a read-ahead the caller never collects (it closed the reader) must not surface as unhandled
      this.readAhead.catch(() => undefined);
    }
    return chunk;
  }

  /**
   * The first chunk when it can be had without waiting (a cached body, or a small read of an open
   * segment; a failed check throws), else undefined: then `read`. Only before any `read`.
   */
  readNow(maxBytes: number): Buffer | null | undefined {
    if (this.closed) throw new Error('read after close');
    if (this.lastRead !== undefined || this.pending) return undefined;
    if (maxBytes <= 0) return this.exhausted() ? null : Buffer.alloc(0);
    const block = this.blockNow();
    if (block === WAIT) return undefined;
    if (!block) return null;
    const out = block.subarray(0, Math.min(maxBytes, block.length));
    this.pending = block.subarray(out.length);
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const buffers = this.buffers.splice(0);
    // a read (a read-ahead, or one the caller gave up on) may still fill and check one of them:
    // they go back once the last one started has settled
    const giveBack = (): void => buffers.forEach((b) => blockBuffers.giveBack(b));
    void Promise.resolve(this.lastRead).then(giveBack, giveBack);
    this.pending = undefined;
    for (const file of this.held) this.files.release(file);
  }

  private get files(): SegmentReadTable {
    return this.ctx.files;
  }

  private exhausted(): boolean {
    if (this.pending && this.pending.length > 0) return false;
    for (let i = this.index; i < this.pieces.length; i++) if (this.pieces[i]!.next < this.pieces[i]!.to) return false;
    return true;
  }

  /** readNext, remembered: reads never overlap, so the last one started is the only one that can be in flight. */
  private readNext(maxBytes: number): Promise<Buffer | null> {
    return (this.lastRead = this.readChunk(maxBytes));
  }

  /** Hands out the checked block piece by piece, reading the next block when it is used up. */
  private async readChunk(maxBytes: number): Promise<Buffer | null> {
    if (maxBytes <= 0) return this.exhausted() ? null : Buffer.alloc(0);
    if (!this.pending || this.pending.length === 0) {
      this.pending = await this.readBlock();
      if (!this.pending) return null;
    }
    const out = this.pending.subarray(0, Math.min(maxBytes, this.pending.length));
    this.pending = this.pending.subarray(out.length);
    return out;
  }

  /** Claims the next block synchronously (so consecutive calls never overlap), reads and checks it. */
  private async readBlock(): Promise<Buffer | undefined> {
    const plan = this.planBlock();
    if (!plan) return undefined;
    plan.piece.next = plan.blockEnd;
    const now = this.readPlannedNow(plan);
    if (now) return now;
    const buffer = this.nextBuffer(plan.want);
    const got = await preadFull(plan.file.fd ?? (await plan.file.ready), buffer, plan.want, plan.position);
    return this.checkBlock(plan, buffer, got);
  }

  /** The next block when it needs no waiting: claimed, read and checked; WAIT when it does. */
  private blockNow(): Buffer | undefined | typeof WAIT {
    const plan = this.planBlock();
    if (!plan) return undefined;
    if (!plan.cached && !readsAtOnce(plan)) return WAIT;
    plan.piece.next = plan.blockEnd;
    return this.readPlannedNow(plan);
  }

  /** A cached body, or a small read of an open segment (as the index is read through its map); undefined for a read to wait for. */
  private readPlannedNow(plan: BlockPlan): Buffer | undefined {
    if (plan.cached) return plan.cached.subarray(plan.piece.from, plan.piece.to);
    if (!readsAtOnce(plan)) return undefined;
    const buffer = this.nextBuffer(plan.want);
    return this.checkBlock(plan, buffer, preadFullSync(plan.file.fd!, buffer, plan.want, plan.position));
  }

  /** What reading the next block takes, without claiming it. */
  private planBlock(): BlockPlan | undefined {
    let piece = this.pieces[this.index];
    while (piece && piece.next >= piece.to) piece = this.pieces[++this.index];
    if (!piece) return undefined;
    const { extent } = piece;
    const blockStart = piece.next;
    const blockEnd = Math.min(extent.length, blockStart - (blockStart % BLOCK_SIZE) + BLOCK_SIZE);
    // without CRCs (format 1 bodies) only the range itself is read
    const readFrom = extent.blockCrcs ? blockStart : Math.max(blockStart, piece.from);
    const readTo = extent.blockCrcs ? blockEnd : Math.min(blockEnd, piece.to);
    const cache = this.ctx.cache?.keeps(extent) ? this.ctx.cache : undefined;
    return {
      piece,
      blockStart,
      blockEnd,
      readFrom,
      readTo,
      want: readTo - readFrom,
      position: extent.offset + readFrom,
      cache,
      // a cached body is the whole extent, one block (cache.maxBody <= BLOCK_SIZE)
      cached: cache?.get(extent),
      file: this.files.get(extent.segment),
    };
  }

  /** The range's bytes of a block just read, once its CRC32C matched. */
  private checkBlock(plan: BlockPlan, buffer: Buffer, got: number): Buffer {
    const { extent } = plan.piece;
    if (got < plan.want) throw new StoreError('corrupt', `segment ${extent.segment} ends before offset ${plan.position + plan.want}`);
    const block = buffer.subarray(0, plan.want);
    if (extent.blockCrcs) {
      const n = Math.floor(plan.blockStart / BLOCK_SIZE);
      const expected = Buffer.from(extent.blockCrcs.buffer, extent.blockCrcs.byteOffset, extent.blockCrcs.byteLength).readUInt32LE(n * 4);
      if (this.ctx.crc32c(block, 0) >>> 0 !== expected) {
        this.ctx.onCorrupt(extent, n);
        throw new StoreError('corrupt', `segment ${extent.segment} offset ${extent.offset}: block ${n} fails its CRC32C`);
      }
    }
    plan.cache?.set(extent, block);
    const lo = Math.max(plan.piece.from, plan.readFrom) - plan.readFrom;
    const hi = Math.min(plan.piece.to, plan.readTo) - plan.readFrom;
    return block.subarray(lo, hi);
  }

  private nextBuffer(size: number): Buffer {
    const slots = this.total > READ_CHUNK_MAX ? 2 : 1;
    this.turn = (this.turn + 1) % slots;
    const have = this.buffers[this.turn];
    if (have && have.length >= size) return have;
    const length = Math.max(size, Math.min(BLOCK_SIZE, this.total));
    return (this.buffers[this.turn] = length === BLOCK_SIZE ? blockBuffers.take() : Buffer.allocUnsafe(length));
  }

  private addPiece(extent: Extent, base: number, start: number, end: number): void {
    const from = Math.max(start, base) - base;
    const to = Math.min(end, base + extent.length) - base;
    if (from >= to) return;
    const first = extent.blockCrcs ? from - (from % BLOCK_SIZE) : from;
    this.pieces.push({ extent, next: first, from, to });
    if (!this.held.some((f) => f.segment === extent.segment)) this.held.push(this.files.acquire(extent.segment));
  }
}
