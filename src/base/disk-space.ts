// Free space of a file system, as the readiness check (ops/health.ts) and the embedded publisher's
// storage nodes (a full disk refuses new blobs) both read it.

import { statfs } from 'node:fs/promises';

export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
}

/** Free space of the file system holding `dir` (what an unprivileged writer may use). */
export async function diskSpace(dir: string): Promise<DiskSpace> {
  const s = await statfs(dir);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}
