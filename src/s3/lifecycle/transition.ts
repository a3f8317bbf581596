// Lifecycle transitions to storage class WALRUS (issue #34): a version's bytes are read from the
// engine and stored as blobs, each certified, or, for a version small enough, as a patch of a quilt
// shared with the other small versions of the pass (TogetherMoves); then one logged engine change
// (dropBody) points the version at them and releases its local bytes, which compaction gives back.
// A crash before that change leaves the version on local bytes (the next pass starts again: what
// was already stored lapses, or stays in a quilt others share); after it, on certified blobs. The
// change is a compare-and-swap on the version (id, entity tag, date): a version overwritten or
// removed meanwhile is left alone.

import type { WalrusBlobs } from '../../base/walrus-blobs.js';
import type { S3Bucket, S3Object, S3Store } from '../object-attrs.js';
import { WalrusBlobSink, WALRUS_STORAGE_CLASS, walrusPatchLabel } from '../walrus-objects.js';
import { ruleMatches, transitionsAt, type LifecycleRule } from './rules.js';

/** Bytes read from the engine per step while a version becomes blobs. */
const READ_STEP = 1024 * 1024;
/**
 * The most small versions, and bytes of them, that move together: the publisher's quilt batcher
 * splits what exceeds one quilt, and this bounds what is held in memory at once.
 */
const TOGETHER_VERSIONS = 256;
const TOGETHER_BYTES = 16 * 1024 * 1024;

/** Can this version move to WALRUS? Not a marker, not there already, not encrypted (WALRUS has no SSE yet), not damaged. */
function movable(v: S3Object): boolean {
  return !v.deleteMarker && v.attrs.walrus === undefined && v.attrs.encryption === undefined && !v.damaged;
}

/** Is a current version due to transition under one of `rules` at `now`? */
export function currentDue(rules: readonly LifecycleRule[], v: S3Object, now: number, dayMs: number): boolean {
  if (!movable(v)) return false;
  return rules.some((r) => {
    const at = transitionsAt(r, v, dayMs);
    return at !== undefined && now >= at;
  });
}

/**
 * Noncurrent versions (newest first, `supersededAt[i]` when version i became noncurrent) due to
 * transition: NoncurrentDays after that, beyond the NewerNoncurrentVersions newest kept as they are.
 */
export function noncurrentDue(rules: readonly LifecycleRule[], versions: readonly S3Object[], supersededAt: readonly number[], now: number, dayMs: number): S3Object[] {
  const due = new Set<S3Object>();
  for (const rule of rules) {
    const nt = rule.noncurrentTransition;
    if (!nt) continue;
    let kept = 0;
    versions.forEach((v, i) => {
      if (v.deleteMarker || !ruleMatches(rule, v)) return;
      if (kept < (nt.newerNoncurrentVersions ?? 0)) {
        kept++;
        return;
      }
      if (movable(v) && now >= supersededAt[i]! + nt.days * dayMs) due.add(v);
    });
  }
  return [...due];
}

/** Moves one version's bytes to blobs and the version onto them; false when the version changed meanwhile. */
export async function transitionVersion(store: S3Store, walrus: WalrusBlobs, bucket: S3Bucket, v: S3Object): Promise<boolean> {
  const sink = new WalrusBlobSink(walrus);
  const reader = store.openRead(v, 0, v.size);
  try {
    // the reader reuses its buffer: the sink keeps what it is given
    for (let chunk = await reader.read(READ_STEP); chunk; chunk = await reader.read(READ_STEP)) await sink.write(Buffer.from(chunk));
  } finally {
    reader.close();
  }
  // a patch tagged, or blobs with attributes, naming the version for walrus-import
  const walrusAt = await sink.finish(walrusPatchLabel(bucket.name, v.key, v.attrs, v.etag, v.lastModified));
  if (walrusAt.size !== v.size) throw new Error(`${bucket.name}/${v.key}: read ${walrusAt.size} of ${v.size} bytes`);
  // attrs as they are at the swap (tags or ACL changed meanwhile stay), with the new class and place
  return store.dropBody(bucket.name, v.key, v, (attrs) => ({ ...attrs, storageClass: WALRUS_STORAGE_CLASS, walrus: walrusAt }));
}

/**
 * Small versions (quilt patches) moved together. The quilt batcher gathers the patches that arrive
 * within one window, so versions moved one after another would each make a quilt of their own,
 * paying a blob's fixed costs each; gathered here and moved at once, they share quilts.
 */
export class TogetherMoves {
  private moves: Array<() => Promise<void>> = [];
  private bytes = 0;

  /** Queues a move of `size` bytes; moves the queue once it is full. */
  async add(size: number, move: () => Promise<void>): Promise<void> {
    this.moves.push(move);
    this.bytes += size;
    if (this.moves.length >= TOGETHER_VERSIONS || this.bytes >= TOGETHER_BYTES) await this.flush();
  }

  /** Runs the queued moves at once; each settles on its own (a move reports its own failure). */
  async flush(): Promise<void> {
    const moves = this.moves;
    this.moves = [];
    this.bytes = 0;
    await Promise.all(moves.map((move) => move()));
  }
}
