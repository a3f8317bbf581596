// What a face sees of one HTTP request and its response, whichever engine and thread own the
// socket: a uWS exchange (uws.ts), a node:http one (node-engine.ts), or one forwarded from a
// front-end thread (thread-bridge.ts).

import type { RequestHead } from './request-head.js';

export type ResponseHeaders = Array<readonly [string, string]>;

/** A response sent chunked as it is written (Exchange.beginChunked). */
export interface ChunkedWriter {
  /** False when the socket is backed up (what was written waits in memory); a no-op once the exchange ended. */
  write(data: string): boolean;
  end(data: string): void;
}

export class AbortedError extends Error {
  constructor() {
    super('client aborted the request');
    this.name = 'AbortedError';
  }
}

/** Everything is safe to call after `aborted` became true (it is a no-op then). */
export interface Exchange {
  readonly head: RequestHead;
  readonly aborted: boolean;
  /** a response has been started or finished */
  readonly responded: boolean;
  /** the response status once its head was written (access log, metrics) */
  readonly status: number | undefined;
  /** response body bytes handed to the socket */
  readonly bytesSent: number;
  /** the last body byte arrived (or the client went away) */
  readonly bodyEnded: boolean;
  /** total body bytes received from the socket so far */
  readonly received: number;
  onAbort(listener: () => void): void;
  /**
   * Reads and drops the rest of a body whose declared length is at most `maxBytes`, for at most
   * `timeoutMs`: closing a socket with unread bytes in it resets the connection, and the client
   * may lose the answer written just before. Larger or undeclared bodies are left unread.
   */
  discardSmallBody(maxBytes: number, timeoutMs: number): Promise<void>;
  /** Next chunk of the request body, or null at its end. Throws AbortedError if the client went away. */
  nextBodyChunk(): Promise<Buffer | null>;
  /** Sends a complete response. `body` undefined → empty body with Content-Length: 0 (unless status is 204/304). */
  send(status: number, headers: ResponseHeaders, body?: Buffer | string, close?: boolean): void;
  /** Headers only, reporting `contentLength` (HEAD). */
  sendHead(status: number, headers: ResponseHeaders, contentLength: number | undefined, close?: boolean): void;
  /** Streams a body of exactly `total` bytes pulled from `read`, the next chunk only once the previous one was taken. */
  stream(status: number, headers: ResponseHeaders, total: number, read: (maxBytes: number) => Promise<Buffer | null>): Promise<void>;
  /** A response of unknown length, sent chunked: keep-alive whitespace and an XML result, or a live event stream. */
  beginChunked(status: number, headers: ResponseHeaders): ChunkedWriter;
  /** Drops the connection without a response (or after a partial one). */
  close(): void;
}

/** The shared part of discardSmallBody: drains `ex` while its declared body is small, for at most `timeoutMs`. */
export async function discardSmallBody(ex: Exchange, maxBytes: number, timeoutMs: number): Promise<void> {
  const declared = Number(ex.head.headers['content-length']);
  if (!(declared > 0 && declared <= maxBytes)) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  const drain = (async () => {
    while ((await ex.nextBodyChunk()) !== null && !ex.aborted);
  })().catch(() => undefined);
  await Promise.race([drain, timeout]);
  clearTimeout(timer);
}
