// Object lock (s3.md §3.0.9, AWS "Object Lock" user guide): retention modes, legal holds and the
// bucket's default retention, all judged against the server's clock. Handlers of PutObject,
// CopyObject and CreateMultipartUpload take a new version's lock from lockOfNewVersion().

import type { S3Bucket } from './object-attrs.js';
import { isBucketOwner, type Principal } from './access.js';
import { S3Error } from './errors/errors.js';
import type { Retention, RetentionMode, S3Object, S3ObjectAttrs } from './object-attrs.js';

export const LOCK_MODE_HEADER = 'x-amz-object-lock-mode';
export const LOCK_UNTIL_HEADER = 'x-amz-object-lock-retain-until-date';
export const LEGAL_HOLD_HEADER = 'x-amz-object-lock-legal-hold';
export const BYPASS_GOVERNANCE_HEADER = 'x-amz-bypass-governance-retention';

const DAY_MS = 86_400_000;
/** AWS counts a default-retention year as 365 days (Object Lock "Retention periods"). */
const YEAR_MS = 365 * DAY_MS;

export const MISSING_LOCK_CONFIGURATION = 'Bucket is missing Object Lock Configuration';

export function isRetentionMode(v: string | undefined): v is RetentionMode {
  return v === 'GOVERNANCE' || v === 'COMPLIANCE';
}

/** An ISO 8601 timestamp (as SDKs send it) → ms; InvalidArgument otherwise. */
export function parseRetainUntil(value: string, argument: string): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(value.trim()) ? Date.parse(value.trim()) : NaN;
  if (Number.isNaN(t)) {
    throw new S3Error('InvalidArgument', { ArgumentName: argument, ArgumentValue: value }, { message: 'The retain until date must be provided in ISO 8601 format' });
  }
  return t;
}

function pastDateError(extras: Record<string, string> = {}): S3Error {
  return new S3Error('InvalidArgument', extras, { message: 'The retain until date must be in the future!' });
}

export function parseLegalHoldStatus(value: string | undefined, argument: string): boolean {
  if (value === 'ON') return true;
  if (value === 'OFF') return false;
  throw new S3Error('InvalidArgument', { ArgumentName: argument, ArgumentValue: value }, { message: "Legal Hold must be either of 'ON' or 'OFF'" });
}

/** The bucket's default retention, as a Retention starting `now`. */
export function defaultRetention(bucket: S3Bucket, now: number): Retention | undefined {
  const rule = bucket.versionControl?.lockRule;
  if (!bucket.objectLock || !rule) return undefined;
  return { mode: rule.mode, until: now + (rule.days !== undefined ? rule.days * DAY_MS : rule.years! * YEAR_MS) };
}

/** The request names a retention or a legal hold (`x-amz-object-lock-*`). */
export function hasLockHeaders(headers: Readonly<Record<string, string>>): boolean {
  return headers[LOCK_MODE_HEADER] !== undefined || headers[LOCK_UNTIL_HEADER] !== undefined || headers[LEGAL_HOLD_HEADER] !== undefined;
}

/**
 * The lock of a new version from the request's `x-amz-object-lock-*` headers, else the bucket's
 * default retention. The headers' values are checked first, as S3 does (date format, a date in the
 * future, the mode, the legal hold); then a bucket without object lock refuses them (s3.md §3.0.9).
 */
export function lockOfNewVersion(
  headers: Readonly<Record<string, string>>,
  bucket: S3Bucket,
  now: number,
): Pick<S3ObjectAttrs, 'retention' | 'legalHold'> {
  const mode = headers[LOCK_MODE_HEADER];
  const until = headers[LOCK_UNTIL_HEADER];
  const hold = headers[LEGAL_HOLD_HEADER];
  const out: Pick<S3ObjectAttrs, 'retention' | 'legalHold'> = {};
  if (mode !== undefined || until !== undefined) {
    if (mode === undefined || until === undefined) {
      throw new S3Error('InvalidArgument', {}, {
        message: 'x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied',
      });
    }
    const t = parseRetainUntil(until, LOCK_UNTIL_HEADER);
    if (t <= now) throw pastDateError({ ArgumentName: LOCK_UNTIL_HEADER, ArgumentValue: until });
    if (!isRetentionMode(mode)) {
      throw new S3Error('InvalidArgument', { ArgumentName: LOCK_MODE_HEADER, ArgumentValue: mode }, { message: 'Unknown wormMode directive.' });
    }
    out.retention = { mode, until: t };
  }
  const holdOn = hold !== undefined && parseLegalHoldStatus(hold, LEGAL_HOLD_HEADER);
  if (hasLockHeaders(headers) && !bucket.objectLock) {
    throw new S3Error('InvalidRequest', {}, { message: MISSING_LOCK_CONFIGURATION });
  }
  if (!out.retention) {
    const d = defaultRetention(bucket, now);
    if (d) out.retention = d;
  }
  if (holdOn) out.legalHold = true;
  return out;
}

function activeRetention(attrs: S3ObjectAttrs, now: number): Retention | undefined {
  return attrs.retention && attrs.retention.until > now ? attrs.retention : undefined;
}

/** Why a version may not be removed for good now; undefined when it may (s3.md §3.0.9). */
export function lockedBecause(version: S3Object, now: number, bypassGovernance: boolean): string | undefined {
  if (version.deleteMarker) return undefined;
  if (version.attrs.legalHold) return 'legal hold';
  const retention = activeRetention(version.attrs, now);
  if (!retention) return undefined;
  if (retention.mode === 'GOVERNANCE' && bypassGovernance) return undefined;
  return `${retention.mode} retention`;
}

/** The engine's mayRemove guard for a delete request (checked inside its transaction). */
export function removalGuard(bypassGovernance: boolean): (version: S3Object) => boolean {
  return (version) => lockedBecause(version, Date.now(), bypassGovernance) === undefined;
}

/** AWS answers a delete of a locked version with 403 AccessDenied. */
export function lockedError(): S3Error {
  return new S3Error('AccessDenied', {}, { message: 'Access Denied because object protected by object lock.' });
}

/**
 * `x-amz-bypass-governance-retention: true` from someone allowed to bypass: AWS needs the
 * s3:BypassGovernanceRetention permission, which here only the bucket owner has.
 */
/** `x-amz-bypass-governance-retention`: undefined when absent, otherwise whether it says true. */
export function bypassRequested(headers: Readonly<Record<string, string>>): boolean | undefined {
  const raw = headers[BYPASS_GOVERNANCE_HEADER];
  return raw === undefined ? undefined : raw.trim().toLowerCase() === 'true';
}

/** The bypass asked for (bypassRequested) holds only for the bucket owner. */
export function governanceBypass(requested: boolean | undefined, principal: Principal, bucket: S3Bucket): boolean {
  return requested === true && isBucketOwner(principal, bucket);
}

/**
 * May `current` retention become `next` (undefined = removed)? The refusal, or undefined. COMPLIANCE
 * can only be extended; GOVERNANCE can be shortened, removed or changed only with the bypass (s3.md §3.0.9).
 */
export function retentionChangeRefusal(current: Retention | undefined, next: Retention | undefined, now: number, bypass: boolean): S3Error | undefined {
  if (next && next.until <= now) return pastDateError();
  if (!current || current.until <= now) return undefined;
  const weakens = !next || next.until < current.until || next.mode !== current.mode;
  if (!weakens) return undefined;
  // any change of mode needs the bypass while GOVERNANCE holds, GOVERNANCE → COMPLIANCE too (AWS
  // answers it so: ceph/ceph#42505 measured it); COMPLIANCE allows only a later date
  if (current.mode === 'GOVERNANCE' && bypass) return undefined;
  return new S3Error('AccessDenied', {}, {
    message: current.mode === 'COMPLIANCE' ? 'Access Denied because object protected by object lock.' : 'Access Denied',
  });
}

/** The lock of a version as GET/HEAD answer it. */
export function lockHeaders(attrs: S3ObjectAttrs): Array<readonly [string, string]> {
  const h: Array<readonly [string, string]> = [];
  if (attrs.retention) {
    h.push([LOCK_MODE_HEADER, attrs.retention.mode], [LOCK_UNTIL_HEADER, new Date(attrs.retention.until).toISOString()]);
  }
  if (attrs.legalHold !== undefined) h.push([LEGAL_HOLD_HEADER, attrs.legalHold ? 'ON' : 'OFF']);
  return h;
}
