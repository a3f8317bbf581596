import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isOutOfSpace, storageErrno } from '../../src/base/storage-failures.js';

/** The shape lmdb-js rejects a failed commit's writes with (node_modules/lmdb/write.js rejectCommit). */
function lmdbCommitFailure(errno: number): Error {
  const cause = Object.assign(new Error('No space left on device: Attempting to write page'), { code: errno });
  const commitError = Promise.reject(cause);
  commitError.catch(() => undefined);
  return Object.assign(new Error('Commit failed (see commitError for details)'), { commitError });
}

describe('storage failures', () => {
  it('names the errno of fs errors, lmdb errors and lmdb commit failures', async () => {
    expect(await storageErrno(Object.assign(new Error('write'), { code: 'ENOSPC' }))).toBe('ENOSPC');
    expect(await storageErrno(Object.assign(new Error('x'), { code: 122 }))).toBe('EDQUOT');
    expect(await storageErrno(lmdbCommitFailure(28))).toBe('ENOSPC');
    expect(await storageErrno(lmdbCommitFailure(5))).toBe('EIO');
    expect(await storageErrno(new Error('plain'))).toBeUndefined();
    expect(await storageErrno(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeUndefined();
  });

  it('counts ENOSPC and EDQUOT as out of space, EIO only on a (nearly) full file system', async () => {
    expect(await isOutOfSpace('ENOSPC')).toBe(true);
    expect(await isOutOfSpace('EDQUOT')).toBe(true);
    expect(await isOutOfSpace('EIO')).toBe(false);
    expect(await isOutOfSpace('EIO', tmpdir())).toBe(false); // the test machine's /tmp has room
    expect(await isOutOfSpace('EACCES', tmpdir())).toBe(false);
    expect(await isOutOfSpace(undefined, tmpdir())).toBe(false);
  });
});
