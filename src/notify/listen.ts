// MinIO's ListenBucketNotification: live listeners of one thread, and the counts of listeners of
// every thread in shared memory (a write anywhere carries a live notice only while someone
// listens, and the writer thread posts notices only to threads that have listeners).
//
// The stream, as MinIO writes it (cmd/listen-notification-handlers.go) and its clients read it
// (minio-js NotificationPoller: one JSON value per line; minio-go: bufio lines): each event is a
// line `{"Records":[record]}\n`, and a single space is written every 500 ms as keep-alive (the next
// line then starts with spaces, which JSON parsers skip). Live only: nothing is kept for a listener
// that is not connected. A listener whose socket does not take what is written (more than
// MAX_UNSENT bytes written while the socket is backed up) is dropped, its connection closed, so
// that it never holds memory or slows the writes.

import type { Exchange } from '../http/exchange.js';
import type { LogLine } from '../log/log-line.js';
import type { StoredNotice } from '../store/redo-ops.js';
import { eventMatches, eventNameOf, eventRecordJson, type NoticeData } from './records.js';

export const KEEP_ALIVE_MS = 500;
/** bytes a listener may have written while its socket is backed up before it is dropped */
export const MAX_UNSENT = 1024 * 1024;
/** MinIO's configurationId of the records a listener gets */
const LISTEN_CONFIGURATION_ID = 'Config';
/** the line MinIO sends for "no records" (its ping); ends a stream cleanly after keep-alive spaces */
const EMPTY_LINE = '{"Records":null}\n';
/** MinIO's setEventStreamHeaders */
export const LISTEN_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Type', 'text/event-stream'],
  ['Cache-Control', 'no-cache'],
  ['X-Accel-Buffering', 'no'],
];

export interface ListenFilter {
  /** undefined: every bucket whose owner is `owner` (the bucket-less form) */
  bucket?: string;
  owner: string;
  prefix: string;
  suffix: string;
  /** event types as a configuration names them (s3:ObjectCreated:*); none matches nothing, as MinIO's */
  events: string[];
}

interface Listener {
  filter: ListenFilter;
  write(data: string): boolean;
  end(data: string): void;
  drop(): void;
  /** bytes written since the socket last took everything */
  unsent: number;
  /** spaces written since the last line */
  spaced: boolean;
  ended: () => void;
}

/** Listener counts, one Int32 slot per thread (the writer is slot 0), shared by every thread. */
export function listenerCounts(threads: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * (threads + 1)));
}

/** Whether any thread has a listener. */
export function anyListener(counts: Int32Array): boolean {
  for (let i = 0; i < counts.length; i++) if (Atomics.load(counts, i) > 0) return true;
  return false;
}

export function matchesFilter(f: ListenFilter, n: StoredNotice, name: string): boolean {
  const ev = n.ev as unknown as NoticeData;
  if (f.bucket === undefined ? ev.owner !== f.owner : n.b !== f.bucket) return false;
  return n.k.startsWith(f.prefix) && n.k.endsWith(f.suffix) && f.events.some((p) => eventMatches(p, name));
}

/** An event's line: MinIO's listen records name the event with its `s3:` prefix (s3:ObjectCreated:Put). */
function listenLine(n: StoredNotice, name: string, region: string): string {
  return `{"Records":[${eventRecordJson(n, LISTEN_CONFIGURATION_ID, region, `s3:${name}`)}]}\n`;
}

/**
 * The writer thread's hook for committed notices (SegmentStore.onLive): gathers those of one
 * event-loop turn and hands them to this thread's listeners and to `post` (the other threads).
 */
export function liveFanOut(local: LiveListeners, post: (notices: StoredNotice[]) => void): (notice: StoredNotice) => void {
  let batch: StoredNotice[] = [];
  const flush = (): void => {
    const notices = batch;
    batch = [];
    local.deliver(notices);
    post(notices);
  };
  return (notice) => {
    if (!local.active()) return;
    if (batch.push(notice) === 1) setImmediate(flush);
  };
}

/** The live listeners of one thread. */
export class LiveListeners {
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly counts: Int32Array,
    private readonly slot: number,
    private readonly region: string,
    private readonly log: LogLine,
  ) {}

  /** Whether a change anywhere should carry a live notice. */
  active(): boolean {
    return anyListener(this.counts);
  }

  /** Starts the stream on `ex`; resolves once it ended (the client went away, it was dropped, or close()). */
  listen(ex: Exchange, filter: ListenFilter, headers: ReadonlyArray<readonly [string, string]>): Promise<void> {
    const stream = ex.beginChunked(200, [...LISTEN_HEADERS, ...headers]);
    return new Promise((ended) => {
      const l: Listener = { filter, write: stream.write, end: stream.end, drop: () => ex.close(), unsent: 0, spaced: false, ended };
      this.listeners.add(l);
      Atomics.add(this.counts, this.slot, 1);
      ex.onAbort(() => this.remove(l));
      this.timer ??= setInterval(() => this.keepAlive(), KEEP_ALIVE_MS).unref();
    });
  }

  /** Notices committed (in commit order): each listener gets those its filter takes. */
  deliver(notices: readonly StoredNotice[]): void {
    if (this.listeners.size === 0) return;
    for (const n of notices) {
      const name = eventNameOf(n);
      let line: string | undefined;
      for (const l of this.listeners) {
        if (!matchesFilter(l.filter, n, name)) continue;
        line ??= listenLine(n, name, this.region);
        this.write(l, line);
        l.spaced = false;
      }
    }
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    for (const l of [...this.listeners]) {
      l.end(l.spaced ? EMPTY_LINE : '');
      this.remove(l);
    }
  }

  private keepAlive(): void {
    for (const l of this.listeners) {
      this.write(l, ' ');
      l.spaced = true;
    }
  }

  private write(l: Listener, data: string): void {
    if (l.write(data)) {
      l.unsent = 0;
      return;
    }
    l.unsent += data.length;
    if (l.unsent <= MAX_UNSENT) return;
    this.remove(l);
    l.drop();
    this.log(`ListenBucketNotification: a listener of ${l.filter.bucket ?? 'every bucket'} did not keep up and was dropped`, 'warn');
  }

  private remove(l: Listener): void {
    if (!this.listeners.delete(l)) return;
    Atomics.sub(this.counts, this.slot, 1);
    l.ended();
    if (this.listeners.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
