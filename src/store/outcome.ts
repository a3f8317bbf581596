// What a store operation decides inside its index transaction: a result, or a failure that becomes a
// rejection once the transaction has ended.

import { StoreError, type StoreSubject } from './errors.js';
import { type StoredVersion } from './index-db.js';
import { type RedoOp } from './redo-ops.js';
import { type Notice, type WriteCondition } from './types.js';

export type Failure = { fail: StoreError };
export type Outcome<T> = T | Failure;
/** What a key operation decided: the operation to log and apply (none: nothing to change), and the caller's answer. */
export type Planned<T> = { op?: RedoOp; result: T };

/** An operation's `ev` field: absent without a notice, so that a change nobody listens to logs no more than before. */
export function noticeField(notice: Notice | undefined): { ev?: Notice } {
  return notice ? { ev: notice } : {};
}

export function failed<T>(o: Outcome<T>): o is Failure {
  return typeof o === 'object' && o !== null && 'fail' in o;
}

export function fail(kind: StoreError['kind'], message: string, subject?: StoreSubject, detail?: Record<string, string | number>): Failure {
  return { fail: new StoreError(kind, message, subject, detail) };
}

/** Evaluates a write condition against the key's latest version (undefined: none or a delete marker). */
export function checkCondition(current: StoredVersion | undefined, condition: WriteCondition | undefined): Failure | undefined {
  const live = current && !current.deleteMarker ? current : undefined;
  if (condition?.ifNoneMatchStar && live) return fail('condition-failed', 'the key exists', 'key', { condition: 'If-None-Match' });
  if (condition?.ifMatch !== undefined) {
    if (!live) return fail('not-found', 'the key does not exist', 'key');
    if (condition.ifMatch !== '*' && live.etag !== condition.ifMatch) {
      return fail('condition-failed', 'the entity tag differs', 'key', { condition: 'If-Match' });
    }
  }
  return undefined;
}
