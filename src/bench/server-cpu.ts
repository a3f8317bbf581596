// The CPU time of a server process on this machine (all its threads, user + system), from Linux's
// /proc: lets a run report what each operation cost the server, not only the generator.

import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc/<pid>/stat's times, 100 on Linux. */
const CLOCK_TICKS = 100;

/** CPU time of process `pid` so far, in ms; throws when it is gone or /proc is not Linux's. */
export function processCpuMs(pid: number): number {
  // the fields after the parenthesised command name (which may hold spaces): utime is the 12th, stime the 13th
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`/proc/${pid}/stat has no CPU times`);
  return ((utime + stime) * 1000) / CLOCK_TICKS;
}
