import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchedFdDestination } from '../../../src/log/log-destination.js';

/** A FIFO with non-blocking ends: a pipe the test can leave unread, then drain. */
function fifo(): { read: number; write: number; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-log-'));
  const path = join(dir, 'pipe');
  execFileSync('mkfifo', [path]);
  const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const write = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  return { read, write, cleanup: () => { closeSync(read); closeSync(write); rmSync(dir, { recursive: true }); } };
}

function drain(fd: number): string {
  const parts: Buffer[] = [];
  const buf = Buffer.alloc(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw e;
    }
    if (n === 0) break;
    parts.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(parts).toString();
}

const turn = () => new Promise((r) => setTimeout(r, 5));

describe('BatchedFdDestination', () => {
  let pipe: ReturnType<typeof fifo> | undefined;
  afterEach(() => pipe?.cleanup());

  it('keeps lines whole and in order across a full pipe', async () => {
    pipe = fifo();
    const dest = new BatchedFdDestination(pipe.write);
    const lines = Array.from({ length: 5000 }, (_, i) => `${JSON.stringify({ i, pad: 'x'.repeat(100) })}\n`);
    for (const line of lines.slice(0, 2500)) dest.write(line);
    await turn();
    expect(dest.backlogBytes).toBeGreaterThan(0); // 2500 lines overflow a 64 KiB pipe
    let text = drain(pipe.read);
    for (const line of lines.slice(2500)) dest.write(line);
    for (let i = 0; i < 100 && dest.backlogBytes > 0; i++) {
      await turn();
      text += drain(pipe.read);
    }
    text += drain(pipe.read);
    expect(text).toBe(lines.join(''));
  });

  it('bounds its memory when the pipe is never read, then reports how many lines it dropped', async () => {
    pipe = fifo();
    const dest = new BatchedFdDestination(pipe.write, 256 * 1024);
    const line = `${JSON.stringify({ msg: 'request', pad: 'y'.repeat(200) })}\n`;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 1000; i++) dest.write(line);
      await turn();
      expect(dest.backlogBytes).toBeLessThanOrEqual(256 * 1024);
    }
    let text = '';
    for (let i = 0; i < 200 && (dest.backlogBytes > 0 || !text.includes('dropped')); i++) {
      text += drain(pipe.read);
      await turn();
    }
    text += drain(pipe.read);
    const records = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { msg: string; dropped?: number });
    const report = records.find((r) => r.dropped !== undefined);
    const kept = records.filter((r) => r.msg === 'request').length;
    expect(report?.msg).toMatch(/dropped/);
    expect(kept + (report?.dropped ?? 0)).toBe(20_000);
    expect(records[records.length - 1]).toBe(report);
  });

  it('renders deferred records when it writes, in order with plain lines', async () => {
    pipe = fifo();
    const dest = new BatchedFdDestination(pipe.write);
    const rendered: number[] = [];
    const render = (n: number): string => {
      rendered.push(n);
      return `record ${n}\n`;
    };
    dest.write('plain 0\n');
    dest.writeRecord(1, render);
    dest.write('plain 2\n');
    dest.writeRecord(3, render);
    expect(rendered).toEqual([]); // nothing rendered before the write
    await turn();
    expect(drain(pipe.read)).toBe('plain 0\nrecord 1\nplain 2\nrecord 3\n');
    expect(rendered).toEqual([1, 3]);
  });
});
