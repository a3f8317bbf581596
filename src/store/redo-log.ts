// The segments as the index's redo log. Operation records (redo-ops.ts) go into the active
// segment in the order their sequence numbers were handed out; an operation is acknowledged once
// its record and the bodies it names are durable, and its index transaction commits without
// waiting for LMDB's flush. Each index transaction also records how far the log is applied:
// `applied` (every operation with a smaller or equal seq is in the index) and `logFrom` (where the
// first operation that may not be lies). At start-up, `replayLog` reads the log from there and
// applies, in seq order, each operation the durable index lacks.

import fs from 'node:fs';
import path from 'node:path';
import type { Crc32c } from './crc32c.js';
import { preadFullSync, pwritevAllBatched } from './fd-io.js';
import {
  encodeRecordHeader,
  encodeTrailer,
  exactRecordLength,
  RECORD_HEADER_SIZE,
  RECORD_KIND_OP,
  SEGMENT_HEADER_SIZE,
} from './format.js';
import type { IndexDb } from './index-db.js';
import { checkRecordSync, nextRecordStart } from './record-check.js';
import { applyOp, decodeOp, encodeOp, groupAccounting, type ApplyContext, type RecordEnd, type RedoOp, type ReleaseListener } from './redo-ops.js';
import type { SegmentAllocator } from './segment-allocator.js';
import type { SegmentFiles } from './segment-files.js';
import { parseSegmentFileName, segmentFileName } from './segment-files.js';
import type { Extent } from './types.js';

export interface LogPosition {
  segment: number;
  offset: number;
}

const NO_KEY = Buffer.alloc(0);

export class RedoLog {
  /**
   * operations written but not yet applied, by seq: where their records lie, and whether their
   * index transaction is issued (LMDB commits transactions in the order they are issued)
   */
  private readonly pending = new Map<number, { at: LogPosition; issued: boolean }>();

  constructor(
    private readonly files: SegmentFiles,
    private readonly allocator: SegmentAllocator,
    private readonly crc32c: Crc32c,
  ) {}

  /**
   * Writes `op`'s record. Its place is reserved before the first await, so records lie in the
   * order their seqs were handed out when the caller decides and appends in one go.
   */
  async append(op: RedoOp): Promise<RecordEnd & { offset: number }> {
    const payload = encodeOp(op);
    const length = exactRecordLength(payload.length, 0);
    const where = this.allocator.reserve(length);
    this.pending.set(op.seq, { at: { segment: where.segment, offset: where.offset }, issued: false });
    const file = this.files.acquire(where.segment);
    try {
      const header = encodeRecordHeader(payload.length, length, this.crc32c);
      const trailer = encodeTrailer(NO_KEY, this.crc32c(payload, 0), Date.now(), this.crc32c, length - RECORD_HEADER_SIZE - payload.length, RECORD_KIND_OP);
      await pwritevAllBatched(file.fd ?? (await file.ready), [header, payload, trailer], where.offset);
    } finally {
      this.files.release(file);
    }
    return { segment: where.segment, offset: where.offset, end: where.offset + length };
  }

  /** The operation is applied (or failed for good). */
  done(seq: number): void {
    this.pending.delete(seq);
  }

  /**
   * The log markers of the index transaction that applies `seq`, to be issued right after this
   * call: once it commits, every operation up to `applied` is applied, and every other one lies at
   * or after `from`. An operation whose transaction was issued before commits before this one, so
   * only those not yet issued hold the markers back (counting every unfinished one, a transaction
   * committing after an earlier-issued one would move `applied` back below it, and a restart would
   * apply that operation twice).
   */
  issue(seq: number, handedOut: number): { applied: number; from: LogPosition } {
    const own = this.pending.get(seq);
    if (own) own.issued = true;
    let lowest: [number, { at: LogPosition }] | undefined;
    for (const entry of this.pending) {
      if (!entry[1].issued && (!lowest || entry[0] < lowest[0])) lowest = entry;
    }
    return lowest ? { applied: lowest[0] - 1, from: lowest[1].at } : { applied: handedOut, from: this.allocator.position };
  }

  /** Segments from this one on may hold operations not yet applied: compaction keeps them. */
  lowestPendingSegment(): number {
    let lowest = this.allocator.activeSegment;
    for (const p of this.pending.values()) lowest = Math.min(lowest, p.at.segment);
    return lowest;
  }
}

/** An operation whose record is written at `at`, to be applied. */
export interface Logged {
  op: RedoOp;
  at: RecordEnd;
}

/**
 * Inside the index transaction that applies `group` (in order): apply each operation and move the
 * log markers once for all of them.
 */
export function applyLogged(db: IndexDb, group: Logged[], marks: { applied: number; from: LogPosition }, released?: ReleaseListener): void {
  const ctx = groupAccounting(db, released);
  for (const { op, at } of group) {
    applyOp(ctx, op);
    ctx.markEnd(at.segment, at.end);
    if (op.seq > marks.applied) db.recent.putSync(op.seq, 1);
  }
  ctx.flush();
  for (const seq of db.recent.getKeys({ end: marks.applied + 1 })) db.recent.removeSync(seq);
  db.meta.putSync('applied', marks.applied);
  db.meta.putSync('logFrom', marks.from);
}

export interface ReplayReport {
  /** operations found in the log past the durable index */
  found: number;
  replayed: number;
  /** operations whose bodies are not whole (never acknowledged): left out */
  skipped: number;
}

/** The extents an operation makes live: each must be a whole, valid record for it to replay. */
function bodiesOf(op: RedoOp): Extent[] {
  switch (op.t) {
    case 'put':
      return op.v.extents;
    case 'part':
      return op.part.extents;
    default:
      return [];
  }
}

/**
 * Start-up, before the segment tails are cut: applies every operation of the log that the durable
 * index lacks, in seq order, in one transaction. Synchronous. The caller then moves `logFrom` to
 * where the next record goes (every record before it is now applied or dead).
 */
export function replayLog(dataDir: string, ctx: ApplyContext, crc32c: Crc32c): ReplayReport {
  const report: ReplayReport = { found: 0, replayed: 0, skipped: 0 };
  const { db } = ctx;
  const from = db.meta.get('logFrom') as LogPosition | undefined;
  if (!from) return report;
  const applied = Number(db.meta.get('applied') ?? 0);
  const dir = path.join(dataDir, 'segments');
  const numbers = fs
    .readdirSync(dir)
    .map(parseSegmentFileName)
    .filter((n): n is number => n !== undefined && n >= from.segment)
    .sort((a, b) => a - b);
  const found: Array<{ op: RedoOp; at: RecordEnd }> = [];
  const fds = new Map<number, number>();
  try {
    for (const segment of numbers) {
      const fd = fs.openSync(path.join(dir, segmentFileName(segment)), 'r');
      fds.set(segment, fd);
      const size = fs.fstatSync(fd).size;
      for (let pos = segment === from.segment ? Math.max(from.offset, SEGMENT_HEADER_SIZE) : SEGMENT_HEADER_SIZE; pos < size; ) {
        const check = checkRecordSync(fd, pos, size, crc32c, false);
        if (check.status === 'invalid') {
          pos = nextRecordStart(fd, pos, size); // a hole: a crash, or an extent granted and never written
          continue;
        }
        if (check.status === 'valid' && check.trailer.kind === RECORD_KIND_OP) {
          const payload = Buffer.alloc(check.header.bodyLength);
          preadFullSync(fd, payload, payload.length, pos + RECORD_HEADER_SIZE);
          if (crc32c(payload, 0) >>> 0 !== check.trailer.bodyCrc32c) {
            pos += check.header.recordLength;
            continue;
          }
          const op = decodeOp(payload);
          if (op.seq > applied && db.recent.get(op.seq) === undefined) found.push({ op, at: { segment, end: pos + check.header.recordLength } });
        }
        pos += check.header.recordLength;
      }
    }
    found.sort((a, b) => a.op.seq - b.op.seq);
    report.found = found.length;
    if (found.length === 0) return report;
    const whole = (e: Extent): boolean => {
      let fd = fds.get(e.segment);
      if (fd === undefined) {
        const file = path.join(dir, segmentFileName(e.segment));
        if (!fs.existsSync(file)) return false;
        fds.set(e.segment, (fd = fs.openSync(file, 'r')));
      }
      const check = checkRecordSync(fd, e.offset - RECORD_HEADER_SIZE, fs.fstatSync(fd).size, crc32c);
      return check.status === 'valid' && check.header.bodyLength === e.length;
    };
    db.env.transactionSync(() => {
      let last = applied;
      for (const { op, at } of found) {
        if (!bodiesOf(op).every(whole)) {
          report.skipped++;
          continue;
        }
        applyOp(ctx, op);
        ctx.markEnd(at.segment, at.end);
        last = Math.max(last, op.seq);
        report.replayed++;
      }
      // operations past `last` that the index holds stay recorded as applied
      for (const seq of db.recent.getKeys({ end: last + 1 })) db.recent.removeSync(seq);
      db.meta.putSync('applied', last);
      db.meta.putSync('seq', Math.max(found.at(-1)!.op.seq, Number(db.meta.get('seq') ?? 0)));
    });
  } finally {
    for (const fd of fds.values()) fs.closeSync(fd);
  }
  return report;
}
