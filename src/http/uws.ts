// The only file that touches uWebSockets.js (style.md §5): loads the native binary (never the
// silent pure-JS fallback), copies each request into a plain RequestHead, streams request bodies
// with pause/resume, and writes responses corked, with tryEnd/onWritable back-pressure.

import { isFieldName, safeFieldValue } from './header-fields.js';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { AbortedError, discardSmallBody, type Exchange, type ResponseHeaders } from './exchange.js';
import type { RequestHead } from './request-head.js';
import { joinHeaders } from './request-head.js';

// uWS reads this once when its binary loads; S3 allows 8 KiB of headers and uWS's default of 4 KiB
// (request line included) is too small (s3.md §1.7, §6).
process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= '16384';

type UwsResponse = {
  pause(): void;
  resume(): void;
  writeStatus(status: string): UwsResponse;
  writeHeader(key: string, value: string): UwsResponse;
  end(body?: Uint8Array | string, closeConnection?: boolean): UwsResponse;
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): UwsResponse;
  tryEnd(chunk: Uint8Array, totalSize: number): [boolean, boolean];
  write(chunk: Uint8Array | string): boolean;
  close(): UwsResponse;
  getWriteOffset(): number;
  getRemoteAddressAsText(): ArrayBuffer;
  onWritable(handler: (offset: number) => boolean): UwsResponse;
  onAborted(handler: () => void): UwsResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): UwsResponse;
  cork(cb: () => void): UwsResponse;
};
type UwsRequest = {
  getUrl(): string;
  getCaseSensitiveMethod(): string;
  getQuery(): string | undefined;
  forEach(cb: (key: string, value: string) => void): void;
};
type UwsApp = {
  any(pattern: string, handler: (res: UwsResponse, req: UwsRequest) => void): UwsApp;
  listen(host: string, port: number, options: number, cb: (socket: unknown) => void): UwsApp;
  addServerName(hostname: string, options: UwsTlsOptions): UwsApp;
  removeServerName(hostname: string): UwsApp;
  missingServerName(cb: (hostname: string) => void): UwsApp;
  domain(hostname: string): UwsApp;
  close(): void;
};
type UwsTlsOptions = { cert_file_name: string; key_file_name: string };
type UwsModule = {
  App(): UwsApp;
  /** throws when the certificate or key cannot be loaded */
  SSLApp(options: UwsTlsOptions): UwsApp;
  us_listen_socket_close(socket: unknown): void;
  us_socket_local_port(socket: unknown): number;
};

let uwsModule: UwsModule | undefined;

/** Loads the uWS native binary directly; throws (so the server refuses to start) if it cannot. */
export function loadUws(): UwsModule {
  if (uwsModule) return uwsModule;
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('@trufflesuite/uws-js-unofficial/package.json'));
  const binary = join(pkgDir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  let mod: UwsModule;
  try {
    mod = require(binary) as UwsModule;
  } catch (e) {
    throw new Error(
      `uWebSockets.js native binary failed to load (${binary}): ${(e as Error).message}. ` +
        'Refusing to start on the slow pure-JS fallback.',
    );
  }
  if (typeof mod.App !== 'function' || !String(mod.App).includes('[native code]')) {
    throw new Error('uWebSockets.js loaded without its native binary; refusing to run on the pure-JS fallback.');
  }
  uwsModule = mod;
  return mod;
}

const STATUS_TEXT: Record<number, string> = {
  100: 'Continue', 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 206: 'Partial Content', 304: 'Not Modified',
  400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict',
  411: 'Length Required', 412: 'Precondition Failed', 413: 'Payload Too Large', 416: 'Range Not Satisfiable',
  401: 'Unauthorized', 421: 'Misdirected Request', 429: 'Too Many Requests',
  431: 'Request Header Fields Too Large', 451: 'Unavailable For Legal Reasons', 500: 'Internal Server Error',
  501: 'Not Implemented', 503: 'Service Unavailable', 504: 'Gateway Timeout', 507: 'Insufficient Storage',
};

export function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? 'Unknown'}`;
}

/** Largest piece of a streamed response body asked of its source at once. */
const STREAM_CHUNK = 1 << 20;

/** Bytes of request body kept in memory before the socket is paused. */
const BODY_HIGH_WATER = 1 << 20;

export { AbortedError, type Exchange, type ResponseHeaders } from './exchange.js';

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

  constructor(res: UwsResponse, head: RequestHead) {
    this.res = res;
    this.head = head;
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
    this.res.cork(() => {
      this.writeHead(status, headers);
      if (status === 204 || status === 304) this.endNoContent();
      else {
        this.bytesSent += body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
        this.res.end(body ?? '', close);
      }
    });
    this.finished = true;
  }

  /** Headers only, reporting `contentLength` (HEAD, s3.md §1.7). */
  sendHead(status: number, headers: ResponseHeaders, contentLength: number | undefined, close = false): void {
    if (this.aborted || this.responded) return;
    this.responded = true;
    this.res.cork(() => {
      this.writeHead(status, headers);
      if (status === 204 || status === 304) this.endNoContent();
      else if (close) this.res.endWithoutBody(contentLength ?? 0, true);
      else {
        // endWithoutBody(n) of the v20.30 binding silently drops keep-alive; a written
        // Content-Length with the argument-less form keeps the connection open
        this.res.writeHeader('Content-Length', String(contentLength ?? 0));
        this.res.endWithoutBody();
      }
    });
    this.finished = true;
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
   * when no Content-Length was written. Meant for small bodies (keep-alive whitespace, an XML
   * result): writes are buffered by uWS without back-pressure.
   */
  beginChunked(status: number, headers: ResponseHeaders): { write(data: string): void; end(data: string): void } {
    // a second response on one exchange would corrupt the first: only the one that started writes
    const mine = !this.aborted && !this.responded;
    const live = (): boolean => mine && !this.aborted && !this.finished;
    if (mine) {
      this.responded = true;
      this.res.cork(() => this.writeHead(status, headers));
    }
    return {
      write: (data) => {
        if (live()) this.res.cork(() => this.res.write(data));
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

/** Why `host:port` cannot be bound alone right now, or undefined when it can (a throwaway bind). */
export function portTaken(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) =>
      resolve(e.code === 'EADDRINUSE' ? 'address already in use (is another server running?)' : `${e.code ?? ''} ${e.message}`.trim()),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/**
 * A port the kernel offers on `host` now. A listener that shares its port (SO_REUSEPORT) asks for
 * one this way: the kernel does not let other sockets join a port it picked for a `0` bind.
 */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** uWS reports a failed listen without a reason: ask the kernel for it with a throwaway bind. */
async function listenFailureReason(host: string, port: number): Promise<string> {
  return (await portTaken(host, port)) ?? 'the port was busy when tried';
}

export interface HttpServer {
  port: number;
  /** https listener */
  secure: boolean;
  /**
   * Stops accepting connections, waits up to `graceMs` for the requests being answered (with
   * `inFlight`, those of every listener sharing it), then closes every connection (idle
   * keep-alive ones included). Idempotent.
   */
  close(graceMs?: number): Promise<void>;
  /**
   * Switches new TLS handshakes that name a server (SNI) to `files`, checked with `tlsFilesLoad`
   * (tls-snapshots.ts); open connections keep theirs.
   */
  reloadTls(files: TlsFiles): void;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

function tlsOptionsOf(files: TlsFiles): UwsTlsOptions {
  return { cert_file_name: files.certFile, key_file_name: files.keyFile };
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
 * Requests in flight on the listeners of threads that share a port: one count per thread, in
 * shared memory, so that the count of a thread that ended can be set back to 0 by its owner.
 */
export interface SharedInFlight {
  counts: Int32Array;
  /** this listener's thread */
  slot: number;
}

/** Counts for `threads` threads sharing a port (slot 0: the thread that bound it). */
export function sharedInFlightCounts(threads: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * threads));
}

function anyInFlight(counts: Int32Array): boolean {
  for (let i = 0; i < counts.length; i++) if (Atomics.load(counts, i) > 0) return true;
  return false;
}

/**
 * Starts a uWS listener, over TLS when `tls` is given. `handler` is called synchronously for each
 * request with its Exchange; the promise it returns settles when the request is done, so that
 * close() can wait for it. `sharedPort`: the listener joins the other threads of this process on
 * the port (SO_REUSEPORT; the kernel spreads connections among them) instead of binding it alone;
 * `inFlight` then counts the requests of all of them.
 */
export function listen(
  host: string,
  port: number,
  handler: (ex: Exchange) => Promise<void>,
  tls?: TlsFiles,
  { sharedPort = false, inFlight: shared }: { sharedPort?: boolean; inFlight?: SharedInFlight } = {},
): Promise<HttpServer> {
  const uws = loadUws();
  let tlsOptions = tls && tlsOptionsOf(tls);
  const app = tlsOptions ? uws.SSLApp(tlsOptions) : uws.App();
  let inFlight = 0;
  let drained: (() => void) | undefined;
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
      // read only when a policy asks (aws:SourceIp): the binding's call is costly on every request
      remoteAddress: () => (ex.aborted || ex.responded ? '' : Buffer.from(res.getRemoteAddressAsText()).toString()),
      secure,
    };
    ex = new UwsExchange(res, head);
    inFlight++;
    if (shared) Atomics.add(shared.counts, shared.slot, 1);
    void handler(ex).finally(() => {
      if (shared) Atomics.sub(shared.counts, shared.slot, 1);
      if (--inFlight === 0) drained?.();
    });
  };
  app.any('/*', route);
  // This uWS build cannot bind a second listener to a port with open connections, so a TLS reload
  // cannot swap listeners: each server name a client asks for (SNI) gets its own context, loaded
  // on first sight, and a reload replaces those. Clients that send no SNI (those that connect to
  // an IP address) keep the start-up certificate until a restart. A server name has its own uWS
  // router, which gets the same route. (uWS prints a line to stdout when it switches routers.)
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
            const deadline = Date.now() + graceMs;
            if (shared) {
              // another thread's request may be one this thread answers, or come back here on an
              // open connection (a health probe): every thread's connections stay until all are done
              while (anyInFlight(shared.counts) && Date.now() < deadline) await sleep(20);
            } else if (inFlight > 0) {
              let timer: NodeJS.Timeout | undefined;
              await Promise.race([
                new Promise<void>((done) => (drained = done)),
                new Promise<void>((done) => (timer = setTimeout(done, graceMs))),
              ]);
              clearTimeout(timer);
            }
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

/**
 * The first listener of a port that this process's threads will share (SO_REUSEPORT), on a port
 * nobody holds: sharing would not keep another process out, so a port already bound by anyone
 * refuses the start here. A port the kernel picked for a 0 bind cannot be shared, so for port 0
 * a free one is picked first (and picked again if it was taken meanwhile). Its requests count in
 * slot 0 of `inFlightCounts`.
 */
export async function listenForThreads(
  host: string,
  port: number,
  handler: (ex: Exchange) => Promise<void>,
  inFlightCounts: Int32Array,
  tls?: TlsFiles,
): Promise<HttpServer> {
  for (let attempt = 0; ; attempt++) {
    const chosen = port === 0 ? await freePort(host) : port;
    const taken = await portTaken(host, chosen);
    if (taken && port === 0 && attempt < 5) continue;
    if (taken) throw new Error(`cannot listen on ${host}:${chosen}: ${taken}`);
    try {
      return await listen(host, chosen, handler, tls, { sharedPort: true, inFlight: { counts: inFlightCounts, slot: 0 } });
    } catch (e) {
      if (port !== 0 || attempt >= 5) throw e;
    }
  }
}
