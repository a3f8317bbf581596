// Completes recently answered, so that a client's retry of an identical Complete (its answer was
// lost) gets the same 200 instead of NoSuchUpload (s3.md §3.23, §8). In memory: a restart forgets.

import type { XmlAnswer } from './long-running.js';

const RETRY_WINDOW_MS = 10 * 60_000;
const MAX_REMEMBERED = 10_000;

interface Remembered {
  at: number;
  /** the parts the Complete named, as `n:etag,…` */
  choice: string;
  answer: XmlAnswer;
}

const completed = new Map<string, Remembered>();

function idOf(bucket: string, key: string, uploadId: string): string {
  return `${bucket}\n${key}\n${uploadId}`;
}

export function choiceOf(parts: ReadonlyArray<{ partNumber: number; etag: string }>): string {
  return parts.map((p) => `${p.partNumber}:${p.etag}`).join(',');
}

export function rememberCompleted(bucket: string, key: string, uploadId: string, choice: string, answer: XmlAnswer, now = Date.now()): void {
  // Map order is insertion order: the oldest entries go first
  for (const [id, r] of completed) {
    if (completed.size < MAX_REMEMBERED && now - r.at < RETRY_WINDOW_MS) break;
    completed.delete(id);
  }
  completed.set(idOf(bucket, key, uploadId), { at: now, choice, answer });
}

/** The answer of an identical Complete of this upload within the retry window. */
export function recallCompleted(bucket: string, key: string, uploadId: string, choice: string, now = Date.now()): XmlAnswer | undefined {
  const r = completed.get(idOf(bucket, key, uploadId));
  return r && r.choice === choice && now - r.at < RETRY_WINDOW_MS ? r.answer : undefined;
}
