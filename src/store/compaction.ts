// Compaction: gives back the space of dead records (overwritten and deleted versions, aborted
// uploads, reservations never committed). A segment whose dead share passes a threshold has its
// live records copied, byte for byte, to the active segment; once the copies are durable, one index
// transaction moves every reference that still points at an old record (compare-and-swap: a write
// or delete that raced the copy wins, and the copy is left dead); the segment file is deleted only
// when the index counts no reference to it and no reader or writer holds it. A crash at any step
// leaves either the old records in use or the new ones, and an unreferenced segment file, which the
// next start deletes (recovery.ts). The active segment is sealed first (a new one made active) when
// enough of it is dead, so that a store smaller than one segment gets its space back too.

import type { Crc32c } from './crc32c.js';
import { pwriteAll, preadFull } from './fd-io.js';
import { align, decodeRecordHeader, decodeTrailer, RECORD_HEADER_SIZE, SEGMENT_HEADER_SIZE, TRAILER_FIXED_SIZE } from './format.js';
import { extentTable, type ExtentTable, type IndexDb, type SegmentStats, type StoredPart, type StoredVersion } from './index-db.js';
import type { SegmentAllocator } from './segment-allocator.js';
import type { SegmentFiles } from './segment-files.js';
import type { Extent } from './types.js';

export interface CompactionOptions {
  /** compact segments at least this share of whose bytes is dead (0–1) */
  minDeadRatio: number;
  /** copy at most this many bytes per second (foreground requests keep the disk) */
  bytesPerSecond: number;
}

export const DEFAULT_COMPACTION: CompactionOptions = { minDeadRatio: 0.5, bytesPerSecond: 64 * 1024 * 1024 };

export interface CompactionReport {
  segmentsCompacted: number;
  segmentsDeleted: number;
  recordsMoved: number;
  bytesMoved: number;
  /** records that failed their checksum and were left where they are */
  corruptRecords: number;
}

/** What compaction needs of the store: its parts, and one index write transaction with its accounting. */
export interface CompactionHost {
  index: IndexDb;
  files: SegmentFiles;
  allocator: SegmentAllocator;
  crc32c: Crc32c;
  write<T>(body: () => T): Promise<T>;
  account(extents: Extent[], sign: 1 | -1): void;
  markEnd(segment: number, end: number): void;
  /** segments from this one on may hold redo records not yet applied: not compacted */
  keepFrom(): number;
}

/** A place in the index that holds an extent: a version or a part, and which of its extents. */
interface Ref {
  table: ExtentTable;
  key: Buffer;
}

interface LiveRecord {
  offset: number;
  length: number;
  refs: Ref[];
}

interface SegmentUse {
  records: Map<number, LiveRecord>;
  /** record bytes in use (header, body, trailer), each record once however many refs it has */
  liveBytes: number;
}

const COPY_CHUNK = 1 << 20;
/**
 * Dead bytes the active segment must hold before a pass seals it to rewrite it: less is not worth
 * a new segment file (a store that overwrites one small object would otherwise get one per pass).
 */
const ROLL_MIN_DEAD_BYTES = 1 << 20;
/** index entries read between two yields to the event loop (~a few ms) */
const SCAN_SLICE = 2000;

/** Running totals of the passes so far (metrics). */
export interface CompactionTotals {
  passes: number;
  running: boolean;
  segmentsCompacted: number;
  segmentsDeleted: number;
  recordsMoved: number;
  bytesMoved: number;
}

export class Compactor {
  private running: Promise<CompactionReport> | undefined;
  private readonly sums = { passes: 0, segmentsCompacted: 0, segmentsDeleted: 0, recordsMoved: 0, bytesMoved: 0 };

  constructor(private readonly host: CompactionHost) {}

  /** Resolves once no pass is running. */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** One pass over every segment (the active one once sealed); concurrent calls share the pass. */
  run(options: CompactionOptions = DEFAULT_COMPACTION): Promise<CompactionReport> {
    this.running ??= this.pass(options)
      .then((report) => {
        this.sums.passes++;
        this.sums.segmentsCompacted += report.segmentsCompacted;
        this.sums.segmentsDeleted += report.segmentsDeleted;
        this.sums.recordsMoved += report.recordsMoved;
        this.sums.bytesMoved += report.bytesMoved;
        return report;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  totals(): CompactionTotals {
    return { ...this.sums, running: this.running !== undefined };
  }

  private async pass(options: CompactionOptions): Promise<CompactionReport> {
    const report: CompactionReport = { segmentsCompacted: 0, segmentsDeleted: 0, recordsMoved: 0, bytesMoved: 0, corruptRecords: 0 };
    const { files, index, allocator } = this.host;
    const sealed = Math.min(allocator.activeSegment, this.host.keepFrom());
    // segments from `sealed` on are being written; the others are candidates when their counts
    // say enough is dead (counts of shared extents only over-state what is live)
    const deadEnough = (segment: number, minDeadBytes = 0): boolean => {
      const stats = index.segments.get(segment);
      if (!stats) return minDeadBytes === 0;
      const span = Math.max(1, stats.end - SEGMENT_HEADER_SIZE);
      if (span - stats.live < minDeadBytes) return false;
      return stats.records === 0 || 1 - stats.live / span >= options.minDeadRatio;
    };
    const candidates = files.numbers().filter((segment) => segment < sealed && deadEnough(segment));
    const active = allocator.activeSegment;
    const mayRoll = deadEnough(active, ROLL_MIN_DEAD_BYTES);
    if (candidates.length === 0 && !mayRoll) return report;
    const use = await this.scan(new Set(mayRoll ? [...candidates, active] : candidates));
    if (mayRoll && this.rollIfDead(active, use.get(active), options) && active < this.host.keepFrom()) candidates.push(active);
    const budget = { start: Date.now(), bytes: 0, rate: options.bytesPerSecond };
    for (const segment of candidates) {
      if (files.get(segment).readers > 0) continue;
      const stats = index.segments.get(segment);
      const inUse = use.get(segment);
      if (!inUse || inUse.records.size === 0) {
        if (stats && stats.records > 0) continue; // referenced since the scan
        if (await this.deleteSegment(segment)) report.segmentsDeleted++;
        continue;
      }
      const size = Math.max(stats?.end ?? 0, SEGMENT_HEADER_SIZE);
      const dead = 1 - inUse.liveBytes / Math.max(1, size - SEGMENT_HEADER_SIZE);
      if (dead < options.minDeadRatio) continue;
      await this.moveSegment(segment, inUse, report, budget);
      report.segmentsCompacted++;
      if ((index.segments.get(segment)?.records ?? 0) === 0 && (await this.deleteSegment(segment))) report.segmentsDeleted++;
    }
    return report;
  }

  /**
   * Seals the active segment when the scan confirms enough of it is dead, so that it can be
   * rewritten like any other: in this pass once no operation logged in it waits to be applied and
   * no writer holds it, else in a later one. Nothing is written: a crash leaves the old segment as it
   * is and an empty new one, which start-up keeps as the active segment.
   */
  private rollIfDead(active: number, inUse: SegmentUse | undefined, options: CompactionOptions): boolean {
    const { allocator, index } = this.host;
    const stats = index.segments.get(active);
    // filled up and replaced while the scan ran: an ordinary candidate from the next pass on
    if (allocator.activeSegment !== active || !stats) return false;
    const span = Math.max(1, stats.end - SEGMENT_HEADER_SIZE);
    const dead = span - (inUse?.liveBytes ?? 0);
    if (dead / span < options.minDeadRatio || dead < ROLL_MIN_DEAD_BYTES) return false;
    allocator.roll();
    return true;
  }

  /**
   * Every extent the index references in `wanted`, by segment and offset: a read of the whole index,
   * in slices with a fresh read transaction each, yielding to requests between slices. A reference
   * made after its slice was read keeps its segment's count above zero, so the segment stays.
   */
  private async scan(wanted: Set<number>): Promise<Map<number, SegmentUse>> {
    const use = new Map<number, SegmentUse>();
    const add = (table: ExtentTable, key: Buffer, extents: Extent[], keyBytes: number): void => {
      for (const e of extents) {
        if (!wanted.has(e.segment)) continue;
        let seg = use.get(e.segment);
        if (!seg) use.set(e.segment, (seg = { records: new Map(), liveBytes: 0 }));
        let record = seg.records.get(e.offset);
        if (!record) {
          seg.records.set(e.offset, (record = { offset: e.offset, length: e.length, refs: [] }));
          seg.liveBytes += align(RECORD_HEADER_SIZE + e.length + TRAILER_FIXED_SIZE + keyBytes);
        }
        if (!record.refs.some((r) => r.table === table && r.key.equals(key))) record.refs.push({ table, key: Buffer.from(key) });
      }
    };
    const { index } = this.host;
    for (const table of ['objects', 'versions', 'parts'] as const) {
      let from: Buffer | undefined;
      for (;;) {
        let last: Buffer | undefined;
        const range = index[table].getRange({ ...(from ? { start: from } : {}), limit: SCAN_SLICE } as never) as Iterable<{
          key: Buffer;
          value: StoredVersion | StoredPart;
        }>;
        for (const { key, value } of range) {
          last = key;
          // a damaged body cannot be copied whole (damage.ts): its records stay where they are
          if (Buffer.isBuffer(key) && value && Array.isArray(value.extents) && !value.damaged) {
            add(table, key, value.extents, table === 'parts' ? 64 : key.length);
          }
        }
        if (!last) break;
        from = Buffer.concat([last, Buffer.of(0)]);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return use;
  }

  private async moveSegment(
    segment: number,
    inUse: SegmentUse,
    report: CompactionReport,
    budget: { start: number; bytes: number; rate: number },
  ): Promise<void> {
    const { files } = this.host;
    const source = files.acquire(segment);
    const moved: Array<{ from: LiveRecord; to: Extent }> = [];
    const destinations = new Set<number>();
    try {
      const fd = source.fd ?? (await source.ready);
      for (const record of [...inUse.records.values()].sort((a, b) => a.offset - b.offset)) {
        const to = await this.copyRecord(fd, record, budget);
        if (!to) {
          report.corruptRecords++;
          continue;
        }
        moved.push({ from: record, to });
        destinations.add(to.segment);
        report.recordsMoved++;
        report.bytesMoved += record.length;
      }
    } finally {
      files.release(source);
    }
    for (const d of destinations) await files.sync(d);
    await this.swap(segment, moved);
  }

  /** Copies one record (header, body, trailer) to a new place, checking its body CRC on the way. */
  private async copyRecord(
    fd: number,
    record: LiveRecord,
    budget: { start: number; bytes: number; rate: number },
  ): Promise<(Extent & { end: number }) | undefined> {
    const { files, allocator, crc32c } = this.host;
    const start = record.offset - RECORD_HEADER_SIZE;
    const headerBuf = Buffer.alloc(RECORD_HEADER_SIZE);
    await preadFull(fd, headerBuf, RECORD_HEADER_SIZE, start);
    const header = decodeRecordHeader(headerBuf, crc32c);
    if (!header || header.bodyLength !== record.length) return undefined;
    const where = allocator.reserve(header.recordLength);
    const dest = files.acquire(where.segment);
    try {
      const destFd = dest.fd ?? (await dest.ready);
      const chunk = Buffer.allocUnsafe(Math.min(COPY_CHUNK, header.recordLength));
      let crc = 0;
      let tail: Buffer | undefined;
      for (let at = 0; at < header.recordLength; ) {
        const want = Math.min(chunk.length, header.recordLength - at);
        const got = await preadFull(fd, chunk, want, start + at);
        if (got < want) return undefined;
        const piece = chunk.subarray(0, want);
        // the body's CRC, over the body bytes of this piece
        const bodyFrom = Math.max(at, RECORD_HEADER_SIZE);
        const bodyTo = Math.min(at + want, RECORD_HEADER_SIZE + header.bodyLength);
        if (bodyTo > bodyFrom) crc = crc32c(piece.subarray(bodyFrom - at, bodyTo - at), crc);
        if (at + want > RECORD_HEADER_SIZE + header.bodyLength) {
          const from = Math.max(0, RECORD_HEADER_SIZE + header.bodyLength - at);
          tail = tail ? Buffer.concat([tail, piece.subarray(from)]) : Buffer.from(piece.subarray(from));
        }
        await pwriteAll(destFd, piece, where.offset + at);
        at += want;
        budget.bytes += want;
        await pace(budget);
      }
      const trailer = tail && decodeTrailer(tail, crc32c);
      if (!trailer || trailer.bodyCrc32c !== crc >>> 0) return undefined;
      return { segment: where.segment, offset: where.offset + RECORD_HEADER_SIZE, length: record.length, end: where.offset + where.length };
    } finally {
      files.release(dest);
    }
  }

  /** One transaction: every reference still pointing at a moved record now points at its copy. */
  private async swap(segment: number, moved: Array<{ from: LiveRecord; to: Extent & { end?: number } }>): Promise<void> {
    if (moved.length === 0) return;
    const { index } = this.host;
    await this.host.write(() => {
      for (const { from, to } of moved) {
        const { end, ...extent } = to;
        if (end !== undefined) this.host.markEnd(extent.segment, end);
        for (const ref of from.refs) {
          const table = extentTable(index, ref.table);
          const value = table.get(ref.key);
          if (!value) continue;
          const at = value.extents.findIndex((e) => e.segment === segment && e.offset === from.offset);
          if (at < 0) continue; // rewritten or deleted since the scan: the racing write wins
          const old = value.extents[at]!;
          const next: Extent = { ...extent };
          if (old.blockCrcs) next.blockCrcs = old.blockCrcs;
          const extents = value.extents.slice();
          extents[at] = next;
          table.putSync(ref.key, { ...value, extents });
          this.host.account([old], -1);
          this.host.account([next], +1);
        }
      }
      return undefined;
    });
  }

  /** Deletes a segment the index no longer references, once nobody holds it. */
  private async deleteSegment(segment: number): Promise<boolean> {
    const { index, files } = this.host;
    const gone = await this.host.write(() => {
      const stats: SegmentStats | undefined = index.segments.get(segment);
      if (stats && stats.records > 0) return false;
      index.segments.removeSync(segment);
      return true;
    });
    // unindexed now: if the file cannot go yet (a reader), the next start deletes it (recovery.ts)
    return gone && (await files.remove(segment));
  }
}

/** Sleeps as long as needed to keep the copy rate at or below `rate` bytes per second. */
async function pace(budget: { start: number; bytes: number; rate: number }): Promise<void> {
  const due = budget.start + (budget.bytes / budget.rate) * 1000;
  const wait = due - Date.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
}
