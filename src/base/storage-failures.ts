// Storage failures as the faces see them: the errno behind a failed write, and a guard for the
// rejections lmdb-js leaves unobserved when a commit fails.
//
// lmdb-js (3.x) turns a failed LMDB commit (ENOSPC, EDQUOT, EIO) into rejections nobody holds:
// every write of the failed batch rejects with "Commit failed (see commitError for details)",
// including the event-turn batch's own commit promise and the `put()`s whose promise callers drop,
// and `commitError`, a promise rejected with the real error, is shared by them all. Node ends the
// process on an unhandled rejection, so one DELETE on a full disk killed the server (issue 8).
// The promises callers do hold still reject, so every request learns of the failure; the
// orphans are observed here, and the real error is kept for `storageErrno`.

import { statfs } from 'node:fs/promises';
import { constants } from 'node:os';

const COMMIT_FAILED = 'Commit failed (see commitError for details)';
const TIMEOUT_MS = 1_000;

interface LmdbCommitFailure extends Error {
  commitError: Promise<never>;
}

function isCommitFailure(e: unknown): e is LmdbCommitFailure {
  return e instanceof Error && e.message === COMMIT_FAILED && (e as Partial<LmdbCommitFailure>).commitError instanceof Promise;
}

/** lmdb-js's `commitError` promise: the library hangs its `reject` on it (node_modules/lmdb/write.js rejectCommit). */
function isCommitErrorPromise(promise: Promise<unknown>, reason: unknown): boolean {
  return typeof (promise as { reject?: unknown }).reject === 'function' && reason instanceof Error && typeof (reason as { code?: unknown }).code === 'number';
}

let installed = false;

/**
 * Keeps lmdb-js's orphaned commit-failure rejections from ending the process; every other
 * unhandled rejection still does (Node's default). Idempotent; called by whoever opens an LMDB env.
 */
export function observeLmdbCommitFailures(log: (line: string) => void = (l) => console.error(l)): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason, promise) => {
    if (isCommitFailure(reason)) {
      reason.commitError.catch(() => undefined);
      return;
    }
    if (isCommitErrorPromise(promise, reason)) {
      log(`tusk: an LMDB commit failed: ${(reason as Error).message}`);
      return;
    }
    throw reason;
  });
}

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));

/**
 * The errno name (ENOSPC, EIO, …) behind a storage failure: a Node fs error, or an LMDB commit
 * failure (whose numeric code is only on its `commitError`). Undefined for anything else.
 */
export async function storageErrno(e: unknown): Promise<string | undefined> {
  if (isCommitFailure(e)) {
    let timer: NodeJS.Timeout | undefined;
    const cause = await Promise.race([
      e.commitError.then(() => undefined, (c: unknown) => c),
      new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    const code = (cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'number' ? ERRNO_NAMES.get(code) ?? 'EIO' : 'EIO';
  }
  const code = (e as { code?: unknown } | undefined)?.code;
  // lmdb-js errors carry the errno as a number, Node's fs errors as its name
  if (typeof code === 'number') return ERRNO_NAMES.get(code);
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** Free space under which an EIO counts as a full disk. */
const NEARLY_FULL_BYTES = 1 << 20;

/**
 * Out of space: the disk (ENOSPC) or the user's quota (EDQUOT), or an EIO while `dir`'s file
 * system is (nearly) full: LMDB reports a short page write as EIO (mdb_page_flush), and that is
 * how a full disk often shows when only part of a page still fits.
 */
export async function isOutOfSpace(errno: string | undefined, dir?: string): Promise<boolean> {
  if (errno === 'ENOSPC' || errno === 'EDQUOT') return true;
  if (errno !== 'EIO' || dir === undefined) return false;
  try {
    const fs = await statfs(dir);
    return fs.bavail * fs.bsize < NEARLY_FULL_BYTES;
  } catch {
    return false;
  }
}
