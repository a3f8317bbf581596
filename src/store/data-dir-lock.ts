// One owner per data directory: two processes on one directory overwrite each other's segments
// and index. An exclusive flock(2) on <dir>/LOCK is held for the life of the process; the kernel
// drops it when the process exits, however it exits, so a crash never leaves a stale lock.
// The file also records the holder's pid, for the refusal message only (the lock is the flock).

import { closeSync, mkdirSync, openSync, readFileSync, constants as fs, ftruncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { lockFile } from '../native/process.js';

export const LOCK_FILE = 'LOCK';

export interface DataDirLock {
  readonly path: string;
  /** Drops the lock (closing the file releases the flock). Idempotent. */
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(dir: string, what: string, holderPid: number | undefined) {
    super(
      `${what} ${dir} is in use by another process${holderPid ? ` (pid ${holderPid})` : ''}: ` +
        'only one process may use a data directory at a time',
    );
    this.name = 'DataDirLockedError';
  }
}

/**
 * Creates `dir` if needed and locks it, before anything in it is read. Throws DataDirLockedError
 * when another process holds it. `what` names the directory in messages ("data directory").
 */
export function lockDataDir(dir: string, what = 'data directory'): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const fd = openSync(path, fs.O_RDWR | fs.O_CREAT, 0o600);
  let locked: boolean | undefined;
  try {
    locked = lockFile(fd);
  } catch (e) {
    closeSync(fd);
    throw new Error(`cannot lock ${what} ${dir}: ${(e as Error).message}`);
  }
  if (locked === false) {
    closeSync(fd);
    throw new DataDirLockedError(dir, what, holderPid(path));
  }
  if (locked === undefined) process.emitWarning(`no flock on ${process.platform}: ${what} ${dir} is not locked`);
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let open = true;
  return {
    path,
    release() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

function holderPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
