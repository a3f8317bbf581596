// The request bridge between a front-end thread and the writer, over a real MessageChannel: what
// the writer's handler answers reaches the front end's exchange, bodies arrive whole and in order,
// and an abort or an unanswered request never leaves either side waiting.

import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError, type ChunkedWriter, type Exchange, type ResponseHeaders } from '../../../src/http/exchange.js';
import type { RequestHead } from '../../../src/http/request-head.js';
import { forwardTo, serveForwarded } from '../../../src/http/thread-bridge.js';

/** The front end's side of a request: a body given up front, and a record of the answer. */
class FakeExchange implements Exchange {
  aborted = false;
  responded = false;
  status: number | undefined;
  bytesSent = 0;
  received = 0;
  bodyEnded = false;
  answer: { kind: string; status?: number; headers?: ResponseHeaders; body?: string; length?: number; close?: boolean } | undefined;
  closed = false;
  private readonly listeners: Array<() => void> = [];
  private wake: (() => void) | undefined;

  constructor(
    readonly head: RequestHead,
    private readonly body: Buffer[],
  ) {}

  onAbort(l: () => void): void {
    this.listeners.push(l);
  }
  abort(): void {
    this.aborted = true;
    this.wake?.();
    for (const l of this.listeners) l();
  }
  /** body chunks after the first are held until `release` (so that an abort can come between) */
  hold = false;
  release(): void {
    this.hold = false;
    this.wake?.();
  }
  async discardSmallBody(): Promise<void> {}
  async nextBodyChunk(): Promise<Buffer | null> {
    while (this.hold && this.received > 0 && !this.aborted) await new Promise<void>((r) => (this.wake = r));
    if (this.aborted) throw new AbortedError();
    const chunk = this.body.shift() ?? null;
    if (chunk) this.received += chunk.length;
    else this.bodyEnded = true;
    return chunk;
  }
  send(status: number, headers: ResponseHeaders, body?: Buffer | string, close = false): void {
    this.responded = true;
    this.status = status;
    this.answer = { kind: 'send', status, headers, body: body === undefined ? undefined : body.toString(), close };
  }
  sendHead(status: number, headers: ResponseHeaders, length: number | undefined, close = false): void {
    this.responded = true;
    this.status = status;
    this.answer = { kind: 'head', status, headers, length, close };
  }
  async stream(status: number, headers: ResponseHeaders, total: number, read: (max: number) => Promise<Buffer | null>): Promise<void> {
    this.responded = true;
    this.status = status;
    const parts: Buffer[] = [];
    let got = 0;
    while (got < total) {
      const chunk = await read(Math.min(3, total - got));
      if (!chunk || chunk.length === 0) throw new Error('ended early');
      parts.push(chunk);
      got += chunk.length;
    }
    this.answer = { kind: 'stream', status, headers, body: Buffer.concat(parts).toString() };
  }
  beginChunked(status: number, headers: ResponseHeaders): ChunkedWriter {
    this.responded = true;
    this.status = status;
    const a = (this.answer = { kind: 'chunked', status, headers, body: '' });
    return {
      write: (d) => {
        a.body += d;
        return true;
      },
      end: (d) => (a.body += d),
    };
  }
  close(): void {
    this.closed = true;
    this.responded = true;
  }
}

function head(method: string, headers: Record<string, string> = {}): RequestHead {
  const headerList = Object.entries(headers);
  return { method, rawPath: '/bucket/key', rawQuery: 'x=1', headerList, headers, remoteAddress: () => '10.1.2.3', secure: false };
}

const channels: MessageChannel[] = [];
function bridge(handler: (ex: Exchange) => Promise<void>) {
  const channel = new MessageChannel();
  channels.push(channel);
  serveForwarded(channel.port1, handler);
  return forwardTo(channel.port2);
}

afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

describe('thread bridge', () => {
  it('hands the head and the whole body to the writer and its answer back', async () => {
    let seen: { head: RequestHead; address: string; body: string } | undefined;
    const { forward, inFlight } = bridge(async (ex) => {
      const parts: Buffer[] = [];
      for (let c = await ex.nextBodyChunk(); c; c = await ex.nextBodyChunk()) parts.push(c);
      seen = { head: ex.head, address: ex.head.remoteAddress!(), body: Buffer.concat(parts).toString() };
      ex.send(201, [['ETag', '"e"']], Buffer.from('stored'));
    });
    const ex = new FakeExchange(head('PUT', { 'content-length': '11' }), [Buffer.from('hello '), Buffer.from('world')]);
    const done = forward(ex);
    expect(inFlight()).toBe(1);
    await done;
    expect(inFlight()).toBe(0);
    expect(seen?.body).toBe('hello world');
    expect(seen?.address).toBe('10.1.2.3');
    expect(seen?.head.rawQuery).toBe('x=1');
    expect(seen?.head.headers['content-length']).toBe('11');
    expect(ex.answer).toEqual({ kind: 'send', status: 201, headers: [['ETag', '"e"']], body: 'stored', close: false });
  });

  it('moves a body larger than the window, in order', async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * 1024, i));
    let total = 0;
    let inOrder = true;
    const { forward } = bridge(async (ex) => {
      let i = 0;
      for (let c = await ex.nextBodyChunk(); c; c = await ex.nextBodyChunk(), i++) {
        total += c.length;
        if (c[0] !== i || c[c.length - 1] !== i) inOrder = false;
        // a slow writer: the front end must wait for credit, not flood it
        await new Promise((r) => setImmediate(r));
      }
      ex.send(200, []);
    });
    const ex = new FakeExchange(head('PUT', { 'content-length': String(40 * 64 * 1024) }), chunks);
    await forward(ex);
    expect(total).toBe(40 * 64 * 1024);
    expect(inOrder).toBe(true);
    expect(ex.answer?.status).toBe(200);
  });

  it('streams a response by pulls, and carries HEAD and chunked answers', async () => {
    const { forward } = bridge(async (ex) => {
      if (ex.head.method === 'HEAD') return ex.sendHead(200, [['X', '1']], 42);
      if (ex.head.method === 'POST') {
        const out = ex.beginChunked(200, []);
        out.write(' ');
        out.end('<done/>');
        return;
      }
      const data = Buffer.from('0123456789');
      let at = 0;
      await ex.stream(200, [['Content-Length', '10']], 10, async (max) => {
        const chunk = data.subarray(at, at + max);
        at += chunk.length;
        return chunk;
      });
    });
    const get = new FakeExchange(head('GET'), []);
    await forward(get);
    expect(get.answer).toMatchObject({ kind: 'stream', status: 200, body: '0123456789' });
    const h = new FakeExchange(head('HEAD'), []);
    await forward(h);
    expect(h.answer).toEqual({ kind: 'head', status: 200, headers: [['X', '1']], length: 42, close: false });
    const post = new FakeExchange(head('POST'), []);
    await forward(post);
    expect(post.answer).toMatchObject({ kind: 'chunked', body: ' <done/>' });
  });

  it('fails a stream whose source ends early on both sides', async () => {
    let writerError: unknown;
    const { forward } = bridge(async (ex) => {
      await ex.stream(200, [], 10, async () => null).catch((e: unknown) => (writerError = e));
    });
    const ex = new FakeExchange(head('GET'), []);
    await forward(ex);
    expect(String(writerError)).toMatch(/ended early/);
    expect(ex.answer).toBeUndefined();
  });

  it('tells the writer of an abort: its body read fails, and the front end is released', async () => {
    let writerSaw: unknown;
    let listenerCalled = false;
    const { forward, inFlight } = bridge(async (ex) => {
      ex.onAbort(() => (listenerCalled = true));
      try {
        for (;;) if ((await ex.nextBodyChunk()) === null) break;
      } catch (e) {
        writerSaw = e;
      }
    });
    const ex = new FakeExchange(head('PUT', { 'content-length': '100' }), [Buffer.alloc(10), Buffer.alloc(90)]);
    ex.hold = true;
    const done = forward(ex);
    await new Promise((r) => setTimeout(r, 20));
    ex.abort();
    await done;
    expect(writerSaw).toBeInstanceOf(AbortedError);
    expect(listenerCalled).toBe(true);
    expect(inFlight()).toBe(0);
  });

  it('closes the connection of a request the writer let go of unanswered', async () => {
    const { forward } = bridge(async () => {
      throw new Error('handler bug');
    });
    const ex = new FakeExchange(head('DELETE'), []);
    await forward(ex);
    expect(ex.closed).toBe(true);
  });
});
