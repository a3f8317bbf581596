// The only file that drives uWebSockets.js (style.md §5; http/uws-module.ts loads its binary),
// copies each request into a plain RequestHead,
// streams request bodies with pause/resume, and writes responses corked, with tryEnd/onWritable
// back-pressure.

import { isFieldName, safeFieldValue } from './header-fields.js';
import { AbortedError, discardSmallBody, type ChunkedWriter, type Exchange, type ResponseHeaders } from './exchange.js';
import { asksToClose, framingProblem } from './framing.js';
import {
  InFlight, portTaken, statusLine, TLS12_CIPHERS, type HttpServer, type ListenOptions, type RequestHandler, type TlsFiles,
} from './listener.js';
import type { RequestHead } from './request-head.js';
import { joinHeaders } from './request-head.js';
import { loadUws, type UwsRequest, type UwsResponse, type UwsTlsOptions } from './uws-module.js';

/** Largest piece of a streamed response body asked of its source at once. */
const STREAM_CHUNK = 1 << 20;

/** Bytes of request body kept in memory before the socket is paused. */
const BODY_HIGH_WATER = 1 << 20;

/*
 * uWS (v20.30) parses every request of one read before it returns to the event loop. A response
 * completed meanwhile (in the route callback, or in the microtasks run right after it) lets it
 * dispatch the next request of that read even when the response said Connection: close: it
 * resets the connection's state for each request and never closes it. The bytes after a
 * request whose framing was refused would run as a request of their own (request smuggling, RFC
 * 9112 §11.2), and a request sent after `Connection: close` would be processed (§9.6 forbids
 * it). So an answer that closes the connection is written only once uWS is done with the read
 * that carried its request, and a request that will close its connection is handled only then:
 * a request that arrives while the previous one is unanswered makes uWS close the connection
 * without dispatching it. Both behaviours of the binary are pinned in
 * test/unit/http/uws-pipelining.test.ts. A read is done by the check phase (setImmediate) that
 * follows the poll phase in which uWS ran.
 */

/** Counts the turns of the event loop in which uWS dispatched requests. */
let readTurn = 0;
let turnEnding = false;
let afterTurn: Array<() => void> = [];

/** This turn's number; its end (setImmediate) runs what waits for it. */
function currentTurn(): number {
  if (!turnEnding) {
    turnEnding = true;
    setImmediate(endTurn);
  }
  return readTurn;
}

function endTurn(): void {
  readTurn++;
  turnEnding = false;
  const due = afterTurn;
  afterTurn = [];
  for (const run of due) run();
}

/** One request and its response on a uWS socket. Everything is safe to call after `aborted` became true (it is a no-op then). */
export class UwsExchange implements Exchange {
  readonly head: RequestHead;
  aborted = false;
  /** a response has been started or finished */
  responded = false;
  /** the whole response went to uWS: the uWS response must not be touched again */
  private finished = false;
  /** the response status once its head was written (access log, metrics) */
  status: number | undefined;
  /** response body bytes handed to the socket */
  bytesSent = 0;
  private readonly res: UwsResponse;
  private queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private paused = false;
  private wake: (() => void) | undefined;
  private bodyReceived = 0;
  /** what `stream` waits to send once the socket drains */
  private pendingWrite: { chunk: Buffer; start: number; total: number; settle: (more: boolean) => void } | undefined;
  private writableHandled = false;
  private readonly abortListeners: Array<() => void> = [];
  /** the turn of the read that carried the request (see readTurn) */
  private readonly turn = currentTurn();
  /** the request's framing is refused (framing.ts): its only answer closes the connection */
  readonly refused: boolean;
  /** the connection closes after this exchange: refused framing or `Connection: close` */
  readonly closes: boolean;

  constructor(res: UwsResponse, head: RequestHead) {
    this.res = res;
    this.head = head;
    this.refused = framingProblem(head) !== undefined;
    this.closes = this.refused || asksToClose(head);
    const length = head.headers['content-length'];
    if (head.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) this.ended = true;
    res.onAborted(() => {
      this.aborted = true;
      this.ended = true;
      this.wakeReader();
      const w = this.pendingWrite;
      this.pendingWrite = undefined;
      w?.settle(false);
      for (const l of this.abortListeners) l();
    });
    // uWS drops body bytes that arrive before onData is registered, so it is registered here,
    // synchronously; chunks are copied (uWS reuses the memory) and queued up to BODY_HIGH_WATER.
    res.onData((ab, isLast) => {
      if (ab.byteLength > 0) {
        const copy = Buffer.allocUnsafe(ab.byteLength);
        copy.set(new Uint8Array(ab));
        this.queue.push(copy);
        this.queued += copy.length;
        this.bodyReceived += copy.length;
      }
      if (isLast) this.ended = true;
      if (this.queued >= BODY_HIGH_WATER && !this.ended && !this.paused) {
        this.paused = true;
        res.pause();
      }
      this.wakeReader();
    });
  }

  onAbort(listener: () => void): void {
    this.abortListeners.push(listener);
  }

  /** Runs `run` once uWS is done with the read that carried this request (see readTurn). */
  afterRead(run: () => void): void {
    if (this.turn !== readTurn) run();
    else afterTurn.push(run);
  }

  /** Writes an answer now, or, when it closes the connection, once the read is done (see readTurn). */
  private finish(close: boolean, write: () => void): void {
    const run = () => {
      if (this.aborted) return;
      this.res.cork(write);
      this.finished = true;
    };
    if (close) this.afterRead(run);
    else run();
  }

  private wakeReader(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  discardSmallBody(maxBytes: number, timeoutMs: number): Promise<void> {
    return discardSmallBody(this, maxBytes, timeoutMs);
  }

  /** The last body byte arrived (or the client went away). */
  get bodyEnded(): boolean {
    return this.ended;
  }

  /** Total body bytes received from the socket so far. */
  get received(): number {
    return this.bodyReceived;
  }

  /**
   * Next chunk of the request body, or null at its end. Throws AbortedError if the client went away.
   * The socket is resumed once the caller has taken the queued bytes.
   */
  async nextBodyChunk(): Promise<Buffer | null> {
    for (;;) {
      if (this.aborted) throw new AbortedError();
      const chunk = this.queue.shift();
      if (chunk) {
        this.queued -= chunk.length;
        if (this.paused && this.queued < BODY_HIGH_WATER / 2 && !this.aborted) {
          this.paused = false;
          this.res.resume();
        }
        return chunk;
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Sends a complete response. `body` undefined → empty body with Content-Length: 0 (unless status is 204/304). */
  send(status: number, headers: ResponseHeaders, body?: Buffer | string, close = false): void {
    if (this.aborted || this.responded) return;
    this.responded = true;
    this.status = status;
    const closing = close || this.closes;
    if (status !== 204 && status !== 304) {
      this.bytesSent += body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    }
    this.finish(closing, () => {
      this.writeHead(status, headers);
      if (status === 204 || status === 304) this.endNoContent();
      else this.res.end(body ?? '', closing);
    });
  }

  /** Headers only, reporting `contentLength` (HEAD, s3.md §1.7). */
  sendHead(status: number, headers: ResponseHeaders, contentLength: number | undefined, close = false): void {
    if (this.aborted || this.responded) return;
    this.responded = true;
    this.status = status;
    const closing = close || this.closes;
    this.finish(closing, () => {
      this.writeHead(status, headers);
      if (status === 204 || status === 304) this.endNoContent();
      else if (closing) this.res.endWithoutBody(contentLength ?? 0, true);
      else {
        // endWithoutBody(n) of the v20.30 binding silently drops keep-alive; a written
        // Content-Length with the argument-less form keeps the connection open
        this.res.writeHeader('Content-Length', String(contentLength ?? 0));
        this.res.endWithoutBody();
      }
    });
  }

  /**
   * Streams a body of exactly `total` bytes pulled from `read` with back-pressure: the next chunk is
   * read only after the previous one was accepted by the socket.
   */
  async stream(
    status: number,
    headers: ResponseHeaders,
    total: number,
    read: (maxBytes: number) => Promise<Buffer | null>,
  ): Promise<void> {
    if (this.aborted || this.responded) return;
    // a refused request is answered with send(): nothing else would close the connection after it
    if (this.refused) return this.close();
    this.responded = true;
    if (total === 0) {
      this.res.cork(() => {
        this.writeHead(status, headers);
        this.res.end('');
      });
      this.finished = true;
      return;
    }
    let headWritten = false;
    let sent = 0;
    while (sent < total) {
      const chunk = await read(Math.min(total - sent, STREAM_CHUNK));
      if (this.aborted) return;
      if (!chunk || chunk.length === 0) {
        // The store returned fewer bytes than the extent promised: never send a short body as complete.
        this.res.cork(() => this.res.close());
        throw new Error(`body ended early at ${sent} of ${total} bytes`);
      }
      let start = this.res.getWriteOffset();
      let ok = false;
      let done = false;
      this.res.cork(() => {
        if (!headWritten) {
          this.writeHead(status, headers);
          headWritten = true;
          start = 0;
        }
        [ok, done] = this.res.tryEnd(chunk, total);
      });
      sent += chunk.length;
      this.bytesSent = sent;
      if (done) {
        this.finished = true;
        return;
      }
      if (!ok && !(await this.sendRest(chunk, start, total))) return;
    }
  }

  /**
   * Sends the rest of `chunk`, whose first byte was at write offset `start`, as the socket drains:
   * from within uWS's writable callback, each time from the offset it reports (a TLS socket takes
   * a chunk in several pieces). False once the response is complete or the client went away.
   */
  private sendRest(chunk: Buffer, start: number, total: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.pendingWrite = { chunk, start, total, settle: resolve };
      // One handler for the whole response: uWS keeps calling the handler it has after it returned
      // true, and a handler given again later did not always take its place (TLS downloads stalled).
      if (!this.writableHandled) {
        this.writableHandled = true;
        this.res.onWritable((offset) => this.writable(offset));
      }
    });
  }

  private writable(offset: number): boolean {
    const p = this.pendingWrite;
    if (!p) return true;
    const [ok, done] = this.res.tryEnd(p.chunk.subarray(offset - p.start), p.total);
    if (ok || done) {
      this.pendingWrite = undefined;
      this.finished = done;
      p.settle(!done);
    }
    return ok || done;
  }

  /**
   * Starts a response whose length is not known yet: uWS sends it with chunked transfer encoding
   * when no Content-Length was written. uWS buffers what the socket does not take; write() says
   * so (false), and the caller bounds what it writes after that (notify/listen.ts).
   */
  beginChunked(status: number, headers: ResponseHeaders): ChunkedWriter {
    if (this.refused) this.close();
    // a second response on one exchange would corrupt the first: only the one that started writes
    const mine = !this.aborted && !this.responded;
    const live = (): boolean => mine && !this.aborted && !this.finished;
    if (mine) {
      this.responded = true;
      this.res.cork(() => this.writeHead(status, headers));
    }
    return {
      write: (data) => {
        if (!live()) return true;
        let taken = true;
        this.res.cork(() => (taken = this.res.write(data)));
        return taken;
      },
      end: (data) => {
        if (!live()) return;
        this.res.cork(() => this.res.end(data));
        this.finished = true;
      },
    };
  }

  /** Drops the connection without a response (or after a partial one). */
  close(): void {
    if (this.aborted || this.finished) return;
    this.responded = true;
    this.aborted = true;
    this.res.cork(() => this.res.close());
  }

  /**
   * 204/304 carry neither body nor Content-Length (RFC 9110). The v20.30 binding must get no
   * arguments here: an explicit `undefined` length makes it write Content-Length: 2^63.
   */
  private endNoContent(): void {
    this.res.endWithoutBody();
  }

  /**
   * A field whose name is not a token is left out; control characters in a value become spaces
   * (header-fields.ts). uWS writes `name: value CRLF` per call, so all the fields go in one call, the
   * first one's value carrying the others' lines: a call into the binding per field was ~4% of a
   * 4 KiB GET's CPU.
   */
  private writeHead(status: number, headers: ResponseHeaders): void {
    this.status = status;
    this.res.writeStatus(statusLine(status));
    let first: string | undefined;
    let rest = '';
    for (const [k, v] of headers) {
      if (!isFieldName(k)) continue;
      if (first === undefined) {
        first = k;
        rest = safeFieldValue(v);
      } else rest += `\r\n${k}: ${safeFieldValue(v)}`;
    }
    if (first !== undefined) this.res.writeHeader(first, rest);
  }
}

/**
 * uWS listens with SO_REUSEPORT by default, so a second server on a busy port would start and
 * silently take part of its traffic; this option binds without it (index.d.ts ListenOptions).
 */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/** uWS reports a failed listen without a reason: ask the kernel for it with a throwaway bind. */
async function listenFailureReason(host: string, port: number): Promise<string> {
  return (await portTaken(host, port)) ?? 'the port was busy when tried';
}

function tlsOptionsOf(files: TlsFiles): UwsTlsOptions {
  return { cert_file_name: files.certFile, key_file_name: files.keyFile, ssl_ciphers: TLS12_CIPHERS };
}

/** Whether uWS loads `files` (a PEM certificate chain and its private key). */
export function tlsFilesLoad(files: TlsFiles): boolean {
  try {
    loadUws().SSLApp(tlsOptionsOf(files)).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * uWS's getRemoteAddressAsText, in JS from getRemoteAddress's bytes (uWS AsyncSocket::addressAsText:
 * 4 bytes dotted, 16 bytes as eight uncompressed groups of 4 hex digits): the text call costs a
 * second copy and a decode for the same getpeername.
 */
export function addressText(b: Uint8Array): string {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (b.length !== 16) return '';
  let text = '';
  for (let i = 0; i < 16; i += 2) text += `${i ? ':' : ''}${b[i]!.toString(16).padStart(2, '0')}${b[i + 1]!.toString(16).padStart(2, '0')}`;
  return text;
}

/**
 * Starts a uWS listener, over TLS when `tls` is given. `handler` is called synchronously for each
 * request with its Exchange; the promise it returns settles when the request is done, so that
 * close() can wait for it. uWS closes the connection on what its parser refuses, without an
 * answer: `refuse` is not used.
 */
export function listen(
  host: string,
  port: number,
  handler: RequestHandler,
  tls?: TlsFiles,
  { sharedPort = false, inFlight: shared }: ListenOptions = {},
): Promise<HttpServer> {
  const uws = loadUws();
  let tlsOptions = tls && tlsOptionsOf(tls);
  const app = tlsOptions ? uws.SSLApp(tlsOptions) : uws.App();
  const inFlight = new InFlight(shared);
  const secure = tls !== undefined;
  const route = (res: UwsResponse, req: UwsRequest) => {
    const headerList: Array<readonly [string, string]> = [];
    req.forEach((k, v) => headerList.push([k, v]));
    let ex: UwsExchange;
    const head: RequestHead = {
      method: req.getCaseSensitiveMethod().toUpperCase(),
      rawPath: req.getUrl(),
      rawQuery: req.getQuery() ?? '',
      headerList,
      headers: joinHeaders(headerList),
      // read only when asked (aws:SourceIp, a notification's sourceIPAddress): each call is a getpeername
      remoteAddress: () => (ex.aborted || ex.responded ? '' : addressText(new Uint8Array(res.getRemoteAddress()))),
      secure,
    };
    ex = new UwsExchange(res, head);
    // a request after which the connection closes is handled once uWS is done with its read
    // (see readTurn): a request behind it in that read then closes the connection unanswered
    inFlight.track(ex.closes ? new Promise<void>((done) => ex.afterRead(() => done(handler(ex)))) : handler(ex));
  };
  app.any('/*', route);
  // This uWS build cannot bind a second listener to a port with open connections, so a TLS reload
  // cannot swap listeners: each server name a client asks for (SNI) gets its own context, loaded
  // on first sight, and a reload replaces those. Clients that send no SNI (those that connect to
  // an IP address) keep the start-up certificate until a restart. A server name has its own uWS
  // router, which gets the same route. (uWS prints two lines when it switches routers: they go to
  // stderr, see loadUws.)
  // A name first seen long after a reload still loads the files of that reload: they are the
  // checked copies of tls-snapshots.ts, never the operator's files as they are then.
  const serverNames = new Set<string>();
  const addServerName = (name: string, options: UwsTlsOptions) => {
    app.addServerName(name, options);
    app.domain(name).any('/*', route);
  };
  if (tlsOptions) {
    app.missingServerName((name) => {
      serverNames.add(name);
      addServerName(name, tlsOptions!);
    });
  }
  return new Promise((resolve, reject) => {
    app.listen(host, port, sharedPort ? 0 : LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (!socket) {
        void listenFailureReason(host, port).then((reason) => reject(new Error(`cannot listen on ${host}:${port}: ${reason}`)));
        return;
      }
      let closing: Promise<void> | undefined;
      resolve({
        port: uws.us_socket_local_port(socket),
        secure,
        close: (graceMs = 10_000) =>
          (closing ??= (async () => {
            // closing a uWS listen socket twice crashes the process: once, here
            uws.us_listen_socket_close(socket);
            await inFlight.settled(graceMs);
            app.close();
          })()),
        reloadTls(files) {
          if (!tlsOptions) throw new Error('this listener has no TLS');
          tlsOptions = tlsOptionsOf(files);
          for (const name of serverNames) {
            app.removeServerName(name);
            addServerName(name, tlsOptions);
          }
        },
      });
    });
  });
}
