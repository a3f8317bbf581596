// A request and its answer on the node engine (http/node-engine.ts accepts the connections): the
// head copied into a plain RequestHead, the body streamed with pause/resume and 100-continue granted on
// the first read, the response head written in one writeHead call, a streamed body pulled chunk by
// chunk as the socket takes it.

import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AbortedError, discardSmallBody, type Exchange, type ResponseHeaders } from './exchange.js';
import { isFieldName, safeFieldValue } from './header-fields.js';
import type { RequestHead } from './request-head.js';

/** Bytes of request body kept in memory before the socket is paused. */
const BODY_HIGH_WATER = 1 << 20;
/** Largest request body chunk made of several queued ones. */
const COALESCE = 1 << 20;
/** Smallest request body chunk handed over before the body's end. */
const BODY_CHUNK_MIN = 512 << 10;
/** Largest piece of a streamed response body asked of its source at once. */
const STREAM_CHUNK = 1 << 20;

const NON_ASCII = /[\x80-\xff]/;

/**
 * A header value as text. Node reads header bytes as Latin-1, one character per byte. Bytes that
 * form UTF-8 (what botocore, the Go SDK and curl send for non-ASCII text, and sign as those bytes)
 * are read as UTF-8, as uWS reads them; other bytes above 0x7F stay Latin-1 characters (Node's own
 * http client, so the AWS SDK for JavaScript, sends `é` as the byte 0xE9 and signs its UTF-8 form).
 * SigV4 hashes the UTF-8 form of the text, so both sign.
 */
export function headerText(value: string): string {
  if (!NON_ASCII.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}

/** What Node's header writer refuses (it throws): control characters but tab, and characters above U+00FF. */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;
const ABOVE_LATIN1 = /[^\x00-\xff]/;

/**
 * A header value as Node writes it, byte per character (Latin-1): characters up to U+00FF go out as
 * one byte, so a value read as Latin-1 goes back as its bytes and clients that read header bytes as
 * Latin-1 (Python's http.client, Node's http) get their text back; a value with characters beyond
 * goes out as UTF-8. Control characters become spaces (header-fields.ts).
 */
export function sendableValue(value: string): string {
  if (!UNSENDABLE.test(value)) return value;
  const safe = safeFieldValue(value);
  return ABOVE_LATIN1.test(safe) ? Buffer.from(safe, 'utf8').toString('latin1') : safe;
}

type Fields = Array<readonly [string, string]>;

/** Node takes [name, value] pairs as they are (its typings name only the flat form). */
export function writeHead(res: ServerResponse, status: number, fields: Fields): void {
  res.writeHead(status, fields as unknown as string[]);
}

/** The response fields Node is given: names that are tokens, values it can write. */
export function fieldsOf(headers: ResponseHeaders): Fields {
  const out: Fields = new Array<readonly [string, string]>();
  for (let i = 0; i < headers.length; i++) {
    const field = headers[i]!;
    if (!isFieldName(field[0])) continue;
    const v = field[1];
    out.push(UNSENDABLE.test(v) ? [field[0], sendableValue(v)] : field);
  }
  return out;
}

/** The body of the request, if any, is framed by these (anything else: no body). */
function announcesBody(head: RequestHead): boolean {
  const length = head.headers['content-length'];
  return head.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** One request and its response on a node:http connection. Everything is safe to call after `aborted` became true (it is a no-op then). */
export class NodeExchange implements Exchange {
  readonly head: RequestHead;
  aborted = false;
  /** a response has been started or finished */
  responded = false;
  /** the response status once its head was written (access log, metrics) */
  status: number | undefined;
  /** response body bytes handed to the socket */
  bytesSent = 0;
  /** the whole response went to Node */
  private finished = false;
  /** the response said `Connection: close`, or the connection was dropped: nothing may follow it */
  closesConnection = false;
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private ended: boolean;
  private paused = false;
  private wake: (() => void) | undefined;
  private bodyReceived = 0;
  /** `Expect: 100-continue` not granted yet: the client waits before it sends the body */
  private continuePending: boolean;
  /** `stream` waits for the socket to take a chunk */
  private drainWait: (() => void) | undefined;
  private abortNoticed = false;
  private readonly abortListeners: Array<() => void> = [];

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    head: RequestHead,
    expectsContinue: boolean,
  ) {
    this.head = head;
    this.ended = !announcesBody(head);
    this.continuePending = expectsContinue && !this.ended;
    if (!this.ended) {
      req.on('data', (chunk: Buffer) => {
        this.queue.push(chunk);
        this.queued += chunk.length;
        this.bodyReceived += chunk.length;
        if (this.queued >= BODY_HIGH_WATER && !this.paused) {
          this.paused = true;
          req.pause();
        }
        this.wakeReader();
      });
      req.once('end', () => {
        this.ended = true;
        this.wakeReader();
      });
    }
  }

  onAbort(listener: () => void): void {
    this.abortListeners.push(listener);
  }

  /** Node parsed the whole request, body included. */
  get requestComplete(): boolean {
    return this.req.complete;
  }

  /** The whole response went to Node. */
  get complete(): boolean {
    return this.finished;
  }

  /** Calls `then` once the response went out (not when the connection closed first). */
  afterResponse(then: () => void): void {
    if (this.res.writableFinished) then();
    else this.res.once('finish', then);
  }

  /** Calls `then` once the exchange is over: the response went out whole, or the connection closed. */
  whenOver(then: () => void): void {
    if (this.over) then();
    else {
      this.res.once('finish', then);
      this.onAbort(then);
    }
  }

  /** The client is what this exchange waits for: the body it announced, or room in the socket. */
  get waitsOnClient(): boolean {
    return this.wake !== undefined || this.drainWait !== undefined;
  }

  /** The connection closed: the client went away unless the whole response was written. */
  connectionClosed(): void {
    if (!this.res.writableFinished) this.abort();
  }

  /** The response went out whole (or the connection closed): nothing more to say on this exchange. */
  get over(): boolean {
    return this.res.writableFinished || this.abortNoticed;
  }

  private abort(): void {
    this.aborted = true;
    this.ended = true;
    this.wakeReader();
    this.drainWait?.();
    if (this.abortNoticed) return;
    this.abortNoticed = true;
    for (const l of this.abortListeners) l();
  }

  private wakeReader(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** An unread body stays unread while `100-continue` was not granted: the client has not sent it. */
  discardSmallBody(maxBytes: number, timeoutMs: number): Promise<void> {
    return this.continuePending ? Promise.resolve() : discardSmallBody(this, maxBytes, timeoutMs);
  }

  get bodyEnded(): boolean {
    return this.ended;
  }

  get received(): number {
    return this.bodyReceived;
  }

  /**
   * Next chunk of the request body, or null at its end; the first call grants `Expect:
   * 100-continue` (RFC 9110 §10.1.1: the handlers read a body only once the request is authorized).
   */
  async nextBodyChunk(): Promise<Buffer | null> {
    if (this.continuePending && !this.aborted && !this.responded) {
      this.continuePending = false;
      this.res.writeContinue();
    }
    for (;;) {
      if (this.aborted) throw new AbortedError();
      // a chunk of at least BODY_CHUNK_MIN unless the body ends first: the client sends the body
      // it announced without waiting for anything, so waiting for more only batches it
      const chunk = this.queued >= BODY_CHUNK_MIN || this.ended ? this.takeQueued() : undefined;
      if (chunk) {
        if (this.paused && this.queued < BODY_HIGH_WATER / 2) {
          this.paused = false;
          this.req.resume();
        }
        return chunk;
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /**
   * The queued body bytes, up to COALESCE in one buffer: Node reads a socket 64 KiB at a time, and
   * every chunk costs the PUT pipeline a digest job and a write (one copy here, as uWS's path has;
   * uWS hands over 16 to 512 KiB at a time).
   */
  private takeQueued(): Buffer | undefined {
    const first = this.queue.shift();
    if (!first) return undefined;
    let chunk = first;
    let n = 0;
    let size = first.length;
    while (n < this.queue.length && size + this.queue[n]!.length <= COALESCE) size += this.queue[n++]!.length;
    if (n > 0) chunk = Buffer.concat([first, ...this.queue.splice(0, n)], size);
    this.queued -= chunk.length;
    return chunk;
  }

  /** Sends a complete response. `body` undefined → empty body with Content-Length: 0 (unless status is 204/304). */
  send(status: number, headers: ResponseHeaders, body?: Buffer | string, close = false): void {
    if (!this.start(status)) return;
    const length = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    this.bytesSent = length;
    writeHead(this.res, status, this.fields(status, headers, length, close));
    // the caller may reuse a buffer once this returns (a reader's pooled block, as uWS copies what
    // the socket does not take at once): Node would write it later, from its reference
    this.res.end(typeof body === 'string' || body === undefined || body.length === 0 ? body : Buffer.from(body));
    this.finished = true;
  }

  /** Headers only, reporting `contentLength` (HEAD, s3.md §1.7). */
  sendHead(status: number, headers: ResponseHeaders, contentLength: number | undefined, close = false): void {
    if (!this.start(status)) return;
    writeHead(this.res, status, this.fields(status, headers, contentLength ?? 0, close));
    this.res.end();
    this.finished = true;
  }

  /**
   * Streams a body of exactly `total` bytes pulled from `read` with back-pressure: the next chunk is
   * read only once the socket took the previous one.
   */
  async stream(status: number, headers: ResponseHeaders, total: number, read: (maxBytes: number) => Promise<Buffer | null>): Promise<void> {
    if (!this.start(status)) return;
    writeHead(this.res, status, this.fields(status, headers, total, false));
    if (total === 0) {
      this.finished = true;
      this.res.end();
      return;
    }
    let sent = 0;
    for (;;) {
      const chunk = await read(Math.min(total - sent, STREAM_CHUNK));
      if (this.aborted) return;
      if (!chunk || chunk.length === 0) {
        // The store returned fewer bytes than the extent promised: never send a short body as complete.
        this.res.destroy();
        throw new Error(`body ended early at ${sent} of ${total} bytes`);
      }
      sent += chunk.length;
      this.bytesSent = sent;
      const last = sent >= total;
      if (!(await this.flushed(chunk, last)) || last) return;
    }
  }

  /**
   * Writes `chunk` (and ends the response after it when `last`); resolves once the socket took it
   * all (true), or the client went away (false). Node keeps a reference to what the socket has not
   * taken yet, and the reader that gave the chunk reuses its buffer on its next read or once closed.
   */
  private flushed(chunk: Buffer, last: boolean): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.drainWait = undefined;
        resolve(!this.aborted);
      };
      this.drainWait = done;
      if (last) {
        this.finished = true;
        this.res.end(chunk, done);
      } else this.res.write(chunk, done);
    });
  }

  /**
   * Starts a response whose length is not known yet: Node sends it with chunked transfer encoding
   * when no Content-Length was written. Meant for small bodies (keep-alive whitespace, an XML
   * result): writes are buffered by Node without back-pressure.
   */
  beginChunked(status: number, headers: ResponseHeaders): { write(data: string): void; end(data: string): void } {
    const mine = this.start(status);
    const live = (): boolean => mine && !this.aborted && !this.finished;
    if (mine) writeHead(this.res, status, this.fields(status, headers, undefined, false));
    return {
      write: (data) => {
        if (live()) this.res.write(data);
      },
      end: (data) => {
        if (!live()) return;
        this.finished = true;
        this.res.end(data);
      },
    };
  }

  /** Drops the connection without a response (or after a partial one). */
  close(): void {
    if (this.aborted || this.finished) return;
    this.closesConnection = true;
    this.responded = true;
    this.aborted = true;
    this.res.destroy();
  }

  private start(status: number): boolean {
    if (this.aborted || this.responded) return false;
    this.responded = true;
    this.status = status;
    return true;
  }

  /**
   * The head's fields: Content-Length unless the status has no body (RFC 9110 §8.6), and
   * `Connection: close` when asked, or when the client still holds back a body it was not told to
   * send (an unread body of unknown end must not be taken for the next request).
   */
  private fields(status: number, headers: ResponseHeaders, length: number | undefined, close: boolean): Fields {
    const out = fieldsOf(headers);
    if (length !== undefined && status !== 204 && status !== 304) out.push(['content-length', String(length)]);
    if (close || this.continuePending) {
      this.closesConnection = true;
      out.push(['connection', 'close']);
    }
    return out;
  }
}
