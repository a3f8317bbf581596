// The HTTP engine on Node's own node:http (style.md §5: the only file that touches node:http's
// server): copies each request into a plain RequestHead, streams request bodies with pause/resume,
// writes each response head in one writeHead call, pulls the next chunk of a streamed body only once
// the socket took the previous one, grants `Expect: 100-continue` only when the handler first reads the body
// (after authentication and authorization), and answers what Node's parser refuses in the face's
// own error shape before it closes the connection.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { asksToClose, FRAMING_REASONS, framingProblem } from './framing.js';
import {
  InFlight, MAX_HEAD_BYTES, portTaken, statusLine, TLS12_CIPHERS,
  type HttpServer, type ListenOptions, type RefusalAnswer, type RenderRefusal, type RequestHandler, type RequestRefusal, type TlsFiles,
} from './listener.js';
import { joinHeaders, type RequestHead } from './request-head.js';
import { fieldsOf, headerText, NodeExchange, writeHead } from './node-exchange.js';

/**
 * A request whose head has not fully arrived this long after its first byte is answered
 * RequestTimeout (S3's error for a socket "not read from or written to within the timeout period").
 * Well below IDLE_TIMEOUT_MS, which would otherwise drop such a connection first, without an answer.
 */
const HEAD_TIMEOUT_MS = 10_000;
/** How often Node checks the head timeout. */
const TIMEOUT_CHECK_MS = 1_000;
/** A client that neither sends the body it announced nor reads the answer for this long is dropped. */
const IDLE_TIMEOUT_MS = 20_000;
/** An idle keep-alive connection is closed after this long, as uWS closes its idle ones (10 s). */
const KEEP_ALIVE_MS = 10_000;

/** Node's reusePort (SO_REUSEPORT): Node 22.12 and 23.1 on (net.md "server.listen(options)"), Linux only here. */
export const NODE_SHARES_PORTS = process.platform === 'linux' && nodeAtLeast(22, 12) && (!nodeIs(23) || nodeAtLeast(23, 1));

function nodeAtLeast(major: number, minor: number): boolean {
  const [ma, mi] = process.versions.node.split('.').map(Number) as [number, number];
  return ma > major || (ma === major && mi >= minor);
}

function nodeIs(major: number): boolean {
  return Number(process.versions.node.split('.')[0]) === major;
}


/** A connection's requests: the one being answered (or answered last), and those pipelined behind it. */
interface Connection {
  current?: NodeExchange;
  /** what arrived while `current` was being answered, in order: requests, then maybe a refusal of what followed them */
  waiting: Array<{ req?: IncomingMessage; start(): void }>;
  /** no request that arrives later on this connection may run */
  closing: boolean;
}

/** The head of `req` as handlers see it. */
function headOf(req: IncomingMessage, secure: boolean): RequestHead {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const raw = req.rawHeaders;
  const headerList = new Array<readonly [string, string]>(raw.length >> 1);
  for (let i = 0; i < raw.length; i += 2) headerList[i >> 1] = [raw[i]!.toLowerCase(), headerText(raw[i + 1]!)];
  return {
    method: req.method!,
    rawPath: q < 0 ? url : url.slice(0, q),
    rawQuery: q < 0 ? '' : url.slice(q + 1),
    headerList,
    headers: joinHeaders(headerList),
    remoteAddress: () => req.socket.remoteAddress ?? '',
    secure,
  };
}

/** The value of header `name` in a raw request head (all occurrences, joined with ','), or ''. */
function rawHeaderValue(raw: string, name: string): string {
  const values: string[] = [];
  for (const m of raw.matchAll(new RegExp(`\\r\\n${name}[ \\t]*:[ \\t]*([^\\r\\n]*)`, 'gi'))) values.push(m[1]!.trim());
  return values.join(',');
}

/** A request line whose method is a token (RFC 9110 §9.1) and whose form is right: only the method is unknown. */
const WELL_FORMED_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) \S+ HTTP\/1\.[01]\r?\n/;

type ParserError = Error & { code?: string; reason?: string; rawPacket?: Buffer; bytesParsed?: number };

/** llhttp refused Content-Length beside Transfer-Encoding ("Content-Length can't be present with Transfer-Encoding"). */
function besideTransferEncoding(err: ParserError): boolean {
  return /Content-Length/i.test(err.reason ?? '') && /Transfer-Encoding/i.test(err.reason ?? '');
}

/**
 * What Node's parser (llhttp, strict: `insecureHTTPParser` off) refused, as a refusal the face
 * answers; undefined for a connection error (reset, broken pipe), which has nobody to answer.
 */
export function refusalOf(err: ParserError): RequestRefusal | undefined {
  const raw = err.rawPacket?.toString('latin1') ?? '';
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { kind: 'head-too-large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { kind: 'timeout' };
    // a negative or non-decimal Content-Length, or two (RFC 9112 §6.3: unrecoverable framing)
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH': {
      const reason = besideTransferEncoding(err) ? FRAMING_REASONS.bothHeaders : FRAMING_REASONS.notDecimal;
      return { kind: 'framing', problem: { status: 400, header: 'Content-Length', value: rawHeaderValue(raw, 'content-length'), reason } };
    }
    // a coding not ending in chunked, chunked twice, or Transfer-Encoding beside Content-Length (§6.1)
    case 'HPE_INVALID_TRANSFER_ENCODING': {
      const reason = besideTransferEncoding(err) ? FRAMING_REASONS.bothHeaders : FRAMING_REASONS.notChunked;
      return { kind: 'framing', problem: { status: 400, header: 'Transfer-Encoding', value: rawHeaderValue(raw, 'transfer-encoding'), reason } };
    }
    case 'HPE_INVALID_METHOD': {
      // the method of a request that opens the packet, the parser stopping inside it; anything
      // else (bytes after a body, binary noise) is just malformed
      const line = WELL_FORMED_LINE.exec(raw);
      if (line && (err.bytesParsed ?? Infinity) <= line[1]!.length) return { kind: 'method-not-implemented', method: line[1]! };
      return { kind: 'malformed', detail: err.reason ?? err.message };
    }
  }
  return err.code?.startsWith('HPE_') ? { kind: 'malformed', detail: err.reason ?? err.message } : undefined;
}

/** A refusal's answer as bytes on the wire: the face's fields and body, then the connection closes. */
function refusalBytes(answer: RefusalAnswer): Buffer {
  const body = Buffer.from(answer.body);
  let head = `HTTP/1.1 ${statusLine(answer.status)}\r\nDate: ${new Date().toUTCString()}\r\n`;
  for (const [name, value] of fieldsOf(answer.headers)) head += `${name}: ${value}\r\n`;
  head += `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** Used when a listener is given no renderer of its own. */
const plainRefusal: RenderRefusal = (r) => ({
  status: r.kind === 'method-not-implemented' ? 501 : 400,
  headers: [['Content-Type', 'text/plain; charset=utf-8']],
  body: `${r.kind}\n`,
});

/** Answers `refusal` on `res` (a request Node parsed, that the engine refuses before any handler sees it). */
function refuseResponse(res: ServerResponse, refusal: RequestRefusal, refuse: RenderRefusal): void {
  const answer = refuse(refusal);
  const fields = fieldsOf(answer.headers);
  fields.push(['content-length', String(Buffer.byteLength(answer.body))], ['connection', 'close']);
  writeHead(res, answer.status, fields);
  res.end(answer.body);
}

/** Node's three TLS 1.3 suites: a `ciphers` list without any turns TLS 1.3 off (node:tls secure-context). */
const TLS13_SUITES = 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256';

/** Server preference (issue 30): TLS 1.2 takes the first of TLS12_CIPHERS the client offers, whatever the client's order. */
function tlsOptionsOf(files: TlsFiles): { cert: Buffer; key: Buffer; ciphers: string; minVersion: 'TLSv1.2'; honorCipherOrder: true } {
  return {
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
    ciphers: `${TLS13_SUITES}:${TLS12_CIPHERS}`,
    minVersion: 'TLSv1.2',
    honorCipherOrder: true,
  };
}

/** Whether `files` hold a PEM certificate chain and the private key of its first certificate. */
export function tlsFilesLoad(files: TlsFiles): boolean {
  try {
    const { cert, key } = tlsOptionsOf(files);
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}

/**
 * Starts a node:http listener (node:https when `tls` is given). `handler` is called synchronously
 * for each request with its Exchange; the promise it returns settles when the request is done, so
 * that close() can wait for it. `sharedPort` needs NODE_SHARES_PORTS.
 */
export function listen(
  host: string,
  port: number,
  handler: RequestHandler,
  tls?: TlsFiles,
  { sharedPort = false, inFlight: shared, refuse = plainRefusal }: ListenOptions = {},
): Promise<HttpServer> {
  if (sharedPort && !NODE_SHARES_PORTS) throw new Error(`node:http cannot share a port between threads before Node 22.12 (this is ${process.version})`);
  const inFlight = new InFlight(shared);
  const secure = tls !== undefined;
  const options = {
    maxHeaderSize: MAX_HEAD_BYTES,
    insecureHTTPParser: false,
    // answered below, in the face's error shape (Node's own answer is a bare 400)
    requireHostHeader: false,
    headersTimeout: HEAD_TIMEOUT_MS,
    // a large upload may take as long as it takes: idle connections are what gets dropped
    requestTimeout: 0,
    keepAliveTimeout: KEEP_ALIVE_MS,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  };
  const server: Server = tls ? createHttpsServer({ ...options, ...tlsOptionsOf(tls) }) : createHttpServer(options);
  // the head's size is bounded by maxHeaderSize; a count limit would drop fields silently
  server.maxHeadersCount = 0;
  server.timeout = IDLE_TIMEOUT_MS;
  /**
   * Each connection's requests in turn. Node's parser hands over the requests pipelined behind one
   * before that one is answered; each waits here until the previous exchange is over, and none
   * runs once a request said Connection: close, framed its body in a way HTTP forbids, or was
   * answered with Connection: close, whether at once or after an await (RFC 9112 §9.6; a request
   * hidden in a body, §11.2). Those get no answer: the connection closes after the first one's.
   */
  const connections = new WeakMap<Socket, Connection>();
  const connectionOf = (socket: Socket): Connection => {
    let conn = connections.get(socket);
    if (!conn) connections.set(socket, (conn = { waiting: [], closing: false }));
    return conn;
  };
  // one listener per connection rather than one per response: abort detection
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) =>
    socket.once('close', () => {
      const conn = connectionOf(socket);
      conn.closing = true;
      conn.waiting.length = 0;
      conn.current?.connectionClosed();
    }),
  );

  /** Starts what waits next on `conn`, unless the answer just given closes it. */
  const next = (conn: Connection): void => {
    if (conn.current?.closesConnection) {
      conn.closing = true;
      conn.waiting.length = 0;
    }
    conn.waiting.shift()?.start();
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse, expectsContinue = false): void => {
    const conn = connectionOf(req.socket);
    if (conn.closing || conn.current?.closesConnection) return;
    const head = headOf(req, secure);
    // Node's own verdict covers HTTP/1.0 without keep-alive (RFC 9112 §9.3)
    if (!res.shouldKeepAlive || asksToClose(head) || framingProblem(head)) conn.closing = true;
    const start = (): void => {
      // RFC 9112 §3.2: a request without Host is answered 400; HTTP/0.9 has no head to answer to
      if (req.httpVersionMajor === 0 || (head.headers['host'] === undefined && req.httpVersionMinor === 1)) {
        conn.closing = true;
        refuseResponse(res, req.httpVersionMajor === 0 ? { kind: 'malformed', detail: 'HTTP/0.9' } : { kind: 'missing-host' }, refuse);
        return;
      }
      const ex = new NodeExchange(req, res, head, expectsContinue);
      conn.current = ex;
      let over = false;
      ex.whenOver(() => {
        if (!over) next(conn);
        over = true;
      });
      inFlight.track(handler(ex));
    };
    // `closing` set by this very request still lets it be answered
    if (conn.current && !conn.current.over) conn.waiting.push({ req, start });
    else start();
  };
  server.on('request', onRequest);
  // the handler reads the body, and so grants the continue, only once the request is authorized
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => onRequest(req, res, true));
  // S3 knows no other expectation: the request is served as if it had none
  server.on('checkExpectation', onRequest);
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.end(refusalBytes(refuse({ kind: 'method-not-implemented', method: req.method ?? 'CONNECT' })));
  });
  const refused = new WeakSet<Duplex>();
  server.on('clientError', (err: ParserError, socket: Duplex) => {
    // the parser stopped: nothing after the refused bytes is read, whatever the answer
    const refusal = refusalOf(err);
    if (refused.has(socket) || !refusal || !socket.writable) {
      socket.destroy();
      return;
    }
    refused.add(socket);
    const answer = (): void => {
      if (socket.writable) socket.end(refusalBytes(refuse(refusal)), () => socket.destroy());
      else socket.destroy();
    };
    const conn = connections.get(socket as Socket);
    if (conn) conn.closing = true;
    if (conn?.waiting.length) {
      // the refused bytes follow pipelined requests that wait their turn: the refusal answers after
      // them, in place of the last one when the refused bytes are in its body
      if (!conn.waiting.at(-1)!.req?.complete) conn.waiting.pop();
      conn.waiting.push({ start: answer });
      return;
    }
    const last = conn?.current;
    const ex = last?.over ? undefined : last;
    if (!ex) answer();
    // the refused bytes follow a request being answered (pipelined): its answer goes first
    else if (ex.requestComplete || ex.complete) ex.afterResponse(answer);
    // the request being handled has a malformed body: its handler sees the connection go
    else if (!ex.responded) answer();
    else socket.destroy();
  });
  server.on('timeout', (socket: Socket) => {
    const ex = connections.get(socket)?.current;
    // a handler still working (a long copy, a slow disk) keeps its connection
    if (!ex || ex.over || ex.waitsOnClient) socket.destroy();
  });

  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      void (async () => {
        const reason = e.code === 'EADDRINUSE' ? ((await portTaken(host, port)) ?? 'address already in use') : e.message;
        reject(new Error(`cannot listen on ${host}:${port}: ${reason}`));
      })();
    });
    server.listen({ host, port, reusePort: sharedPort }, () => {
      server.removeAllListeners('error');
      // a failed accept (EMFILE) is passing: Node keeps accepting, and an 'error' nobody listens
      // for would end the process
      server.on('error', () => undefined);
      let closing: Promise<void> | undefined;
      resolve({
        port: (server.address() as AddressInfo).port,
        secure,
        close: (graceMs = 10_000) =>
          (closing ??= (async () => {
            // stop accepting but keep open connections: http's close() would end idle keep-alive
            // ones at once, and a request of another thread may come back on one (a health probe)
            NetServer.prototype.close.call(server);
            await inFlight.settled(graceMs);
            server.closeAllConnections();
            server.close();
          })()),
        reloadTls(files) {
          if (!tls) throw new Error('this listener has no TLS');
          // every handshake from now on, with a server name or without
          (server as ReturnType<typeof createHttpsServer>).setSecureContext(tlsOptionsOf(files));
        },
      });
    });
  });
}
