// The lifecycle worker: every interval, one pass over each bucket with rules, applying them as
// AWS's lifecycle does (user guide "Lifecycle configuration elements"): current versions expire
// (a delete marker in versioned buckets), noncurrent versions are removed after NoncurrentDays
// beyond NewerNoncurrentVersions, a lone expired delete marker is removed, old incomplete uploads
// are aborted, and versions whose Transition (or NoncurrentVersionTransition) is due move to
// storage class WALRUS (transition.ts), expiration first. Object lock wins: a locked version is
// skipped (the engine's mayRemove guard); a locked version may still transition (its bytes stay).
// Each action on a bucket with server access logging is journaled once the engine committed it,
// as AWS logs them (S3.EXPIRE.OBJECT, S3.CREATE.DELETEMARKER, …: logging/record.ts).

import type { LogLine } from '../../log/log-line.js';
import { isStoreError } from '../../store/errors.js';
import type { S3Bucket } from '../object-attrs.js';
import type { S3Object, S3Store } from '../object-attrs.js';
import { removalGuard } from '../object-lock.js';
import { noticeField, noticeOf } from '../notification.js';
import { eachVersionPage } from '../version-pages.js';
import { NULL_VERSION, type Notice } from '../../store/types.js';
import type { LifecycleAction, S3AccessLogging } from '../context.js';
import type { WalrusBlobs } from '../../base/walrus-blobs.js';
import { periodicPass } from '../../base/periodic-pass.js';
import { expiresAt, lifecycleRulesOf, ruleMatches, type LifecycleRule } from './rules.js';
import { currentDue, noncurrentDue, TogetherMoves, transitionVersion } from './transition.js';

const PAGE = 1000;

export interface LifecycleStats {
  passes: number;
  expired: number;
  noncurrentRemoved: number;
  markersRemoved: number;
  uploadsAborted: number;
  /** versions a rule selected but object lock protected */
  lockedSkipped: number;
  /** versions moved to storage class WALRUS */
  transitioned: number;
  /** transitions that failed (tried again at the next pass) */
  transitionsFailed: number;
}

/** What a pass needs besides the store: the Walrus network transitions store to (none: they wait). */
interface PassContext {
  store: S3Store;
  walrus: () => WalrusBlobs | undefined;
  log: Log;
  /** server access logging, once it is up (main.ts starts it after the worker) */
  accessLog: () => S3AccessLogging | undefined;
  now: number;
  dayMs: number;
  stats: LifecycleStats;
  /** the bucket's small versions due to move, moved together (their patches share quilts) */
  together: TogetherMoves;
}

export interface LifecycleWorker {
  readonly stats: LifecycleStats;
  /** Runs one pass now (tests, and the timer). */
  runOnce(now?: number): Promise<void>;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

type Log = LogLine;

export function startLifecycleWorker(
  store: S3Store,
  options: { intervalMs: number; dayMs: number },
  log: Log,
  /** the publisher's network, once it is up (main.ts starts it after the worker) */
  walrus: () => WalrusBlobs | undefined = () => undefined,
  accessLog: () => S3AccessLogging | undefined = () => undefined,
): LifecycleWorker {
  const stats: LifecycleStats = { passes: 0, expired: 0, noncurrentRemoved: 0, markersRemoved: 0, uploadsAborted: 0, lockedSkipped: 0, transitioned: 0, transitionsFailed: 0 };
  const pass = async (now = Date.now()): Promise<void> => {
    try {
      for (const bucket of store.listBuckets()) {
        if (periodic.stopped) break;
        const rules = lifecycleRulesOf(bucket)?.filter((r) => r.enabled);
        if (rules?.length) await applyRules({ store, walrus, log, accessLog, now, dayMs: options.dayMs, stats, together: new TogetherMoves() }, bucket, rules);
      }
      stats.passes++;
    } catch (e) {
      log(`lifecycle pass failed: ${(e as Error).stack ?? e}`, 'error');
    }
  };
  const periodic = periodicPass(pass, options.intervalMs);
  return { stats, runOnce: periodic.runOnce, stop: periodic.stop };
}

/** The notice of a lifecycle removal (s3:LifecycleExpiration:*; AWS names S3 itself as the requester). */
function expiryNotice(bucket: S3Bucket, key: string): { notice?: Notice } {
  return noticeField(noticeOf(bucket, 'LifecycleExpiration:*', key));
}

/** The server access log record of an action the engine committed (a bucket without logging: none). */
function logged(pc: PassContext, bucket: S3Bucket, operation: LifecycleAction['operation'], v: { key: string; versionId?: string; size?: number }): void {
  if (!bucket.logging) return;
  const versionId = v.versionId === NULL_VERSION ? undefined : v.versionId;
  pc.accessLog()?.lifecycle(bucket, { operation, key: v.key, versionId, objectSize: v.size });
}

/** Removes one version unless it is locked or already gone; true when removed. */
async function removeVersion(pc: PassContext, bucket: S3Bucket, v: S3Object): Promise<boolean> {
  try {
    const out = await pc.store.deleteObject(bucket.name, v.key, { versionId: v.versionId, mayRemove: removalGuard(false), ...expiryNotice(bucket, v.key) });
    if (out.kind !== 'removed') return false;
    logged(pc, bucket, 'expire', v);
    return true;
  } catch (e) {
    if (isStoreError(e, 'condition-failed')) {
      pc.stats.lockedSkipped++;
      return false;
    }
    if (isStoreError(e, 'namespace-missing')) return false;
    throw e;
  }
}

/** A key's versions, newest first (the first is the latest): expirations, then transitions of what is left. */
async function applyToKey(pc: PassContext, bucket: S3Bucket, rules: LifecycleRule[], versions: S3Object[]): Promise<void> {
  const left = await expireKey(pc, bucket, rules, versions);
  const network = pc.walrus();
  if (!network || left.length === 0 || !rules.some((r) => r.transition || r.noncurrentTransition)) return;
  const [latest, ...noncurrent] = left;
  // a noncurrent version's NoncurrentDays count from when the next newer version superseded it
  const superseded = noncurrent.map((_, i) => (i === 0 ? latest! : noncurrent[i - 1]!).lastModified);
  const due = noncurrentDue(rules, noncurrent, superseded, pc.now, pc.dayMs);
  if (currentDue(rules, latest!, pc.now, pc.dayMs)) due.unshift(latest!);
  for (const v of due) {
    const move = () => transition(pc, network, bucket, v);
    if (v.size <= network.patchMaxSize) await pc.together.add(v.size, move);
    else await move();
  }
}

/** Moves one version to WALRUS; a failure leaves it on local bytes, and the next pass tries again. */
async function transition(pc: PassContext, network: WalrusBlobs, bucket: S3Bucket, v: S3Object): Promise<void> {
  try {
    if (await transitionVersion(pc.store, network, bucket, v)) {
      pc.stats.transitioned++;
      logged(pc, bucket, 'transition', v);
    }
  } catch (e) {
    pc.stats.transitionsFailed++;
    pc.log(`lifecycle: transition of ${bucket.name}/${v.key} (version ${v.versionId}) to WALRUS failed: ${(e as Error).message}`, 'warn');
  }
}

/** Expirations of a key's versions (newest first); answers the versions left, newest first ([] when the latest went). */
async function expireKey(pc: PassContext, bucket: S3Bucket, rules: LifecycleRule[], versions: S3Object[]): Promise<S3Object[]> {
  const { store, now, dayMs, stats } = pc;
  const [latest, ...noncurrent] = versions;
  if (!latest) return [];
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
      if (now >= supersededAt + nc.days * dayMs && (await removeVersion(pc, bucket, v))) {
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
      if (out.kind === 'removed') {
        stats.markersRemoved++;
        logged(pc, bucket, 'expire', { key: latest.key, versionId: latest.versionId });
      }
    }
    return [latest, ...remaining];
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
      // a versioned bucket keeps the version behind a new delete marker; an unversioned one loses it
      if (out.kind === 'marker') logged(pc, bucket, 'deleteMarker', { key: latest.key, versionId: out.marker.versionId });
      else if (out.kind === 'removed') logged(pc, bucket, 'expire', latest);
    } catch (e) {
      if (isStoreError(e, 'condition-failed') && e.detail.condition === 'guard') stats.lockedSkipped++;
      else if (!isStoreError(e, 'condition-failed') && !isStoreError(e, 'not-found')) throw e;
    }
    return [];
  }
  return [latest, ...remaining];
}

async function applyRules(pc: PassContext, bucket: S3Bucket, rules: LifecycleRule[]): Promise<void> {
  const { store, now, dayMs, stats } = pc;
  const versionRules = rules.filter((r) => r.expiration || r.noncurrentExpiration || r.transition || r.noncurrentTransition);
  if (versionRules.length) {
    let key: string | undefined;
    let versions: S3Object[] = [];
    await eachVersionPage(store, bucket.name, PAGE, async (items) => {
      for (const item of items) {
        if (item.kind !== 'version') continue;
        if (item.version.key !== key) {
          await applyToKey(pc, bucket, versionRules, versions);
          key = item.version.key;
          versions = [];
        }
        versions.push(item.version);
      }
    });
    await applyToKey(pc, bucket, versionRules, versions);
    await pc.together.flush();
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
      if (due && (await store.abortUpload(bucket.name, u.key, u.uploadId))) {
        stats.uploadsAborted++;
        logged(pc, bucket, 'abortUpload', { key: u.key });
      }
      keyMarker = u.key;
      uploadIdMarker = u.uploadId;
    }
    if (!page.isTruncated) break;
  }
}
