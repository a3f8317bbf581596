// Hands a request from a front-end thread to the writer thread over a MessagePort, and its answer
// back: the front end keeps the socket (body read with back-pressure, response written by its
// engine's exchange); the writer sees an Exchange like any other and answers it with its own handler.

import type { MessagePort } from 'node:worker_threads';
import { asBuffer, exact } from '../base/cross-thread-bytes.js';
import { AbortedError, discardSmallBody, type ChunkedWriter, type Exchange, type ResponseHeaders } from './exchange.js';
import { joinHeaders, type RequestHead } from './request-head.js';

/** Body bytes in flight from the front end before it waits for the writer to take some. */
const BODY_WINDOW = 1 << 20;

interface WireHead {
  method: string;
  rawPath: string;
  rawQuery: string;
  headerList: Array<readonly [string, string]>;
  secure?: boolean;
  remoteAddress: string;
}

/** front end → writer */
type Upstream =
  | { t: 'head'; id: number; head: WireHead }
  | { t: 'body'; id: number; chunk: Uint8Array | null }
  | { t: 'abort'; id: number }
  | { t: 'pull'; id: number; max: number }
  | { t: 'streamed'; id: number; error?: string };

/** writer → front end */
type Downstream =
  | { t: 'send'; id: number; status: number; headers: ResponseHeaders; body?: Uint8Array | string; close: boolean }
  | { t: 'sendHead'; id: number; status: number; headers: ResponseHeaders; length: number | undefined; close: boolean }
  | { t: 'stream'; id: number; status: number; headers: ResponseHeaders; total: number }
  | { t: 'data'; id: number; chunk: Uint8Array | null }
  | { t: 'chunked'; id: number; status: number; headers: ResponseHeaders }
  | { t: 'write' | 'end'; id: number; data: string }
  | { t: 'close'; id: number }
  | { t: 'credit'; id: number; bytes: number }
  | { t: 'done'; id: number };

interface Forwarded {
  ex: Exchange;
  outstanding: number;
  finished: boolean;
  creditWake?: () => void;
  pull?: (chunk: Buffer | null) => void;
  chunked?: ChunkedWriter;
  done: () => void;
}

/** The front end's side: a handler that forwards each exchange it is given to the writer on `port`. */
export function forwardTo(port: MessagePort): { forward: (ex: Exchange) => Promise<void>; inFlight: () => number } {
  const pending = new Map<number, Forwarded>();
  let nextId = 1;
  const post = (m: Upstream): void => port.postMessage(m);

  port.on('message', (m: Downstream) => {
    const f = pending.get(m.id);
    if (!f) return;
    const ex = f.ex;
    switch (m.t) {
      case 'send':
        ex.send(m.status, m.headers, typeof m.body === 'string' || m.body === undefined ? m.body : asBuffer(m.body), m.close);
        break;
      case 'sendHead':
        ex.sendHead(m.status, m.headers, m.length, m.close);
        break;
      case 'stream':
        ex.stream(m.status, m.headers, m.total, (max) =>
          new Promise<Buffer | null>((resolve) => {
            f.pull = resolve;
            post({ t: 'pull', id: m.id, max });
          }),
        ).then(
          () => post({ t: 'streamed', id: m.id }),
          (e: unknown) => post({ t: 'streamed', id: m.id, error: String((e as Error)?.message ?? e) }),
        );
        break;
      case 'data': {
        const pull = f.pull;
        f.pull = undefined;
        pull?.(m.chunk ? asBuffer(m.chunk) : null);
        break;
      }
      case 'chunked':
        f.chunked = ex.beginChunked(m.status, m.headers);
        break;
      case 'write':
        f.chunked?.write(m.data);
        break;
      case 'end':
        f.chunked?.end(m.data);
        break;
      case 'close':
        ex.close();
        break;
      case 'credit': {
        f.outstanding -= m.bytes;
        const wake = f.creditWake;
        f.creditWake = undefined;
        wake?.();
        break;
      }
      case 'done':
        finish(m.id, f);
        break;
    }
  });

  function finish(id: number, f: Forwarded): void {
    pending.delete(id);
    f.finished = true;
    f.creditWake?.();
    f.pull?.(null);
    // an exchange the writer let go of unanswered must not hang its client
    if (!f.ex.responded && !f.ex.aborted) f.ex.close();
    f.done();
  }

  async function pumpBody(id: number, f: Forwarded): Promise<void> {
    try {
      for (;;) {
        const chunk = await f.ex.nextBodyChunk();
        if (f.finished) return;
        if (!chunk) {
          post({ t: 'body', id, chunk: null });
          return;
        }
        post({ t: 'body', id, chunk: exact(chunk) });
        f.outstanding += chunk.length;
        while (f.outstanding >= BODY_WINDOW && !f.finished) await new Promise<void>((wake) => (f.creditWake = wake));
        if (f.finished) return;
      }
    } catch (e) {
      if (!(e instanceof AbortedError)) throw e;
    }
  }

  return {
    inFlight: () => pending.size,
    forward(ex) {
      const id = nextId++;
      return new Promise<void>((done) => {
        const f: Forwarded = { ex, outstanding: 0, finished: false, done };
        pending.set(id, f);
        const h = ex.head;
        const head: WireHead = {
          method: h.method,
          rawPath: h.rawPath,
          rawQuery: h.rawQuery,
          headerList: [...h.headerList],
          secure: h.secure,
          remoteAddress: h.remoteAddress?.() ?? '',
        };
        post({ t: 'head', id, head });
        ex.onAbort(() => {
          if (!f.finished) post({ t: 'abort', id });
        });
        void pumpBody(id, f);
      });
    },
  };
}

/** A forwarded request as the writer's handlers see it. */
class ForwardedExchange implements Exchange {
  aborted = false;
  responded = false;
  status: number | undefined;
  bytesSent = 0;
  received = 0;
  bodyEnded: boolean;
  private readonly queue: Buffer[] = [];
  private wake: (() => void) | undefined;
  private readonly abortListeners: Array<() => void> = [];
  private reader: ((max: number) => Promise<Buffer | null>) | undefined;
  private streamed: { resolve: () => void; reject: (e: Error) => void } | undefined;

  constructor(
    readonly head: RequestHead,
    private readonly id: number,
    private readonly post: (m: Downstream) => void,
  ) {
    const length = head.headers['content-length'];
    this.bodyEnded = head.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
  }

  onAbort(listener: () => void): void {
    this.abortListeners.push(listener);
  }

  discardSmallBody(maxBytes: number, timeoutMs: number): Promise<void> {
    return discardSmallBody(this, maxBytes, timeoutMs);
  }

  async nextBodyChunk(): Promise<Buffer | null> {
    for (;;) {
      if (this.aborted) throw new AbortedError();
      const chunk = this.queue.shift();
      if (chunk) {
        this.post({ t: 'credit', id: this.id, bytes: chunk.length });
        return chunk;
      }
      if (this.bodyEnded) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  send(status: number, headers: ResponseHeaders, body?: Buffer | string, close = false): void {
    if (!this.start(status)) return;
    this.bytesSent = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    this.post({ t: 'send', id: this.id, status, headers, body: typeof body === 'string' || body === undefined ? body : exact(body), close });
  }

  sendHead(status: number, headers: ResponseHeaders, contentLength: number | undefined, close = false): void {
    if (this.start(status)) this.post({ t: 'sendHead', id: this.id, status, headers, length: contentLength, close });
  }

  stream(status: number, headers: ResponseHeaders, total: number, read: (maxBytes: number) => Promise<Buffer | null>): Promise<void> {
    if (!this.start(status)) return Promise.resolve();
    this.reader = read;
    return new Promise<void>((resolve, reject) => {
      this.streamed = { resolve, reject };
      this.post({ t: 'stream', id: this.id, status, headers, total });
    });
  }

  beginChunked(status: number, headers: ResponseHeaders): ChunkedWriter {
    const mine = this.start(status);
    if (mine) this.post({ t: 'chunked', id: this.id, status, headers });
    const live = (): boolean => mine && !this.aborted;
    return {
      // the front end's socket is out of sight here: it buffers what it is sent
      write: (data) => {
        if (live()) this.post({ t: 'write', id: this.id, data });
        return true;
      },
      end: (data) => {
        if (live()) this.post({ t: 'end', id: this.id, data });
      },
    };
  }

  close(): void {
    if (this.aborted) return;
    this.responded = true;
    this.aborted = true;
    this.post({ t: 'close', id: this.id });
  }

  // ── from the front end ──

  pushBody(chunk: Uint8Array | null): void {
    if (chunk) {
      const b = asBuffer(chunk);
      this.queue.push(b);
      this.received += b.length;
    } else this.bodyEnded = true;
    this.wakeReader();
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.bodyEnded = true;
    this.wakeReader();
    this.settleStream();
    for (const l of this.abortListeners) l();
  }

  async pull(max: number): Promise<void> {
    let chunk: Buffer | null = null;
    try {
      chunk = this.reader ? await this.reader(max) : null;
    } catch (e) {
      this.settleStream(e as Error);
    }
    if (chunk) this.bytesSent += chunk.length;
    this.post({ t: 'data', id: this.id, chunk: chunk && exact(chunk) });
  }

  settleStream(error?: Error): void {
    const s = this.streamed;
    this.streamed = undefined;
    if (error) s?.reject(error);
    else s?.resolve();
  }

  private start(status: number): boolean {
    if (this.aborted || this.responded) return false;
    this.responded = true;
    this.status = status;
    return true;
  }

  private wakeReader(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

/**
 * The writer's side: each request forwarded on `port` becomes an Exchange given to `handler`. The
 * front end is told when the handler is done, so that it never holds a request nobody answers.
 */
export function serveForwarded(port: MessagePort, handler: (ex: Exchange) => Promise<void>): void {
  const live = new Map<number, ForwardedExchange>();
  const post = (m: Downstream): void => port.postMessage(m);
  port.on('message', (m: Upstream) => {
    if (m.t === 'head') {
      const { remoteAddress, ...wire } = m.head;
      const head: RequestHead = { ...wire, headers: joinHeaders(wire.headerList), remoteAddress: () => remoteAddress };
      const ex = new ForwardedExchange(head, m.id, post);
      live.set(m.id, ex);
      void handler(ex)
        .catch(() => undefined)
        .finally(() => {
          live.delete(m.id);
          post({ t: 'done', id: m.id });
        });
      return;
    }
    const ex = live.get(m.id);
    if (!ex) return;
    switch (m.t) {
      case 'body':
        ex.pushBody(m.chunk);
        break;
      case 'abort':
        ex.abort();
        break;
      case 'pull':
        void ex.pull(m.max);
        break;
      case 'streamed':
        ex.settleStream(m.error === undefined ? undefined : new Error(m.error));
        break;
    }
  });
}
