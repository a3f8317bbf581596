// Opening a data directory: the index, the redo log replayed, segment tails checked and damage
// marked, then the allocator placed where the next record goes.

import fs from 'node:fs';
import path from 'node:path';
import { BlockCache } from './block-cache.js';
import { SYNC_READ_MAX } from './body-reader.js';
import { DEFAULT_SMALL_BODY_MAX } from './body-writer.js';
import { fastestCrc32c, type Crc32c } from './crc32c.js';
import { align, SEGMENT_HEADER_SIZE } from './format.js';
import { openIndex, type SegmentStats } from './index-db.js';
import { recoverSegments } from './recovery.js';
import { DamageTally, markDamage, summarizeDamage } from './damage.js';
import { SegmentAllocator } from './segment-allocator.js';
import { SegmentFiles } from './segment-files.js';
import { replayLog } from './redo-log.js';
import { accountingContext } from './redo-ops.js';
import { type BucketRecord, type StoreOptions } from './types.js';
import { DiskReserve } from './disk-reserve.js';
import { SegmentStore } from './segment-store.js';

export const DEFAULT_SEGMENT_SIZE = 1 << 30;
export const DEFAULT_DISK_RESERVE = 256 * 1024 * 1024;
/** Knobs that are not part of the public contract: implementation injection and test hooks. */
export interface StoreInternals {
  /** CRC32C implementation for record bodies and headers (default: native if built, else TypeScript). */
  crc32c?: Crc32c;
  /** Bodies up to this size are written in one writev at commit (default 64 KiB). */
  smallBodyMax?: number;
  /** Free bytes of the data directory's file system (default: statfs); tests inject a small disk. */
  freeBytes?: () => number;
}

function statfsFree(dir: string): () => number {
  return () => {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  };
}

export async function openSegmentStore<A = unknown, P = unknown, B extends BucketRecord = BucketRecord>(
  options: StoreOptions,
  internals: StoreInternals = {},
): Promise<SegmentStore<A, P, B>> {
  const crc32c = internals.crc32c ?? (await fastestCrc32c());
  const segmentSize = options.segmentSize ?? DEFAULT_SEGMENT_SIZE;
  const strict = options.durability !== 'relaxed';
  const segmentDir = path.join(options.dataDir, 'segments');
  fs.mkdirSync(segmentDir, { recursive: true });

  const index = openIndex(options.dataDir);
  // operations the durable index lacks are applied before the segment tails are cut
  const replay = replayLog(options.dataDir, accountingContext(index), crc32c);
  const stats = new Map<number, SegmentStats>();
  for (const { key, value } of index.segments.getRange({})) stats.set(key, value);
  const { segments, report } = recoverSegments(segmentDir, stats, crc32c);
  const damaged = markDamage(index, new Map(report.shortSegments.map((s) => [s.segment, s])));

  const counter = { fdatasyncs: 0, indexFlushWaits: 0, corruptBlocks: 0, outOfSpace: 0 };
  const files = new SegmentFiles(segmentDir, crc32c, strict, counter, options.onSegmentRemoved);
  for (const s of segments) files.adopt(s.segment, s.fd);
  const highest = Math.max(0, ...segments.map((s) => s.segment), ...stats.keys());
  const last = segments.at(-1);
  // a short segment is never written again: its missing bytes stay past its file's end, where
  // every later start finds them (damage.ts), instead of under new records
  const short = last !== undefined && report.shortSegments.some((s) => s.segment === last.segment);
  let allocator: SegmentAllocator;
  if (last && last.segment === highest && last.end < segmentSize && !short) {
    allocator = new SegmentAllocator(files, segmentSize, last.segment, align(last.end), highest + 1);
  } else {
    files.create(highest + 1);
    allocator = new SegmentAllocator(files, segmentSize, highest + 1, SEGMENT_HEADER_SIZE, highest + 2);
  }
  // the log is replayed: it starts again where the first operation will be written (not past it:
  // the tails were cut, so a record replay skipped may lie beyond where new ones go)
  index.meta.putSync('logFrom', allocator.position);
  return new SegmentStore<A, P, B>(
    index,
    files,
    allocator,
    strict,
    { ...report, replay, damaged: summarizeDamage(damaged) },
    new DamageTally(damaged),
    crc32c,
    internals.smallBodyMax ?? DEFAULT_SMALL_BODY_MAX,
    new DiskReserve(options.diskReserve ?? DEFAULT_DISK_RESERVE, internals.freeBytes ?? statfsFree(options.dataDir), counter),
    counter,
    options.readCacheBytes ? new BlockCache(options.readCacheBytes, SYNC_READ_MAX) : undefined,
    options.bucketGeneration,
  );
}
