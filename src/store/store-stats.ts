// The engine's counters and start-up report, as `SegmentStore.stats()` gives them to metrics and health.

import type { DamageTally } from './damage.js';
import type { IndexDb } from './index-db.js';
import { type CompactionTotals } from './compaction.js';
import { type RecoveryReport } from './recovery.js';
import { type DamageSummary } from './damage.js';
import { type ReplayReport } from './redo-log.js';

export interface StoreStats {
  /** fdatasync calls issued on segment files by group commit */
  fdatasyncs: number;
  /** index commits that waited for LMDB's flush (strict mode) */
  indexFlushWaits: number;
  /** index transactions that applied logged key operations (group commit of the index) */
  indexGroups: number;
  /** key operations those applied (divided by indexGroups: mean group size) */
  indexGroupedOps: number;
  /** blocks that failed their CRC32C on read */
  corruptBlocks: number;
  /** writes refused for lack of space */
  outOfSpace: number;
  recovery: StoreRecovery;
  /** versions and parts whose bytes are missing, found at start-up and still in the index */
  damage: { objects: number; missingBytes: number };
  activeSegment: number;
  /** segment sync() calls covered by group commit (syncWaiters / fdatasyncs = mean group size) */
  syncWaiters: number;
  /** seconds spent in segment fdatasync */
  syncSeconds: number;
  /** bytes of segment files up to their furthest committed record */
  segmentBytes: number;
  /** body bytes referenced by versions and parts; segmentBytes − liveBytes is about what compaction can reclaim */
  liveBytes: number;
  /** references to records (versions' and parts' extents) */
  liveRecords: number;
  /** bytes of the LMDB index in use */
  indexBytes: number;
  compaction: CompactionTotals;
}

/** What start-up found: the redo log replayed, segment tails checked, damage (damage.ts). */
export type StoreRecovery = RecoveryReport & { replay: ReplayReport; damaged: DamageSummary };

/** The counters the engine's parts increment (segment files, the index, reads, the disk reserve). */
export interface StoreCounters {
  fdatasyncs: number;
  indexFlushWaits: number;
  corruptBlocks: number;
  outOfSpace: number;
  syncWaiters?: number;
  syncSeconds?: number;
  indexGroups?: number;
  indexGroupedOps?: number;
}

/** The engine's stats from its counters and the index's per-segment counts. */
export function storeStats(
  index: IndexDb,
  counter: StoreCounters,
  recovery: StoreRecovery,
  damage: DamageTally,
  activeSegment: number,
  compaction: CompactionTotals,
): StoreStats {
  let segmentBytes = 0;
  let liveBytes = 0;
  let liveRecords = 0;
  for (const { value } of index.segments.getRange({})) {
    segmentBytes += value.end;
    liveBytes += value.live;
    liveRecords += value.records;
  }
  const lmdb = index.env.getStats() as { pageSize: number; lastPageNumber: number };
  return {
    fdatasyncs: counter.fdatasyncs,
    indexFlushWaits: counter.indexFlushWaits,
    indexGroups: counter.indexGroups ?? 0,
    indexGroupedOps: counter.indexGroupedOps ?? 0,
    corruptBlocks: counter.corruptBlocks,
    outOfSpace: counter.outOfSpace,
    syncWaiters: counter.syncWaiters ?? 0,
    syncSeconds: counter.syncSeconds ?? 0,
    recovery,
    damage: { objects: damage.objects, missingBytes: damage.missingBytes },
    activeSegment,
    segmentBytes,
    liveBytes,
    liveRecords,
    indexBytes: (lmdb.lastPageNumber + 1) * lmdb.pageSize,
    compaction,
  };
}
