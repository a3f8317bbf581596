// The lifecycle worker: every interval, one pass over each bucket with rules, applying them as
// AWS's lifecycle does (user guide "Lifecycle configuration elements"): current versions expire
// (a delete marker in versioned buckets), noncurrent versions are removed after NoncurrentDays
// beyond NewerNoncurrentVersions, a lone expired delete marker is removed, old incomplete uploads
// are aborted. Object lock wins: a locked version is skipped (the engine's mayRemove guard).

import type { LogLine } from '../../log/log-line.js';
import { isStoreError } from '../../store/errors.js';
import type { S3Bucket } from '../object-attrs.js';
import type { S3Object, S3Store } from '../object-attrs.js';
import { removalGuard } from '../object-lock.js';
import { noticeField, noticeOf } from '../notification.js';
import type { Notice } from '../../store/types.js';
import { expiresAt, lifecycleRulesOf, ruleMatches, type LifecycleRule } from './rules.js';

const PAGE = 1000;

export interface LifecycleStats {
  passes: number;
  expired: number;
  noncurrentRemoved: number;
  markersRemoved: number;
  uploadsAborted: number;
  /** versions a rule selected but object lock protected */
  lockedSkipped: number;
}

export interface LifecycleWorker {
  readonly stats: LifecycleStats;
  /** Runs one pass now (tests, and the timer). */
  runOnce(now?: number): Promise<void>;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

type Log = LogLine;

export function startLifecycleWorker(store: S3Store, options: { intervalMs: number; dayMs: number }, log: Log): LifecycleWorker {
  const stats: LifecycleStats = { passes: 0, expired: 0, noncurrentRemoved: 0, markersRemoved: 0, uploadsAborted: 0, lockedSkipped: 0 };
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = async (now: number): Promise<void> => {
    try {
      for (const bucket of store.listBuckets()) {
        if (stopped) break;
        const rules = lifecycleRulesOf(bucket)?.filter((r) => r.enabled);
        if (rules?.length) await applyRules(store, bucket, rules, now, options.dayMs, stats);
      }
      stats.passes++;
    } catch (e) {
      log(`lifecycle pass failed: ${(e as Error).stack ?? e}`, 'error');
    }
  };
  // one pass at a time; cleared in a later microtask, so a pass that finishes synchronously cannot stick
  const runOnce = (now = Date.now()): Promise<void> => {
    running ??= pass(now).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runOnce(), options.intervalMs);
  timer.unref();
  return {
    stats,
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** The notice of a lifecycle removal (s3:LifecycleExpiration:*; AWS names S3 itself as the requester). */
function expiryNotice(bucket: S3Bucket, key: string): { notice?: Notice } {
  return noticeField(noticeOf(bucket, 'LifecycleExpiration:*', key));
}

/** Removes one version unless it is locked or already gone; true when removed. */
async function removeVersion(store: S3Store, bucket: S3Bucket, v: S3Object, stats: LifecycleStats): Promise<boolean> {
  try {
    const out = await store.deleteObject(bucket.name, v.key, { versionId: v.versionId, mayRemove: removalGuard(false), ...expiryNotice(bucket, v.key) });
    return out.kind === 'removed';
  } catch (e) {
    if (isStoreError(e, 'condition-failed')) {
      stats.lockedSkipped++;
      return false;
    }
    if (isStoreError(e, 'namespace-missing')) return false;
    throw e;
  }
}

/** A key's versions, newest first (the first is the latest). */
async function applyToKey(
  store: S3Store,
  bucket: S3Bucket,
  rules: LifecycleRule[],
  versions: S3Object[],
  now: number,
  dayMs: number,
  stats: LifecycleStats,
): Promise<void> {
  const [latest, ...noncurrent] = versions;
  if (!latest) return;
  // noncurrent versions: NoncurrentDays count from when the next newer version superseded it
  const removed = new Set<S3Object>();
  for (const rule of rules) {
    const nc = rule.noncurrentExpiration;
    if (!nc) continue;
    let kept = 0;
    for (let i = 0; i < noncurrent.length; i++) {
      const v = noncurrent[i]!;
      if (removed.has(v) || !ruleMatches(rule, v)) continue;
      if (kept < (nc.newerNoncurrentVersions ?? 0)) {
        kept++;
        continue;
      }
      const supersededAt = (i === 0 ? latest : noncurrent[i - 1]!).lastModified;
      if (now >= supersededAt + nc.days * dayMs && (await removeVersion(store, bucket, v, stats))) {
        removed.add(v);
        stats.noncurrentRemoved++;
      }
    }
  }
  const remaining = noncurrent.filter((v) => !removed.has(v));
  if (latest.deleteMarker) {
    // a delete marker with no noncurrent versions left is "expired" (AWS ExpiredObjectDeleteMarker)
    const markerRule = rules.some((r) => r.expiration?.expiredObjectDeleteMarker && latest.key.startsWith(r.filter.prefix));
    if (markerRule && remaining.length === 0) {
      const out = await store.deleteObject(bucket.name, latest.key, { versionId: latest.versionId, ...expiryNotice(bucket, latest.key) });
      if (out.kind === 'removed') stats.markersRemoved++;
    }
    return;
  }
  for (const rule of rules) {
    const at = expiresAt(rule, latest, dayMs);
    if (at === undefined || now < at) continue;
    try {
      // only the version judged here: a newer write since wins (If-Match inside the engine's transaction)
      const out = await store.deleteObject(bucket.name, latest.key, {
        condition: { ifMatch: latest.etag },
        mayRemove: removalGuard(false),
        ...expiryNotice(bucket, latest.key),
      });
      if (out.kind !== 'missing') stats.expired++;
    } catch (e) {
      if (isStoreError(e, 'condition-failed') && e.detail.condition === 'guard') stats.lockedSkipped++;
      else if (!isStoreError(e, 'condition-failed') && !isStoreError(e, 'not-found')) throw e;
    }
    return;
  }
}

async function applyRules(
  store: S3Store,
  bucket: S3Bucket,
  rules: LifecycleRule[],
  now: number,
  dayMs: number,
  stats: LifecycleStats,
): Promise<void> {
  const versionRules = rules.filter((r) => r.expiration || r.noncurrentExpiration);
  if (versionRules.length) {
    let keyMarker = '';
    let versionIdMarker = '';
    let key: string | undefined;
    let versions: S3Object[] = [];
    for (;;) {
      const page = store.listVersions(bucket.name, { prefix: '', delimiter: '', keyMarker, versionIdMarker, maxKeys: PAGE });
      for (const item of page.items) {
        if (item.kind !== 'version') continue;
        if (item.version.key !== key) {
          await applyToKey(store, bucket, versionRules, versions, now, dayMs, stats);
          key = item.version.key;
          versions = [];
        }
        versions.push(item.version);
      }
      if (!page.isTruncated) break;
      keyMarker = page.nextKeyMarker ?? '';
      versionIdMarker = page.nextVersionIdMarker ?? '';
    }
    await applyToKey(store, bucket, versionRules, versions, now, dayMs, stats);
  }
  const abortRules = rules.filter((r) => r.abortIncompleteDays !== undefined);
  if (!abortRules.length) return;
  let keyMarker = '';
  let uploadIdMarker = '';
  for (;;) {
    const page = store.listUploads(bucket.name, { prefix: '', delimiter: '', keyMarker, uploadIdMarker, maxUploads: PAGE });
    for (const item of page.items) {
      if (item.kind !== 'upload') continue;
      const u = item.upload;
      const due = abortRules.some((r) => u.key.startsWith(r.filter.prefix) && now >= u.initiated + r.abortIncompleteDays! * dayMs);
      if (due && (await store.abortUpload(bucket.name, u.key, u.uploadId))) stats.uploadsAborted++;
      keyMarker = u.key;
      uploadIdMarker = u.uploadId;
    }
    if (!page.isTruncated) break;
  }
}
