// Where pino's JSON lines go: collected for up to FLUSH_MS (or until LINES_FLUSH_BYTES) and
// written with one write(2); a write per event-loop turn was ~4% of a 4 KiB GET's CPU. Per line
// this costs half of pino's asynchronous destination (SonicBoom: about 2 µs of its ~4 µs a line at
// 4 KiB request rates, measured with both writing to a file), which matters for the access log's
// share of a small request's cost. A full non-blocking pipe (EAGAIN) keeps
// the rest queued for a retry instead of blocking; a reader that stops reading for good costs at
// most `maxBacklogBytes` of memory, after which lines are dropped and counted, and the count is
// logged once the pipe takes data again.

import { writevSync } from 'node:fs';

/** a deferred line's size before it is rendered, for the backlog bound */
const DEFERRED_LINE_BYTES = 320;
const RETRY_MS = 1;
const FLUSH_MS = 2;
const LINES_FLUSH_BYTES = 64 * 1024;
/** iovecs per writev(2), under every platform's IOV_MAX */
const MAX_IOV = 512;
const DEFAULT_MAX_BACKLOG = 64 * 1024 * 1024;

/** Renders a line of a record later, at the write (see `writeRecord`). */
export type LineRenderer<T> = (record: T) => string;

export class BatchedFdDestination {
  /** lines, and records to render into lines (their renderer at the same index of `renderers`) */
  private lines: unknown[] = [];
  private renderers: Array<LineRenderer<never> | undefined> = [];
  private linesBytes = 0;
  /** encoded lines a full pipe did not take yet, oldest first */
  private queue: Buffer[] = [];
  private queueBytes = 0;
  private dropped = 0;
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly fd: number,
    private readonly maxBacklogBytes = DEFAULT_MAX_BACKLOG,
  ) {}

  /** pino's stream interface */
  write(line: string): boolean {
    return this.add(line, undefined, line.length);
  }

  /**
   * A line that `render(record)` writes, rendered when the lines are written: rendering a turn's
   * lines together costs a busy server about half as much as one by one between its requests.
   */
  writeRecord<T>(record: T, render: LineRenderer<T>): boolean {
    return this.add(record, render, DEFERRED_LINE_BYTES);
  }

  private add(line: unknown, render: LineRenderer<never> | undefined, bytes: number): boolean {
    if (this.queueBytes + this.linesBytes + bytes > this.maxBacklogBytes) {
      this.dropped++;
      return true;
    }
    this.lines.push(line);
    this.renderers.push(render);
    this.linesBytes += bytes;
    if (this.retry) return true;
    if (!this.scheduled) {
      this.scheduled = true;
      this.timer = setTimeout(this.flushTurn, FLUSH_MS);
    } else if (this.linesBytes >= LINES_FLUSH_BYTES && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      setImmediate(this.flushTurn);
    }
    return true;
  }

  /** bytes held for a pipe that does not take them */
  get backlogBytes(): number {
    return this.queueBytes + this.linesBytes;
  }

  /** pino's logger.flush(cb) */
  flush(cb?: (err?: Error) => void): void {
    try {
      this.flushSync();
      cb?.();
    } catch (e) {
      cb?.(e as Error);
    }
  }

  /** Writes everything now, waiting out a full pipe (exit paths). */
  flushSync(): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    while (!this.writeSome()) {
      // the pipe is full: give its reader a moment
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
    }
  }

  private readonly flushTurn = (): void => {
    this.scheduled = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.retry = undefined;
    if (!this.writeSome()) this.retry = setTimeout(this.flushTurn, RETRY_MS);
  };

  private enqueueLines(): void {
    if (this.lines.length === 0) return;
    const { lines, renderers } = this;
    let text = '';
    for (let i = 0; i < lines.length; i++) {
      const render = renderers[i] as LineRenderer<unknown> | undefined;
      text += render ? render(lines[i]) : (lines[i] as string);
    }
    const chunk = Buffer.from(text);
    this.lines = [];
    this.renderers = [];
    this.linesBytes = 0;
    this.queue.push(chunk);
    this.queueBytes += chunk.length;
  }

  /** true when nothing is left to write */
  private writeSome(): boolean {
    this.enqueueLines();
    while (this.queue.length > 0) {
      let written: number;
      try {
        written = writevSync(this.fd, this.queue.length > MAX_IOV ? this.queue.slice(0, MAX_IOV) : this.queue);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        return false;
      }
      this.consume(written);
      if (this.queue.length === 0 && this.dropped > 0) this.reportDropped();
    }
    return true;
  }

  private consume(written: number): void {
    this.queueBytes -= written;
    let i = 0;
    while (i < this.queue.length && written >= this.queue[i].length) written -= this.queue[i++].length;
    this.queue.splice(0, i);
    if (written > 0) this.queue[0] = this.queue[0].subarray(written);
  }

  private reportDropped(): void {
    const line = JSON.stringify({ level: 40, time: new Date().toISOString(), pid: process.pid, dropped: this.dropped, msg: 'log lines dropped: stdout was not read' });
    this.dropped = 0;
    const chunk = Buffer.from(`${line}\n`);
    this.queue.push(chunk);
    this.queueBytes += chunk.length;
  }
}
