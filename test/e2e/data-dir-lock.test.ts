// One process per data directory (issue 8, defect 1): a second `tusk serve` or `tusk storage-node`
// on a directory in use refuses to start, naming the directory and the holder's pid; the lock
// dies with its process, so a kill -9 leaves nothing that blocks the next start.

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTuskToExit as runTusk } from './helpers/child-process.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { startStorageNodeProcess } from './helpers/publisher.js';
import { startTusk } from './helpers/server.js';

const dirs = makeTempDirFixture();
afterAll(() => dirs.remove());

describe('data directory lock', () => {
  it('refuses a second server on the same data directory, and a kill -9 leaves no stale lock', async () => {
    const dataDir = join(dirs.path, 'serve');
    const first = await startTusk({ dataDir });
    try {
      const second = runTusk(['serve', '--listen', '127.0.0.1:0', '--publisher-listen', 'off', '--console-listen', 'off', '--data-dir', dataDir]);
      expect(second.status, second.output).not.toBe(0);
      expect(second.output).toContain(dataDir);
      expect(second.output).toContain(`pid ${first.pid}`);
      expect(second.output).not.toMatch(/listening/);
      expect(first.alive()).toBe(true);
    } finally {
      await first.kill9();
    }
    const restarted = await startTusk({ dataDir });
    await restarted.dispose();
  });

  it('refuses a second storage node on the same directory', async () => {
    const dataDir = join(dirs.path, 'node');
    const nodeArgs = ['--data-dir', dataDir, '--shards', '0-3', '--n-shards', '4', '--durability', 'relaxed'];
    const first = await startStorageNodeProcess({ dataDir, shards: '0-3', nShards: 4 });
    try {
      const second = runTusk(['storage-node', '--listen', '127.0.0.1:0', ...nodeArgs]);
      expect(second.status, second.output).not.toBe(0);
      expect(second.output).toContain(dataDir);
      expect(second.output).toContain(`pid ${first.pid}`);
    } finally {
      await first.kill9();
    }
    const restarted = await startStorageNodeProcess({ dataDir, shards: '0-3', nShards: 4 });
    await restarted.stop();
  });
});
