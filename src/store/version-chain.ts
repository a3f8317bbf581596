// A key's version chain (s3.md §3.0.7), changed only inside an index write transaction: the latest
// version lives in `objects`, the others in `versions` (newest first), and `nulls` says where a
// noncurrent null version is. Every function returns the versions it dropped, so that the caller
// can release their extents in the same transaction.

import {
  rangeEnd,
  versionKey,
  versionKeyLength,
  type IndexDb,
  type StoredVersion,
} from './index-db.js';
import { seqOfId } from './ids.js';
import { NULL_VERSION, type VersioningState } from './types.js';

/** Where a version was found: the latest (`objects`) or a noncurrent one at `at` in `versions`. */
export type Located = { where: 'latest'; version: StoredVersion } | { where: 'noncurrent'; version: StoredVersion; at: Buffer };

export function findVersion(db: IndexDb, objKey: Buffer, versionId: string): Located | undefined {
  const latest = db.objects.get(objKey);
  if (latest && latest.versionId === versionId) return { where: 'latest', version: latest };
  const seq = versionId === NULL_VERSION ? db.nulls.get(objKey) : seqOfId(versionId);
  if (seq === undefined) return undefined;
  const at = versionKey(objKey, seq);
  const version = db.versions.get(at);
  return version && version.versionId === versionId ? { where: 'noncurrent', version, at } : undefined;
}

/** Makes `next` the latest version; the previous latest becomes noncurrent or is replaced (null version). */
export function pushVersion(db: IndexDb, objKey: Buffer, next: StoredVersion, state: VersioningState): StoredVersion[] {
  const dropped: StoredVersion[] = [];
  const latest = db.objects.get(objKey);
  if (latest) {
    if (state === 'Unversioned' || (latest.versionId === NULL_VERSION && next.versionId === NULL_VERSION)) {
      dropped.push(latest);
    } else {
      db.versions.putSync(versionKey(objKey, latest.seq), latest);
      if (latest.versionId === NULL_VERSION) db.nulls.putSync(objKey, latest.seq);
    }
  }
  if (next.versionId === NULL_VERSION) {
    // a suspended bucket's write replaces the one null version, wherever it is (s3.md §3.0.7)
    const nullSeq = db.nulls.get(objKey);
    if (nullSeq !== undefined) {
      const at = versionKey(objKey, nullSeq);
      const old = db.versions.get(at);
      if (old) dropped.push(old);
      db.versions.removeSync(at);
      db.nulls.removeSync(objKey);
    }
  }
  db.objects.putSync(objKey, next);
  return dropped;
}

/** Removes one version for good; when it was the latest, the newest noncurrent one takes its place. */
export function removeVersion(db: IndexDb, objKey: Buffer, found: Located): void {
  if (found.where === 'noncurrent') {
    db.versions.removeSync(found.at);
    if (found.version.versionId === NULL_VERSION) db.nulls.removeSync(objKey);
    return;
  }
  const next = newestNoncurrent(db, objKey);
  if (!next) {
    db.objects.removeSync(objKey);
    return;
  }
  db.versions.removeSync(next.at);
  if (next.version.versionId === NULL_VERSION) db.nulls.removeSync(objKey);
  db.objects.putSync(objKey, next.version);
}

function newestNoncurrent(db: IndexDb, objKey: Buffer): { at: Buffer; version: StoredVersion } | undefined {
  return noncurrentVersions(db, objKey).next().value ?? undefined;
}

/** The key's noncurrent versions, newest first, from `after` (exclusive) when given. */
export function* noncurrentVersions(
  db: IndexDb,
  objKey: Buffer,
  after?: Buffer,
  transaction?: unknown,
): Generator<{ at: Buffer; version: StoredVersion }> {
  const base = Buffer.concat([objKey, Buffer.of(0)]);
  const length = versionKeyLength(objKey);
  const start = after ? Buffer.concat([after, Buffer.of(0)]) : base;
  const range = db.versions.getRange({ start, end: rangeEnd(base), ...(transaction ? { transaction } : {}) } as never);
  for (const { key, value } of range as Iterable<{ key: Buffer; value: StoredVersion }>) {
    // keys may contain 0x00: `key 0x00 x…` sorts here too, but its entries are longer
    if (key.length === length) yield { at: key, version: value };
  }
}
