// Damage the index knows of: acknowledged body bytes that are no longer on disk. The index commits
// only after the bodies it names are durable, so a segment file shorter than the end the index
// records for it (or gone) is never a crash: it is a disk or file-system fault (or a hand), and the
// bytes past the file's end are lost. At start-up every version and part whose body reaches past
// its segment file's end is flagged (`damaged`: the body bytes missing), so that any thread refuses
// to read or copy it without touching the disk, and counted (DamageTally) for the metrics, the
// readiness probe and the logs. `tusk scrub` runs the same search (findDamage) offline.

import { extentTable, type ExtentTable, type IndexDb, type StoredPart, type StoredVersion } from './index-db.js';
import type { Extent } from './types.js';

/** One version or part some of whose body bytes are missing. */
export interface DamagedRef {
  table: ExtentTable;
  /** its key in `table` */
  at: Buffer;
  /** "bucket/key (version v)", or "upload U part N (bucket/key)" */
  name: string;
  /** body bytes missing, over all its extents */
  missing: number;
  /** its extents that lie (partly) past their file's end, with the bytes each is missing */
  extents: Array<{ extent: Extent; missing: number }>;
}

/** A segment the index knows whose file holds fewer bytes than the index's end for it. */
export interface ShortSegment {
  segment: number;
  /** bytes on disk (0: the file is gone) */
  size: number;
  /** the end of its furthest committed record, as the index records it */
  end: number;
}

const SEQ_SUFFIX = 9; // 0x00 and the u64 (2^53 − 1 − seq) of a versions key
const UPLOAD_ID_BYTES = 32;

function splitObjectKey(objKey: Buffer): string {
  const zero = objKey.indexOf(0);
  return `${objKey.toString('utf8', 0, zero)}/${objKey.toString('utf8', zero + 1)}`;
}

/** Each extent of `extents` that reaches past its file's end, and by how many body bytes. */
function missingOf(extents: Extent[], short: Map<number, ShortSegment>): Array<{ extent: Extent; missing: number }> {
  const out: Array<{ extent: Extent; missing: number }> = [];
  for (const extent of extents) {
    const s = short.get(extent.segment);
    if (!s) continue;
    const missing = Math.min(extent.length, extent.offset + extent.length - s.size);
    if (missing > 0) out.push({ extent, missing });
  }
  return out;
}

/** Where each upload id belongs ("bucket/key"), to name a damaged part. */
function uploadOwners(db: IndexDb): Map<string, string> {
  const owners = new Map<string, string>();
  for (const key of db.uploads.getKeys({}) as Iterable<Buffer>) {
    if (!Buffer.isBuffer(key) || key.length <= UPLOAD_ID_BYTES + 1) continue;
    owners.set(key.toString('latin1', key.length - UPLOAD_ID_BYTES), splitObjectKey(key.subarray(0, key.length - UPLOAD_ID_BYTES - 1)));
  }
  return owners;
}

/**
 * Every version and part the index holds whose body is partly past the end of a short segment's
 * file, and (`healed`) those marked damaged before whose bytes are all there now (a restored
 * file). A read of the whole index: run only when some segment is short or something is flagged.
 */
export function findDamage(db: IndexDb, short: Map<number, ShortSegment>): { damaged: DamagedRef[]; healed: Array<{ table: ExtentTable; at: Buffer }> } {
  const damaged: DamagedRef[] = [];
  const healed: Array<{ table: ExtentTable; at: Buffer }> = [];
  let owners: Map<string, string> | undefined;
  for (const table of ['objects', 'versions', 'parts'] as const) {
    const range = db[table].getRange({}) as Iterable<{ key: Buffer; value: StoredVersion | StoredPart }>;
    for (const { key, value } of range) {
      if (!Buffer.isBuffer(key) || !value || !Array.isArray(value.extents)) continue; // msgpackr's shared structures
      const extents = missingOf(value.extents, short);
      if (extents.length === 0) {
        if (value.damaged) healed.push({ table, at: Buffer.from(key) });
        continue;
      }
      let name: string;
      if (table === 'parts') {
        const uploadId = key.toString('latin1', 0, UPLOAD_ID_BYTES);
        owners ??= uploadOwners(db);
        name = `upload ${uploadId} part ${key.readUInt16BE(UPLOAD_ID_BYTES)} (${owners.get(uploadId) ?? 'upload gone'})`;
      } else {
        const objKey = table === 'objects' ? key : key.subarray(0, key.length - SEQ_SUFFIX);
        name = `${splitObjectKey(objKey)} (version ${(value as StoredVersion).versionId})`;
      }
      const missing = extents.reduce((sum, e) => sum + e.missing, 0);
      damaged.push({ table, at: Buffer.from(key), name, missing, extents });
    }
  }
  return { damaged, healed };
}

/**
 * Start-up: flags every damaged version and part with its missing bytes and clears the flag of
 * those whose bytes are back, in one transaction. `meta/damaged` counts the flagged ones, so that
 * the next start looks again even when no segment is short any more.
 */
export function markDamage(db: IndexDb, short: Map<number, ShortSegment>): DamagedRef[] {
  if (short.size === 0 && !db.meta.get('damaged')) return [];
  const { damaged, healed } = findDamage(db, short);
  db.env.transactionSync(() => {
    for (const ref of damaged) {
      const table = extentTable(db, ref.table);
      const value = table.get(ref.at);
      if (value && value.damaged !== ref.missing) table.putSync(ref.at, { ...value, damaged: ref.missing });
    }
    for (const { table, at } of healed) {
      const value = extentTable(db, table).get(at);
      if (!value) continue;
      const { damaged: _gone, ...whole } = value;
      extentTable(db, table).putSync(at, whole);
    }
    if (damaged.length > 0) db.meta.putSync('damaged', damaged.length);
    else db.meta.removeSync('damaged');
  });
  return damaged;
}

function place(extent: Extent): string {
  return `${extent.segment}:${extent.offset}`;
}

/**
 * The damage still referenced: each damaged record (extent) with its missing bytes and how many
 * versions and parts reference it. A version or part dropped since start-up (deleted, overwritten)
 * releases its references, so the counts fall as the operator cleans up.
 */
export class DamageTally {
  /** by place: bytes missing, references, and references for which it is the first damaged extent */
  private readonly records = new Map<string, { missing: number; refs: number; firsts: number }>();

  constructor(refs: DamagedRef[] = []) {
    for (const ref of refs) {
      ref.extents.forEach(({ extent, missing }, i) => {
        const at = place(extent);
        const record = this.records.get(at) ?? { missing, refs: 0, firsts: 0 };
        record.refs++;
        if (i === 0) record.firsts++;
        this.records.set(at, record);
      });
    }
  }

  /** A version or part holding `extents` is gone from the index. */
  release(extents: Extent[]): void {
    if (this.records.size === 0) return;
    let first = true;
    for (const extent of extents) {
      const at = place(extent);
      const record = this.records.get(at);
      if (!record) continue;
      record.refs--;
      if (first) record.firsts--;
      first = false;
      if (record.refs <= 0) this.records.delete(at);
    }
  }

  /** Versions and parts with missing bytes. */
  get objects(): number {
    let n = 0;
    for (const r of this.records.values()) n += r.firsts;
    return n;
  }

  /** Body bytes missing, each lost record once however many versions share it. */
  get missingBytes(): number {
    let n = 0;
    for (const r of this.records.values()) n += r.missing;
    return n;
  }
}

/** How many damaged versions and parts a report names (the logs' share; `tusk scrub` lists all). */
const DAMAGE_NAMED_MAX = 100;

/** What start-up found, for the log: counts, and the first DAMAGE_NAMED_MAX damaged versions and parts. */
export interface DamageSummary {
  objects: number;
  missingBytes: number;
  named: Array<{ name: string; missing: number }>;
}

export function summarizeDamage(refs: DamagedRef[]): DamageSummary {
  const tally = new DamageTally(refs);
  return {
    objects: tally.objects,
    missingBytes: tally.missingBytes,
    named: refs.slice(0, DAMAGE_NAMED_MAX).map(({ name, missing }) => ({ name, missing })),
  };
}
