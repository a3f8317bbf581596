// What /proc tells about a server process: its listening sockets.

import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** What an fd of the process points at; '' for one closed since the directory was read (a running server opens and closes fds). */
function fdTarget(pid: number, fd: string): string {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/** Listening TCP sockets of the process on `port`. */
export function listeningSockets(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const m = /^socket:\[(\d+)\]$/.exec(fdTarget(pid, fd));
    if (m) inodes.add(m[1]!);
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => {
      const f = line.trim().split(/\s+/);
      return f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A' && inodes.has(f[9]!);
    }).length;
}
