// Streams one object body into a segment record and commits it. Small bodies are held as the caller's
// chunks and written with the header and trailer in one writev at commit (one system call, exact
// size); larger ones reserve their extent up front (header + body + the longest possible trailer) and
// write each chunk at its own offset, so concurrent uploads share a segment without interleaving.

import { S3Error } from '../s3/errors.js';
import type { Crc32c } from './crc32c.js';
import { pwriteAll, pwritevAll } from './fd-io.js';
import {
  encodeRecordHeader,
  encodeTrailer,
  exactRecordLength,
  RECORD_HEADER_SIZE,
  reservedRecordLength,
} from './format.js';
import { objectKey } from './index-db.js';
import type { Reservation, SegmentAllocator } from './segment-allocator.js';
import type { SegmentFile, SegmentFiles } from './segment-files.js';
import type { BodyWriter, ObjectMeta, ObjectRecord, WriteCondition } from './types.js';

/** Bodies up to this size are buffered (as references to the caller's chunks) and written at commit. */
export const DEFAULT_SMALL_BODY_MAX = 64 * 1024;

export interface WriterContext {
  files: SegmentFiles;
  allocator: SegmentAllocator;
  crc32c: Crc32c;
  smallBodyMax: number;
  /** Cheap early rejection before any byte is written; the authoritative check runs in the index transaction. */
  precheck(bucket: string, key: string, recordKey: Buffer, condition: WriteCondition | undefined): void;
  /** Conditional index commit (throws S3Error when the condition fails); resolves once durable per the mode. */
  commitIndex(
    recordKey: Buffer,
    bucket: string,
    record: ObjectRecord,
    condition: WriteCondition | undefined,
    recordEnd: number,
  ): Promise<void>;
}

type State = 'open' | 'committing' | 'committed' | 'aborted';

export class SegmentBodyWriter implements BodyWriter {
  written = 0;
  private state: State = 'open';
  private crc = 0;
  /** buffered mode: the caller's chunks, written at commit */
  private chunks: Buffer[] | undefined;
  /** streamed mode: the extent reserved at begin */
  private readonly reservation: Reservation | undefined;
  private readonly file: SegmentFile | undefined;
  private inflight = 0;
  private drainWaiters: (() => void)[] = [];
  private failure: unknown;

  constructor(
    readonly size: number,
    private readonly ctx: WriterContext,
  ) {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid body size ${size}`);
    if (size <= ctx.smallBodyMax) {
      this.chunks = [];
      return;
    }
    this.reservation = ctx.allocator.reserve(reservedRecordLength(size));
    this.file = ctx.files.get(this.reservation.segment);
    // The header goes out now so that an abandoned extent still says how long it is.
    const header = encodeRecordHeader(size, this.reservation.length, ctx.crc32c);
    this.track(this.fd().then((fd) => pwriteAll(fd, header, this.reservation!.offset)));
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.state !== 'open') throw new Error(`write after ${this.state}`);
    if (this.failure) throw this.failure;
    if (this.written + chunk.length > this.size) {
      throw new S3Error('InvalidRequest', {}, { message: 'The request body is longer than its declared length.' });
    }
    const position = this.written;
    this.written += chunk.length;
    this.crc = this.ctx.crc32c(chunk, this.crc);
    if (this.chunks) {
      if (chunk.length) this.chunks.push(chunk);
      return;
    }
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
  }

  async commit(bucket: string, key: string, meta: ObjectMeta, condition?: WriteCondition): Promise<ObjectRecord> {
    if (this.state !== 'open') throw new Error(`commit after ${this.state}`);
    this.state = 'committing';
    try {
      if (this.written !== this.size) throw new S3Error('IncompleteBody');
      const recordKey = objectKey(bucket, key);
      this.ctx.precheck(bucket, key, recordKey, condition);
      const where = this.chunks
        ? await this.writeBuffered(recordKey, meta.lastModified)
        : await this.writeTrailer(recordKey, meta.lastModified);
      await this.ctx.files.sync(where.segment);
      const record = buildRecord(key, this.size, meta, where.segment, where.offset + RECORD_HEADER_SIZE);
      await this.ctx.commitIndex(recordKey, bucket, record, condition, where.offset + where.length);
      this.state = 'committed';
      return record;
    } catch (e) {
      this.state = 'aborted';
      this.chunks = undefined;
      await this.drain().catch(() => undefined);
      throw e;
    }
  }

  private async writeBuffered(recordKey: Buffer, committed: number): Promise<Reservation> {
    const length = exactRecordLength(this.size, recordKey.length);
    const where = this.ctx.allocator.reserve(length);
    const header = encodeRecordHeader(this.size, length, this.ctx.crc32c);
    const trailer = this.trailer(recordKey, committed, length);
    const file = this.ctx.files.get(where.segment);
    const fd = file.fd ?? (await file.ready);
    const bufs = [header, ...this.chunks!, trailer];
    this.chunks = undefined;
    await pwritevAll(fd, bufs, where.offset);
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
    return encodeTrailer(recordKey, this.crc, committed, this.ctx.crc32c, length);
  }

  private fd(): Promise<number> {
    return this.file!.ready;
  }

  private track(op: Promise<void>): Promise<void> {
    this.inflight++;
    return op.then(
      () => this.settle(),
      (e: unknown) => {
        this.failure ??= e;
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

function buildRecord(key: string, size: number, meta: ObjectMeta, segment: number, offset: number): ObjectRecord {
  const record: ObjectRecord = {
    key,
    size,
    etag: meta.etag,
    lastModified: meta.lastModified,
    contentType: meta.contentType,
    storageClass: meta.storageClass,
    acl: meta.acl,
    headers: meta.headers,
    meta: meta.meta,
    versionId: meta.versionId,
    extents: [{ segment, offset, length: size }],
  };
  if (meta.checksum) record.checksum = meta.checksum;
  if (meta.encryption) record.encryption = meta.encryption;
  return record;
}
