// The journal of server access log records not yet delivered: each thread appends a request's
// record to its own file before the request's answer goes out (a synchronous write: once the
// client has the answer, the record is in the file, and a killed process loses neither). A file
// is closed ("ready") one flush interval after its first record, and delivery.ts turns ready files
// into log objects, then deletes them. Power loss may take records written since the last
// fdatasync of the OS (the records are not fdatasync'd one by one: that would cost a disk flush
// per request).

import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/** The folder of the data directory that holds the journals. */
export const JOURNAL_DIR = 'server-access-log';
export const OPEN_SUFFIX = '.open';
export const READY_SUFFIX = '.ready';

/** One record and where it goes. */
export interface JournalEntry {
  /** target bucket and prefix */
  t: string;
  p: string;
  /** PartitionedPrefix's date source; absent: SimplePrefix */
  d?: 'EventTime' | 'DeliveryTime';
  /** source bucket and its owner's canonical id */
  s: string;
  o: string;
  /** the request's time, ms since the epoch */
  e: number;
  /** the record (record.ts formatLogRecord) */
  l: string;
}

let files = 0;

export class AccessLogJournal {
  private fd: number | undefined;
  private path = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly dir: string;

  constructor(
    dataDir: string,
    private readonly flushMs: number,
    /** told when a file became ready (the writer thread delivers it at once) */
    private readonly onReady?: () => void,
  ) {
    this.dir = join(dataDir, JOURNAL_DIR);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  append(entry: JournalEntry): void {
    if (this.fd === undefined) {
      // unique across threads, processes and restarts: delivery.ts takes every file of earlier runs
      this.path = join(this.dir, `${Date.now()}-${process.pid}-${threadId}-${files++}`);
      this.fd = openSync(this.path + OPEN_SUFFIX, 'a', 0o600);
      this.timer = setTimeout(() => this.rotate(), this.flushMs);
      this.timer.unref();
    }
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  /** Closes the current file and marks it ready for delivery. */
  rotate(): void {
    clearTimeout(this.timer);
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    renameSync(this.path + OPEN_SUFFIX, this.path + READY_SUFFIX);
    this.onReady?.();
  }
}
