// Streams one object body into a segment record and commits it. Small bodies are held as the caller's
// chunks and written with the header and trailer in one writev at commit (one system call, exact
// size); larger ones reserve their extent up front (header + body + the longest possible trailer) and
// write each chunk at its own offset, so concurrent uploads share a segment without interleaving.
// The same writer runs in the writer thread (its context: the store's allocator and commits) and in
// a front-end thread (remote-writes.ts: extents the writer thread reserved, commits sent to it).

import { BlockCrcs } from './block-crcs.js';
import type { Crc32c } from './crc32c.js';
import { asStoreError } from './errors.js';
import { pwriteAll, pwritevAllBatched } from './fd-io.js';
import {
  encodeRecordHeader,
  encodeTrailer,
  exactRecordLength,
  RECORD_HEADER_SIZE,
  reservedRecordLength,
} from './format.js';
import { objectKey } from './index-db.js';
import type { Reservation } from './segment-allocator.js';
import type { ReadableSegment, SegmentReadTable } from './segment-files.js';
import type { BodyWriter, Extent, ObjectVersion, Part, VersionInput, WriteCondition } from './types.js';

/** Bodies up to this size are buffered (as references to the caller's chunks) and written at commit. */
export const DEFAULT_SMALL_BODY_MAX = 64 * 1024;

/** Where records go: at once (the writer thread's allocator) or once another thread has granted it. */
export interface ExtentAllocator {
  reserve(length: number): Reservation | Promise<Reservation>;
  /** The body writer is done with `where` (committed, failed or aborted), and with its segment. */
  done?(where: Reservation): void;
}

export interface WriterContext {
  /** the segment files, opened for writing */
  files: SegmentReadTable;
  allocator: ExtentAllocator;
  crc32c: Crc32c;
  smallBodyMax: number;
  /** Fails with 'out-of-space' when a record of `length` bytes would eat into the disk reserve. */
  checkSpace(length: number): void;
  /**
   * Conditional index commit of the record at `extent` (ending at `recordEnd`) as a new latest
   * version or a part (fails with a StoreError); resolves once durable per the mode.
   */
  commitExtent(target: CommitTarget, extent: Extent, recordEnd: number): Promise<ObjectVersion | Part>;
}

/** What a body is committed as: a new version of a key, or a part of an upload. */
export type CommitTarget =
  | { kind: 'version'; bucket: string; key: string; input: VersionInput; condition: WriteCondition | undefined }
  | { kind: 'part'; bucket: string; key: string; uploadId: string; partNumber: number; input: VersionInput };

/** BodyWriter's two commits as one `finish(target)`. */
export abstract class CommitsByTarget {
  commit(bucket: string, key: string, input: VersionInput, condition?: WriteCondition): Promise<ObjectVersion> {
    return this.finish({ kind: 'version', bucket, key, input, condition }) as Promise<ObjectVersion>;
  }

  commitPart(bucket: string, key: string, uploadId: string, partNumber: number, input: VersionInput): Promise<Part> {
    return this.finish({ kind: 'part', bucket, key, uploadId, partNumber, input }) as Promise<Part>;
  }

  protected abstract finish(target: CommitTarget): Promise<ObjectVersion | Part>;
}

type State = 'open' | 'committing' | 'committed' | 'aborted';

export class SegmentBodyWriter extends CommitsByTarget implements BodyWriter {
  written = 0;
  private state: State = 'open';
  private readonly blocks: BlockCrcs;
  /** buffered mode: the caller's chunks, written at commit */
  private chunks: Buffer[] | undefined;
  /** streamed mode: the extent reserved at begin (set once granted when the allocator answers later) */
  private reservation: Reservation | undefined;
  private file: ReadableSegment | undefined;
  /** streamed mode: the grant, when the allocator answers later */
  private granted: Promise<void> | undefined;
  /** the segment this writer has reserved into: compaction leaves it alone until the writer is done */
  private held: ReadableSegment | undefined;
  /** what this writer reserved, handed back to the allocator when it is done */
  private reserved: Reservation | undefined;
  private inflight = 0;
  private drainWaiters: (() => void)[] = [];
  private failure: unknown;

  constructor(
    readonly size: number,
    private readonly ctx: WriterContext,
  ) {
    super();
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid body size ${size}`);
    this.blocks = new BlockCrcs(size, ctx.crc32c);
    ctx.checkSpace(reservedRecordLength(size));
    if (size <= ctx.smallBodyMax) {
      this.chunks = [];
      return;
    }
    const reserved = ctx.allocator.reserve(reservedRecordLength(size));
    if (reserved instanceof Promise) this.granted = this.track(reserved.then((r) => this.begin(r)));
    else this.begin(reserved);
  }

  private begin(where: Reservation): void {
    this.reservation = this.reserved = where;
    this.file = this.held = this.ctx.files.acquire(where.segment);
    // The header goes out now so that an abandoned extent still says how long it is.
    const header = encodeRecordHeader(this.size, where.length, this.ctx.crc32c);
    this.track(this.fd().then((fd) => pwriteAll(fd, header, where.offset)));
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.state !== 'open') throw new Error(`write after ${this.state}`);
    if (this.failure) throw this.failure;
    if (this.written + chunk.length > this.size) throw new RangeError('the body is longer than its declared size');
    const position = this.written;
    this.written += chunk.length;
    this.blocks.update(chunk);
    if (this.chunks) {
      if (chunk.length) this.chunks.push(chunk);
      return;
    }
    if (this.granted) await this.granted;
    if (this.failure) throw this.failure;
    const at = this.reservation!.offset + RECORD_HEADER_SIZE + position;
    const fd = this.file!.fd;
    await this.track(fd !== undefined ? pwriteAll(fd, chunk, at) : this.fd().then((d) => pwriteAll(d, chunk, at)));
    if (this.failure) throw this.failure;
  }

  /** Once commit has started, its outcome alone decides visibility: abort is then a no-op. */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.chunks = undefined;
    await this.drain().catch(() => undefined);
    this.release();
  }

  private release(): void {
    if (this.held) this.ctx.files.release(this.held);
    this.held = undefined;
    if (this.reserved) this.ctx.allocator.done?.(this.reserved);
    this.reserved = undefined;
  }

  protected async finish(target: CommitTarget): Promise<ObjectVersion | Part> {
    if (this.state !== 'open') throw new Error(`commit after ${this.state}`);
    this.state = 'committing';
    try {
      if (this.written !== this.size) throw new RangeError(`the body has ${this.written} of its ${this.size} bytes`);
      const recordKey = objectKey(target.bucket, target.key);
      const where = this.chunks
        ? await this.writeBuffered(recordKey, target.input.lastModified)
        : await this.writeTrailer(recordKey, target.input.lastModified);
      const extent: Extent = {
        segment: where.segment,
        offset: where.offset + RECORD_HEADER_SIZE,
        length: this.size,
        blockCrcs: this.blocks.finish(),
      };
      const committed = await this.ctx.commitExtent(target, extent, where.offset + where.length);
      this.state = 'committed';
      return committed;
    } catch (e) {
      this.state = 'aborted';
      this.chunks = undefined;
      await this.drain().catch(() => undefined);
      throw asStoreError(e);
    } finally {
      this.release();
    }
  }

  private async writeBuffered(recordKey: Buffer, committed: number): Promise<Reservation> {
    const length = exactRecordLength(this.size, recordKey.length);
    const reserved = this.ctx.allocator.reserve(length);
    const where = (this.reserved = reserved instanceof Promise ? await reserved : reserved);
    const header = encodeRecordHeader(this.size, length, this.ctx.crc32c);
    const trailer = this.trailer(recordKey, committed, length);
    const file = (this.held = this.ctx.files.acquire(where.segment));
    const fd = file.fd ?? (await file.ready);
    const bufs = [header, ...this.chunks!, trailer];
    this.chunks = undefined;
    await pwritevAllBatched(fd, bufs, where.offset);
    return where;
  }

  private async writeTrailer(recordKey: Buffer, committed: number): Promise<Reservation> {
    await this.drain();
    const where = this.reservation!;
    const trailer = this.trailer(recordKey, committed, where.length);
    await pwriteAll(await this.fd(), trailer, where.offset + RECORD_HEADER_SIZE + this.size);
    return where;
  }

  /** The trailer, zero-padded to the end of the record's extent. */
  private trailer(recordKey: Buffer, committed: number, recordLength: number): Buffer {
    const length = recordLength - RECORD_HEADER_SIZE - this.size;
    return encodeTrailer(recordKey, this.blocks.bodyCrc(), committed, this.ctx.crc32c, length);
  }

  private fd(): Promise<number> {
    return this.file!.ready;
  }

  private track(op: Promise<void>): Promise<void> {
    this.inflight++;
    return op.then(
      () => this.settle(),
      (e: unknown) => {
        this.failure ??= asStoreError(e);
        this.settle();
      },
    );
  }

  private settle(): void {
    if (--this.inflight === 0 && this.drainWaiters.length) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const done of waiters) done();
    }
  }

  /** Waits for every write issued so far; rethrows the first failure. */
  private async drain(): Promise<void> {
    if (this.inflight > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    if (this.failure) throw this.failure;
  }
}
