// What every HTTP engine's listener shares, whichever engine runs it (engine.ts picks one): the
// listener's interface, its TLS files, requests in flight across the threads that share a port,
// port probing, and the answers given to requests no handler sees.

import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Exchange, ResponseHeaders } from './exchange.js';
import type { FramingProblem } from './framing.js';

/**
 * Largest request head (request line and header fields) either engine reads: S3 allows 8 KiB of
 * headers (s3.md §1.7, §6), and a presigned URL's query adds to the request line.
 */
export const MAX_HEAD_BYTES = 16384;

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/**
 * The TLS 1.2 suites both engines offer, those of Mozilla's "intermediate" profile
 * (server-side-tls-conf-5.0.json): ECDHE with AES-GCM or ChaCha20-Poly1305 only, so every session
 * has forward secrecy and none uses 3DES (SWEET32), CBC or a static RSA key exchange. Its two DHE
 * suites are left out: uWS's BoringSSL has none. TLS 1.3's three suites stay on, TLS 1.0 and 1.1
 * off (both engines' default). The client picks among these, as the profile has it
 * (server_preferred_order: false; uWS offers no setting for server preference either).
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

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
  /** Switches new TLS handshakes to `files`, checked with `tlsFilesLoad` (tls-snapshots.ts); open connections keep theirs. */
  reloadTls(files: TlsFiles): void;
}

/**
 * A request an engine refuses before any handler sees it: its head cannot be parsed, is too large,
 * frames its body in a way HTTP forbids, or did not arrive in time. Answered, then the connection
 * closes: nothing after it on the connection is read (no request hidden in a body is ever run).
 */
export type RequestRefusal =
  | { kind: 'malformed'; detail: string }
  | { kind: 'framing'; problem: FramingProblem }
  | { kind: 'head-too-large' }
  | { kind: 'method-not-implemented'; method: string }
  | { kind: 'missing-host' }
  | { kind: 'timeout' };

/** A face's answer to a refusal, in its own error shape (the engine adds Content-Length and Connection: close). */
export interface RefusalAnswer {
  status: number;
  headers: ResponseHeaders;
  body: string;
}

export type RenderRefusal = (refusal: RequestRefusal) => RefusalAnswer;

/** The reason (error code) the Walrus-shaped faces give each refusal status (AIP-193 ErrorInfo). */
export const REFUSAL_REASONS = {
  400: 'MALFORMED_HTTP_REQUEST',
  408: 'REQUEST_TIMEOUT',
  431: 'REQUEST_HEAD_TOO_LARGE',
  501: 'METHOD_NOT_IMPLEMENTED',
} as const;

/**
 * A refusal's plain HTTP status and what went wrong in words, for faces whose errors are not S3's:
 * 400 (RFC 9112 §3.2, §6.3), 408 (head too slow), 431 (RFC 6585 §5), 501 (RFC 9110 §9.1).
 */
export function refusalSummary(r: RequestRefusal): { status: 400 | 408 | 431 | 501; detail: string } {
  switch (r.kind) {
    case 'malformed':
      return { status: 400, detail: `not valid HTTP/1.1: ${r.detail}` };
    case 'framing':
      return { status: r.problem.status === 501 ? 501 : 400, detail: `${r.problem.header} '${r.problem.value}' does not frame a body` };
    case 'head-too-large':
      return { status: 431, detail: `the request head is larger than ${MAX_HEAD_BYTES} bytes` };
    case 'method-not-implemented':
      return { status: 501, detail: `the ${r.method} method is not implemented` };
    case 'missing-host':
      return { status: 400, detail: 'an HTTP/1.1 request must have a Host header' };
    case 'timeout':
      return { status: 408, detail: 'the request head did not arrive in time' };
  }
}

export interface ListenOptions {
  /**
   * The listener joins the other threads of this process on the port (SO_REUSEPORT; the kernel
   * spreads connections among them) instead of binding it alone.
   */
  sharedPort?: boolean;
  /** with `sharedPort`: the requests in flight of every thread on the port */
  inFlight?: SharedInFlight;
  /** the face's answer to a refused request (engines that cannot answer one close the connection) */
  refuse?: RenderRefusal;
}

export type RequestHandler = (ex: Exchange) => Promise<void>;

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

/** A listener's requests in flight, and its wait for them at close. */
export class InFlight {
  private count = 0;
  private drained: (() => void) | undefined;

  constructor(private readonly shared?: SharedInFlight) {}

  /** Counts `handling` until it settles. */
  track(handling: Promise<void>): void {
    this.count++;
    if (this.shared) Atomics.add(this.shared.counts, this.shared.slot, 1);
    void handling.finally(() => {
      if (this.shared) Atomics.sub(this.shared.counts, this.shared.slot, 1);
      if (--this.count === 0) this.drained?.();
    });
  }

  /** Resolves once no request is in flight (with a shared count: on any thread), or after `graceMs`. */
  async settled(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    if (this.shared) {
      // another thread's request may be one this thread answers, or come back here on an open
      // connection (a health probe): every thread's connections stay until all are done
      while (anyInFlight(this.shared.counts) && Date.now() < deadline) await sleep(20);
    } else if (this.count > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((done) => (this.drained = done)),
        new Promise<void>((done) => (timer = setTimeout(done, graceMs))),
      ]);
      clearTimeout(timer);
    }
  }
}

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

const STATUS_TEXT: Record<number, string> = {
  100: 'Continue', 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 206: 'Partial Content', 304: 'Not Modified',
  400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict',
  411: 'Length Required', 412: 'Precondition Failed', 413: 'Payload Too Large', 416: 'Range Not Satisfiable',
  401: 'Unauthorized', 417: 'Expectation Failed', 421: 'Misdirected Request', 429: 'Too Many Requests',
  431: 'Request Header Fields Too Large', 451: 'Unavailable For Legal Reasons', 500: 'Internal Server Error',
  501: 'Not Implemented', 503: 'Service Unavailable', 504: 'Gateway Timeout', 507: 'Insufficient Storage',
};

export function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? 'Unknown'}`;
}
