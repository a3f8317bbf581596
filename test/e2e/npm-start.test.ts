// `npm start` passes signals on to the server (issue 8, defect 3). npm runs the script with
// `sh -c` and forwards SIGTERM/SIGINT to that shell only; a shell waiting for `node` dies and
// leaves the server running, orphaned, with its port and data directory.

import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnUntil } from './helpers/child-process.js';
import { makeTempDirFixture } from './helpers/fixtures.js';

const dirs = makeTempDirFixture();
const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  dirs.remove();
});

/** Every live descendant of `pid`, from /proc/<pid>/stat's ppid field (Linux). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // the command name (2nd field) may hold spaces: the fields after its closing parenthesis
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // exited while listing
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // a zombie still answers kill(0): it has exited
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

describe('npm start', () => {
  it('stops the server (drained, its port free) on SIGTERM to npm', async () => {
    const dataDir = `${dirs.path}/data`;
    const npm = await spawnUntil(
      ['start', '--', '--listen', '127.0.0.1:0', '--publisher-listen', 'off', '--console-listen', 'off', '--durability', 'relaxed', '--data-dir', dataDir],
      /s3 listening on http:\/\/127\.0\.0\.1:(\d+)/,
      { command: 'npm', startTimeoutMs: 120_000, label: 'npm start' },
    );
    const port = Number(npm.match[1]);
    const servers = descendants(npm.pid);
    leftovers.push(...servers);
    expect(servers.length, npm.output()).toBeGreaterThan(0);
    // the script's `node` is the Node this suite runs on (the suite runs on two: .ci/run)
    const tusk = servers.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('bin/tusk.js'));
    expect(tusk.length, npm.output()).toBeGreaterThan(0);
    for (const pid of tusk) expect(realpathSync(`/proc/${pid}/exe`)).toBe(realpathSync(process.execPath));
    expect(await portAccepts(port)).toBe(true);

    await npm.stop(10_000);
    const allGone = await waitFor(() => servers.every((pid) => !isAlive(pid)), 10_000);
    expect(allGone, `still running: ${servers.filter(isAlive).join(', ')}\n${npm.output()}`).toBe(true);
    expect(npm.output()).toContain('SIGTERM: draining in-flight requests');
    expect(npm.output()).toMatch(/"msg":"stopped"/);
    expect(await portAccepts(port)).toBe(false);
  }, 150_000);
});
