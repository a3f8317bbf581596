// Index changes as redo operations. Every change to a key's versions, an upload or a part is
// decided first (under the key's lock, from the index as it is), written as an operation record
// into the active segment, made durable with the bodies it names (one fdatasync), and only then
// applied to the index — without waiting for LMDB's own flush. `applyOp` is the one function that
// applies an operation: at commit, and again at start-up for operations whose index transaction
// did not reach the disk (redo-log.ts). Given the index as it was, it always does the same thing.

import { pack, unpack } from 'msgpackr';
import {
  objectKey,
  partKey,
  partsOf,
  uploadKey,
  type IndexDb,
  type SegmentStats,
  type StoredPart,
  type StoredVersion,
} from './index-db.js';
import { SEGMENT_HEADER_SIZE } from './format.js';
import { findVersion, pushVersion, removeVersion } from './version-chain.js';
import type { Extent, Notice, VersioningState } from './types.js';

/** Where a record's bytes end, so that recovery keeps them. */
export interface RecordEnd {
  segment: number;
  end: number;
}

interface OpBase {
  seq: number;
  /** bucket and key */
  b: string;
  k: string;
  /** records whose bytes this operation makes live */
  ends?: RecordEnd[];
  /** the face's notice (types.ts Notice): applying the operation stores it in `notices` */
  ev?: Notice;
}

/** A change to announce, as `notices` holds it until every target has it (src/notify). */
export interface StoredNotice {
  seq: number;
  t: 'put' | 'remove' | 'attrs' | 'complete';
  b: string;
  k: string;
  versionId: string | null;
  /** a new version's size and entity tag (put, complete) */
  size?: number;
  etag?: string;
  deleteMarker?: boolean;
  ev: Notice;
  /** targets that have it already (or gave it up): written by the notifier */
  done?: string[];
}

/**
 * The announcement of an operation that carries a notice (undefined for an operation that announces
 * nothing). Built field by field, not by spreads: it runs twice for every notified change (applyOp, announce).
 */
export function storedNoticeOf(op: RedoOp & { ev: Notice }): StoredNotice | undefined {
  switch (op.t) {
    case 'put':
    case 'complete': {
      const notice: StoredNotice = { seq: op.seq, t: op.t, b: op.b, k: op.k, versionId: op.v.versionId, size: op.v.size, etag: op.v.etag, ev: op.ev };
      if (op.v.deleteMarker) notice.deleteMarker = true;
      return notice;
    }
    case 'remove':
    case 'attrs':
      return { seq: op.seq, t: op.t, b: op.b, k: op.k, versionId: op.versionId, ev: op.ev };
    default:
      return undefined;
  }
}

export type RedoOp = OpBase &
  (
    /** a new latest version (an object, a copy or a delete marker); `counted`: its extents are already referenced (completed parts) */
    | { t: 'put'; v: StoredVersion; mode: VersioningState }
    /** one version removed for good */
    | { t: 'remove'; versionId: string }
    /** `dropBody`: the version's bytes moved elsewhere (a storage class transition): its extents are released, its size is 0 */
    | { t: 'attrs'; versionId: string | null; attrs: unknown; dropBody?: true }
    | { t: 'upload'; uploadId: string; initiated: number; attrs: unknown }
    | { t: 'part'; uploadId: string; n: number; part: StoredPart }
    /** the chosen parts become the latest version; the upload and its other parts go */
    | { t: 'complete'; uploadId: string; chosen: number[]; v: StoredVersion; mode: VersioningState }
    | { t: 'abort'; uploadId: string }
  );

export function encodeOp(op: RedoOp): Buffer {
  return pack(op);
}

export function decodeOp(bytes: Buffer): RedoOp {
  return unpack(bytes) as RedoOp;
}

/** Told of every version or part dropped from the index (damage.ts counts the damaged ones). */
export interface ReleaseListener {
  release(extents: Extent[]): void;
}

/** What applying needs besides the index: the segment accounting of the store. */
export interface ApplyContext {
  db: IndexDb;
  account(extents: Extent[], sign: 1 | -1): void;
  markEnd(segment: number, end: number): void;
}


const noStats = (): SegmentStats => ({ live: 0, records: 0, end: SEGMENT_HEADER_SIZE });

/** The segment accounting of `db`, to be used inside its write transactions. */
export function accountingContext(db: IndexDb, released?: ReleaseListener): ApplyContext {
  const stats = (segment: number): SegmentStats => db.segments.get(segment) ?? noStats();
  return {
    db,
    /** Moves extents in or out of their segments' live counts. */
    account(extents, sign) {
      if (sign < 0) released?.release(extents);
      for (const extent of extents) {
        const s = stats(extent.segment);
        db.segments.putSync(extent.segment, { live: s.live + sign * extent.length, records: s.records + sign, end: s.end });
      }
    },
    /** Recovery keeps a segment's bytes up to its furthest committed record. */
    markEnd(segment, end) {
      const s = stats(segment);
      if (end > s.end) db.segments.putSync(segment, { ...s, end });
    },
  };
}

/**
 * The segment accounting of a group of operations applied in one transaction: each segment's
 * counts are read once and written once, by `flush`, which the transaction must call last.
 */
export function groupAccounting(db: IndexDb, released?: ReleaseListener): ApplyContext & { flush(): void } {
  const touched = new Map<number, SegmentStats>();
  const stats = (segment: number): SegmentStats => {
    let s = touched.get(segment);
    if (!s) touched.set(segment, (s = { ...(db.segments.get(segment) ?? noStats()) }));
    return s;
  };
  return {
    db,
    account(extents, sign) {
      if (sign < 0) released?.release(extents);
      for (const extent of extents) {
        const s = stats(extent.segment);
        s.live += sign * extent.length;
        s.records += sign;
      }
    },
    markEnd(segment, end) {
      const s = stats(segment);
      if (end > s.end) s.end = end;
    },
    flush() {
      for (const [segment, s] of touched) db.segments.putSync(segment, s);
      touched.clear();
    },
  };
}

/** Applies `op` inside an index write transaction. */
export function applyOp(ctx: ApplyContext, op: RedoOp): void {
  const { db } = ctx;
  for (const e of op.ends ?? []) ctx.markEnd(e.segment, e.end);
  // in the change's own transaction: no change without its notice, no notice without its change
  if (op.ev && !op.ev.live) {
    const notice = storedNoticeOf(op as RedoOp & { ev: Notice });
    if (notice) db.notices.putSync(op.seq, notice);
  }
  const objKey = objectKey(op.b, op.k);
  switch (op.t) {
    case 'put': {
      for (const v of pushVersion(db, objKey, op.v, op.mode)) ctx.account(v.extents, -1);
      ctx.account(op.v.extents, +1);
      return;
    }
    case 'remove': {
      const found = findVersion(db, objKey, op.versionId);
      if (!found) return;
      removeVersion(db, objKey, found);
      ctx.account(found.version.extents, -1);
      return;
    }
    case 'attrs': {
      const latest = db.objects.get(objKey);
      const found = op.versionId === null ? latest && ({ where: 'latest', version: latest } as const) : findVersion(db, objKey, op.versionId);
      if (!found) return;
      const next = op.dropBody ? { ...found.version, attrs: op.attrs, size: 0, extents: [] } : { ...found.version, attrs: op.attrs };
      if (op.dropBody) ctx.account(found.version.extents, -1);
      if (found.where === 'latest') db.objects.putSync(objKey, next);
      else db.versions.putSync(found.at, next);
      return;
    }
    case 'upload':
      db.uploads.putSync(uploadKey(objKey, op.uploadId), { initiated: op.initiated, attrs: op.attrs });
      return;
    case 'part': {
      const at = partKey(op.uploadId, op.n);
      const old = db.parts.get(at);
      if (old) ctx.account(old.extents, -1);
      db.parts.putSync(at, op.part);
      ctx.account(op.part.extents, +1);
      return;
    }
    case 'complete': {
      const chosen = new Set(op.chosen);
      for (const { partNumber, key, value } of partsOf(db, op.uploadId)) {
        // the chosen parts' extents now belong to the version
        if (!chosen.has(partNumber)) ctx.account(value.extents, -1);
        db.parts.removeSync(key);
      }
      db.uploads.removeSync(uploadKey(objKey, op.uploadId));
      for (const v of pushVersion(db, objKey, op.v, op.mode)) ctx.account(v.extents, -1);
      return;
    }
    case 'abort': {
      dropUpload(ctx, objKey, op.uploadId);
      return;
    }
  }
}

/** Removes an upload and frees its parts. */
export function dropUpload(ctx: ApplyContext, objKey: Buffer, uploadId: string): void {
  for (const { key, value } of partsOf(ctx.db, uploadId)) {
    ctx.account(value.extents, -1);
    ctx.db.parts.removeSync(key);
  }
  ctx.db.uploads.removeSync(uploadKey(objKey, uploadId));
}
