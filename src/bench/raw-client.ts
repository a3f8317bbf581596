import net from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  MAX_COLLECT, NetworkError, signRequest, type ClientOptions, type S3Client, type S3Request, type S3Response,
} from './client.js';
import { SigV4Signer } from './sigv4-client.js';

/**
 * `--client raw`: the same signed requests as HttpS3Client over plain node:net sockets, for a generator that costs
 * less CPU per request than node:http. A pool of at most `concurrency` persistent HTTP/1.1 connections carries one
 * request each at a time (no pipelining); a connection the server closes is replaced for the next request, and a
 * request is never retried. Each connection reads into one reused buffer: streamed body chunks are views of it,
 * valid during the onChunk call only (the S3Request contract); collected bodies are copied.
 */
export class RawS3Client implements S3Client {
  private readonly url: URL;
  private readonly signer: SigV4Signer;
  private readonly idle: Connection[] = [];
  private readonly queue: Exchange[] = [];
  private readonly busy = new Set<Connection>();
  private open = 0;
  private closed = false;

  constructor(private readonly options: ClientOptions) {
    this.url = new URL(options.endpoint);
    if (this.url.protocol === 'https:') {
      throw new Error(`--client raw speaks plain http only; use --client http for ${options.endpoint}`);
    }
    if (this.url.protocol !== 'http:') throw new Error(`endpoint must be http://, got ${options.endpoint}`);
    this.signer = new SigV4Signer(options.credentials);
  }

  send(req: S3Request): Promise<S3Response> {
    if (this.closed) return Promise.reject(new NetworkError('net:closed', 'client closed'));
    const { target, headers } = signRequest(this.url, this.options.addressing, this.signer, req);
    let head = `${req.method} ${target} HTTP/1.1\r\n`;
    for (const name in headers) {
      const value = headers[name]!;
      if (HEADER_BREAK.test(value)) return Promise.reject(new Error(`header ${name} contains a line break`));
      head += `${name}: ${value}\r\n`;
    }
    head += '\r\n';
    return new Promise<S3Response>((resolve, reject) => {
      const exchange = new Exchange(req, head, resolve, reject);
      const conn = this.idle.pop() ?? (this.open < this.options.concurrency ? this.connect() : undefined);
      if (conn) conn.start(exchange);
      else this.queue.push(exchange);
    });
  }

  close(): void {
    this.closed = true;
    for (const exchange of this.queue.splice(0)) exchange.reject(new NetworkError('net:closed', 'client closed'));
    for (const conn of this.idle.splice(0)) conn.destroy();
    // busy connections fail their request through their own close handler
    for (const conn of this.busy) conn.destroy();
  }

  private connect(): Connection {
    this.open++;
    const port = Number(this.url.port || 80);
    const host = this.url.hostname.replace(/^\[(.*)\]$/, '$1');
    return new Connection(host, port, this.options.timeoutMs, this);
  }

  /** A connection finished its request and may carry another. */
  reuse(conn: Connection): void {
    const next = this.queue.shift();
    if (next) {
      conn.start(next);
    } else {
      this.busy.delete(conn);
      this.idle.push(conn);
    }
  }

  markBusy(conn: Connection): void {
    this.busy.add(conn);
  }

  /** A connection is gone (closed by either side): a queued request gets a fresh one. */
  lost(conn: Connection): void {
    this.open--;
    this.busy.delete(conn);
    const at = this.idle.indexOf(conn);
    if (at >= 0) this.idle.splice(at, 1);
    const next = this.closed ? undefined : this.queue.shift();
    if (next) this.connect().start(next);
  }
}

const HEADER_BREAK = /[\r\n]/;
const READ_BUFFER_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE = 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const DECIMAL = /^\d+$/;
const HEX = /^[0-9a-fA-F]+$/;

/** One request awaiting (or receiving) its response. */
class Exchange {
  status = 0;
  headers: Record<string, string> = {};
  firstByteAt = 0;
  collected: Buffer[] = [];
  collectedBytes = 0;
  /** Set once the status is known: 2xx bodies go to the caller's onChunk when it gave one. */
  stream: ((chunk: Buffer) => void) | undefined;

  constructor(
    readonly req: S3Request,
    readonly head: string,
    readonly resolve: (res: S3Response) => void,
    readonly reject: (err: Error) => void,
  ) {}

  deliver(piece: Buffer): void {
    if (this.firstByteAt === 0) this.firstByteAt = performance.now();
    if (this.stream) this.stream(piece);
    else if (this.collectedBytes < MAX_COLLECT) {
      this.collected.push(Buffer.from(piece)); // the read buffer is reused: keep a copy
      this.collectedBytes += piece.length;
    }
  }

  response(): S3Response {
    const body = this.collected.length === 1 ? this.collected[0]! : Buffer.concat(this.collected);
    return { status: this.status, headers: this.headers, body, firstByteAt: this.firstByteAt || performance.now() };
  }
}

type Phase = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'eof';

/** One persistent connection and the incremental HTTP/1.1 response parser for the request it carries. */
class Connection {
  private readonly socket: net.Socket;
  private exchange: Exchange | null = null;
  private phase: Phase = 'head';
  /** Bytes of a head (or chunk-size / trailer line) split across reads, copied out of the read buffer. */
  private pending: Buffer | null = null;
  private line = '';
  private remaining = 0;
  private keepAlive = true;
  private dead = false;

  constructor(host: string, port: number, timeoutMs: number, private readonly pool: RawS3Client) {
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.socket = net.connect({
      host, port, noDelay: true,
      onread: {
        buffer,
        callback: (n: number) => {
          this.onRead(buffer, n);
          return true;
        },
      },
    });
    this.socket.setTimeout(timeoutMs);
    this.socket.on('timeout', () => this.fail('net:timeout', `no answer within ${timeoutMs} ms`));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.fail(`net:${err.code ?? 'error'}`, err.message));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('close', () => this.onClose());
  }

  start(exchange: Exchange): void {
    this.exchange = exchange;
    this.phase = 'head';
    this.pool.markBusy(this);
    const body = exchange.req.body;
    if (body && body.length > 0) {
      this.socket.cork();
      this.socket.write(exchange.head, 'latin1');
      for (const part of body) if (part.length > 0) this.socket.write(part);
      this.socket.uncork();
    } else {
      this.socket.write(exchange.head, 'latin1');
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onRead(buf: Buffer, n: number): void {
    const data = n === buf.length ? buf : buf.subarray(0, n);
    let pos = 0;
    try {
      while (pos < n && !this.dead) {
        const exchange = this.exchange;
        if (!exchange) {
          this.fail('net:HPE_UNSOLICITED', 'the server sent bytes with no request in flight');
          return;
        }
        pos = this.step(exchange, data, pos);
      }
    } catch (err) {
      // only the caller's onChunk throws: the connection is mid-body, so it cannot carry another request
      const exchange = this.exchange;
      this.exchange = null;
      this.dead = true;
      this.socket.destroy();
      exchange?.reject(err as Error);
    }
  }

  /** Consumes bytes of `data` from `pos` for the current phase; returns the new position. */
  private step(exchange: Exchange, data: Buffer, pos: number): number {
    const n = data.length;
    switch (this.phase) {
      case 'head':
        return this.readHead(exchange, data, pos);
      case 'length': {
        const take = Math.min(this.remaining, n - pos);
        exchange.deliver(data.subarray(pos, pos + take));
        this.remaining -= take;
        if (this.remaining === 0) this.complete(exchange, pos + take < n);
        return pos + take;
      }
      case 'eof':
        exchange.deliver(data.subarray(pos, n));
        return n;
      case 'chunk-data': {
        const take = Math.min(this.remaining, n - pos);
        exchange.deliver(data.subarray(pos, pos + take));
        this.remaining -= take;
        if (this.remaining === 0) this.phase = 'chunk-end';
        return pos + take;
      }
      case 'chunk-size':
      case 'chunk-end':
      case 'trailers':
        return this.readChunkLine(exchange, data, pos);
    }
  }

  private readHead(exchange: Exchange, data: Buffer, pos: number): number {
    const n = data.length;
    let source = data;
    let from = pos;
    if (this.pending) {
      source = Buffer.concat([this.pending, data.subarray(pos)]);
      from = 0;
    }
    const end = source.length;
    const at = source.indexOf(HEAD_END, from);
    if (at < 0) {
      if (end - from > MAX_HEAD_BYTES) {
        this.fail('net:HPE_HEADER_OVERFLOW', 'response head larger than 64 KiB');
        return n;
      }
      this.pending = Buffer.from(source.subarray(from, end));
      return n;
    }
    const consumedFromBuf = this.pending ? at + 4 - this.pending.length : at + 4 - pos;
    this.pending = null;
    if (!this.parseHead(exchange, source.toString('latin1', from, at))) return n;
    const next = pos + consumedFromBuf;
    if (this.phase === 'head') {
      // an empty body (or a skipped 1xx head): the response ends here, or the next head follows
      if (exchange.status >= 200) this.complete(exchange, next < n);
    }
    return next;
  }

  /** Status line and headers; chooses how the body is framed (RFC 9112 §6.3). Returns false on a protocol error. */
  private parseHead(exchange: Exchange, text: string): boolean {
    const lines = text.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!statusLine) {
      this.fail('net:HPE_INVALID_CONSTANT', `not an HTTP/1.x status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`);
      return false;
    }
    const status = Number(statusLine[2]);
    if (status < 200) return true; // 1xx interim answer (e.g. 100 Continue): the final head follows
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const prior = headers[name];
      headers[name] = prior === undefined ? value : `${prior}, ${value}`;
    }
    exchange.status = status;
    exchange.headers = headers;
    const onChunk = exchange.req.onChunk;
    exchange.stream = status < 300 && onChunk ? onChunk : undefined;
    const connection = headers['connection']?.toLowerCase() ?? '';
    this.keepAlive = statusLine[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    const transferEncoding = headers['transfer-encoding'];
    const contentLength = headers['content-length'];
    if (exchange.req.method === 'HEAD' || status === 204 || status === 304) {
      this.phase = 'head';
    } else if (transferEncoding !== undefined && transferEncoding.toLowerCase().endsWith('chunked')) {
      this.phase = 'chunk-size';
      this.line = '';
    } else if (contentLength !== undefined) {
      if (!DECIMAL.test(contentLength)) {
        this.fail('net:HPE_INVALID_CONTENT_LENGTH', `invalid content-length ${JSON.stringify(contentLength)}`);
        return false;
      }
      this.remaining = Number(contentLength);
      this.phase = this.remaining === 0 ? 'head' : 'length';
    } else {
      this.phase = 'eof'; // no framing: the body runs to the end of the connection
      this.keepAlive = false;
    }
    return true;
  }

  /** chunk-size line, the CRLF after chunk data, or a trailer line (RFC 9112 §7.1). */
  private readChunkLine(exchange: Exchange, data: Buffer, pos: number): number {
    const n = data.length;
    const nl = data.indexOf(10, pos);
    const end = nl < 0 ? n : nl;
    this.line += data.toString('latin1', pos, end);
    if (this.line.length > MAX_CHUNK_LINE) {
      this.fail('net:HPE_CHUNK_EXTENSIONS_OVERFLOW', 'chunk line too long');
      return n;
    }
    if (end === n) return n;
    const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
    this.line = '';
    if (this.phase === 'chunk-end') {
      if (line !== '') this.fail('net:HPE_STRICT', 'chunk data not followed by CRLF');
      else this.phase = 'chunk-size';
    } else if (this.phase === 'chunk-size') {
      const sizeText = line.split(';', 1)[0]!.trim();
      if (!HEX.test(sizeText) || sizeText.length > 12) {
        this.fail('net:HPE_INVALID_CHUNK_SIZE', `invalid chunk size ${JSON.stringify(sizeText)}`);
        return n;
      }
      this.remaining = parseInt(sizeText, 16);
      this.phase = this.remaining === 0 ? 'trailers' : 'chunk-data';
    } else if (line === '') {
      this.complete(exchange, nl + 1 < n);
    }
    return nl + 1;
  }

  /** The response is whole: settle it, then hand the connection back (or drop it). */
  private complete(exchange: Exchange, trailingBytes: boolean): void {
    this.exchange = null;
    this.phase = 'head';
    if (this.keepAlive && !trailingBytes) {
      this.pool.reuse(this);
    } else {
      this.dead = true;
      this.socket.destroy();
    }
    exchange.resolve(exchange.response());
  }

  private fail(code: string, message: string): void {
    const exchange = this.exchange;
    this.exchange = null;
    this.dead = true;
    this.socket.destroy();
    exchange?.reject(new NetworkError(code, message));
  }

  private onEnd(): void {
    const exchange = this.exchange;
    if (exchange && this.phase === 'eof') {
      this.keepAlive = false;
      this.complete(exchange, false);
    } else if (exchange) {
      const started = exchange.status !== 0 || this.pending !== null;
      this.fail(started ? 'net:aborted' : 'net:ECONNRESET', started ? 'response aborted' : 'socket hang up');
    } else {
      this.dead = true;
      this.socket.destroy();
    }
  }

  private onClose(): void {
    if (this.exchange) this.fail('net:ECONNRESET', 'socket closed');
    this.dead = true;
    this.pool.lost(this);
  }
}
