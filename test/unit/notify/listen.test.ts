// The live listeners of a thread (src/notify/listen.ts): MinIO's framing (one {"Records":[…]} line
// per event, s3:-prefixed event names), the filter (bucket or the owner's buckets, prefix, suffix,
// event types), the shared listener counts, and the slow-listener policy (dropped once it has
// MAX_UNSENT bytes written while backed up; a listener that keeps up is never dropped).

import { describe, expect, it } from 'vitest';
import type { ChunkedWriter, Exchange, ResponseHeaders } from '../../../src/http/exchange.js';
import { anyListener, listenerCounts, LiveListeners, MAX_UNSENT, type ListenFilter } from '../../../src/notify/listen.js';
import type { StoredNotice } from '../../../src/store/redo-ops.js';

/** The part of an Exchange a listener uses; `backedUp` makes every write report a full socket. */
class StreamExchange {
  body = '';
  headers: ResponseHeaders = [];
  closed = false;
  ended = false;
  backedUp = false;
  private abort: (() => void) | undefined;
  beginChunked(_status: number, headers: ResponseHeaders): ChunkedWriter {
    this.headers = headers;
    return {
      write: (d) => {
        this.body += d;
        return !this.backedUp;
      },
      end: (d) => {
        this.body += d;
        this.ended = true;
      },
    };
  }
  onAbort(listener: () => void): void {
    this.abort = listener;
  }
  close(): void {
    this.closed = true;
  }
  clientGone(): void {
    this.abort?.();
  }
}

const notice = (k: string, b = 'bkt', owner = 'me', seq = 1): StoredNotice => ({
  seq, t: 'put', b, k, versionId: 'null', size: 3, etag: '"e"',
  ev: { name: 'ObjectCreated:Put', rules: [], user: 'u', ip: '1.2.3.4', rid: 'R', time: 0, owner, live: true },
});

const filter = (f: Partial<ListenFilter> = {}): ListenFilter => ({ bucket: 'bkt', owner: 'me', prefix: '', suffix: '', events: ['s3:ObjectCreated:*'], ...f });

function setUp() {
  const counts = listenerCounts(2);
  const logged: string[] = [];
  const live = new LiveListeners(counts, 1, 'us-east-1', (line) => logged.push(line));
  const open = (f: ListenFilter) => {
    const ex = new StreamExchange();
    const done = live.listen(ex as unknown as Exchange, f, [['x-amz-request-id', 'R']]);
    return { ex, done };
  };
  return { counts, live, logged, open };
}

const lines = (ex: StreamExchange) => ex.body.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { Records: Array<{ eventName: string; s3: { object: { key: string } } }> });

describe('LiveListeners', () => {
  it('writes one {"Records":[record]} line per matching event, with MinIO\'s headers and s3: event names', () => {
    const { live, open } = setUp();
    const { ex } = open(filter({ prefix: 'in/', suffix: '.txt' }));
    live.deliver([notice('in/a.txt'), notice('in/a.bin'), notice('out/a.txt'), notice('in/b.txt', 'other')]);
    expect(ex.headers).toContainEqual(['Content-Type', 'text/event-stream']);
    expect(ex.headers).toContainEqual(['x-amz-request-id', 'R']);
    expect(lines(ex).map((l) => [l.Records.length, l.Records[0]!.eventName, l.Records[0]!.s3.object.key])).toEqual([[1, 's3:ObjectCreated:Put', 'in%2Fa.txt']]);
  });

  it('matches event types as a configuration does; none matches nothing (MinIO)', () => {
    const { live, open } = setUp();
    const removed = open(filter({ events: ['s3:ObjectRemoved:*'] }));
    const none = open(filter({ events: [] }));
    const put = open(filter({ events: ['s3:ObjectCreated:Put'] }));
    live.deliver([notice('k')]);
    expect(lines(removed.ex)).toEqual([]);
    expect(lines(none.ex)).toEqual([]);
    expect(lines(put.ex)).toHaveLength(1);
  });

  it('the bucket-less form takes every bucket of its owner, and only those', () => {
    const { live, open } = setUp();
    const { ex } = open(filter({ bucket: undefined }));
    live.deliver([notice('a', 'b1'), notice('b', 'b2'), notice('c', 'b3', 'someone-else')]);
    expect(lines(ex).map((l) => l.Records[0]!.s3.object.key)).toEqual(['a', 'b']);
  });

  it('counts its listeners in its slot of the shared counts, and ends each stream on close()', async () => {
    const { counts, live, open } = setUp();
    expect(anyListener(counts)).toBe(false);
    const a = open(filter());
    const b = open(filter());
    expect(Atomics.load(counts, 1)).toBe(2);
    expect(live.active()).toBe(true);
    a.ex.clientGone();
    await a.done;
    expect(Atomics.load(counts, 1)).toBe(1);
    live.close();
    await b.done;
    expect(b.ex.ended).toBe(true);
    expect(anyListener(counts)).toBe(false);
  });

  it('drops a listener whose socket does not take what is written past MAX_UNSENT, and only that one', async () => {
    const { counts, live, logged, open } = setUp();
    const slow = open(filter());
    const fast = open(filter());
    slow.ex.backedUp = true;
    const batch = Array.from({ length: 100 }, (_, i) => notice(`key-${i}`.padEnd(200, 'x')));
    let delivered = 0;
    while (!slow.ex.closed && delivered < 100_000) {
      live.deliver(batch);
      delivered += batch.length;
    }
    await slow.done;
    expect(slow.ex.closed).toBe(true);
    // it had at most MAX_UNSENT bytes (and one line) written while backed up
    expect(slow.ex.body.length).toBeLessThan(MAX_UNSENT + 2000);
    expect(logged.join('\n')).toMatch(/did not keep up and was dropped/);
    // the check can pass: the one that keeps up got everything and stays
    expect(fast.ex.closed).toBe(false);
    expect(lines(fast.ex)).toHaveLength(delivered);
    expect(Atomics.load(counts, 1)).toBe(1);
    live.close();
  });
});
