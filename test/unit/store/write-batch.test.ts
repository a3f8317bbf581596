import fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pwritevAllBatched, SYNC_WRITE_MAX } from '../../../src/store/fd-io.js';

describe('pwritevAllBatched', () => {
  let dir: string;
  let fds: number[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tusk-write-batch-'));
    fds = [];
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const fd of fds) fs.closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  const open = (name: string) => {
    const fd = fs.openSync(join(dir, name), 'w+');
    fds.push(fd);
    return fd;
  };
  const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

  it('writes issued in one turn that continue one another go out as one writev, each landing where it was asked', async () => {
    const fd = open('a');
    const spy = vi.spyOn(fs, 'writevSync');
    // issued out of order, as concurrent requests would: 0..100, 100..300 (two buffers), 300..310
    await Promise.all([
      pwritevAllBatched(fd, [bytes(10, 3)], 300),
      pwritevAllBatched(fd, [bytes(100, 1)], 0),
      pwritevAllBatched(fd, [bytes(150, 2), bytes(50, 4)], 100),
    ]);
    expect(spy).toHaveBeenCalledTimes(1);
    const got = fs.readFileSync(join(dir, 'a'));
    expect(got.length).toBe(310);
    expect(got.subarray(0, 100).every((b) => b === 1)).toBe(true);
    expect(got.subarray(100, 250).every((b) => b === 2)).toBe(true);
    expect(got.subarray(250, 300).every((b) => b === 4)).toBe(true);
    expect(got.subarray(300).every((b) => b === 3)).toBe(true);
  });

  it('a gap or another file starts another writev; a large write goes to the thread pool at once', async () => {
    const a = open('a');
    const b = open('b');
    const spy = vi.spyOn(fs, 'writevSync');
    await Promise.all([
      pwritevAllBatched(a, [bytes(10, 1)], 0),
      pwritevAllBatched(a, [bytes(10, 2)], 20),
      pwritevAllBatched(b, [bytes(10, 3)], 10),
      pwritevAllBatched(b, [bytes(SYNC_WRITE_MAX + 1, 5)], 20),
    ]);
    expect(spy).toHaveBeenCalledTimes(3);
    const gotA = fs.readFileSync(join(dir, 'a'));
    expect([...gotA.subarray(0, 10)].every((x) => x === 1) && [...gotA.subarray(10, 20)].every((x) => x === 0)).toBe(true);
    expect(gotA.subarray(20).every((x) => x === 2)).toBe(true);
    const gotB = fs.readFileSync(join(dir, 'b'));
    expect(gotB.length).toBe(20 + SYNC_WRITE_MAX + 1);
    expect(gotB.subarray(10, 20).every((x) => x === 3) && gotB.subarray(20).every((x) => x === 5)).toBe(true);
  });

  it('a failed writev fails every write of its run, and only those', async () => {
    const good = open('good');
    const closed = open('closed');
    fs.closeSync(closed);
    fds.splice(fds.indexOf(closed), 1);
    const results = await Promise.allSettled([
      pwritevAllBatched(closed, [bytes(10, 1)], 0),
      pwritevAllBatched(closed, [bytes(10, 1)], 10),
      pwritevAllBatched(good, [bytes(10, 1)], 0),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'EBADF' });
  });
});
