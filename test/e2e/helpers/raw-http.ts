// A byte-exact HTTP/1.1 client over node:net. node:http and fetch normalise framing (they add
// Content-Length or chunked encoding and forbid some Host values); the error tests need requests
// without Content-Length, with a chosen Host, and uploads that stop half-way.

import { connect, type Socket } from 'node:net';
import type { HeaderList } from './sigv4.js';

export interface RawRequest {
  port: number;
  method: string;
  /** request target: raw path plus optional `?query` */
  target: string;
  headers: HeaderList;
  body?: Buffer | string | AsyncIterable<Buffer>;
  /** with `Expect: 100-continue`: hold the body until `100 Continue` (or a final answer) arrives */
  waitForContinue?: boolean;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  headerList: HeaderList;
  body: Buffer;
  /** statuses of interim (1xx) responses received before the final one */
  interim: number[];
  text(): string;
}

interface Parsed {
  response: RawResponse;
  consumed: number;
}

/** Parses one complete response from `buf`; undefined when more bytes are needed. */
function parseResponse(buf: Buffer, method: string, atEof: boolean, interim: number[]): Parsed | undefined {
  let offset = 0;
  for (;;) {
    const headEnd = buf.indexOf('\r\n\r\n', offset);
    if (headEnd < 0) return undefined;
    const lines = buf.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headerList: HeaderList = [];
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headerList.push([name, value]);
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      interim.push(status);
      offset = bodyStart;
      continue;
    }
    const make = (body: Buffer, consumed: number): Parsed => ({
      response: { status, headers, headerList, body, interim, text: () => body.toString('utf8') },
      consumed,
    });
    if (method === 'HEAD' || status === 204 || status === 304) return make(Buffer.alloc(0), bodyStart);
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const pieces: Buffer[] = [];
      let pos = bodyStart;
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', pos);
        if (lineEnd < 0) return undefined;
        const size = parseInt(buf.subarray(pos, lineEnd).toString('latin1'), 16);
        if (size === 0) {
          const end = buf.indexOf('\r\n\r\n', lineEnd);
          if (end < 0) return undefined;
          return make(Buffer.concat(pieces), end + 4);
        }
        if (buf.length < lineEnd + 2 + size + 2) return undefined;
        pieces.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        pos = lineEnd + 2 + size + 2;
      }
    }
    if (headers['content-length'] !== undefined) {
      const len = Number(headers['content-length']);
      if (buf.length < bodyStart + len) return undefined;
      return make(buf.subarray(bodyStart, bodyStart + len), bodyStart + len);
    }
    if (!atEof) return undefined;
    return make(buf.subarray(bodyStart), buf.length);
  }
}

function serializeHead(req: RawRequest): Buffer {
  const headers = [...req.headers];
  if (!headers.some(([n]) => n.toLowerCase() === 'host')) headers.unshift(['host', `127.0.0.1:${req.port}`]);
  let head = `${req.method} ${req.target} HTTP/1.1\r\n`;
  for (const [n, v] of headers) head += `${n}: ${v}\r\n`;
  return Buffer.from(head + '\r\n', 'utf8');
}

async function writeAll(socket: Socket, data: Buffer, stopped: () => boolean): Promise<void> {
  if (stopped() || socket.destroyed) return;
  if (!socket.write(data)) {
    await new Promise<void>((r) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        r();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }
}

/** Sends one request on a fresh connection and returns the final response (then closes). */
export function rawRequest(req: RawRequest): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    const socket = connect(req.port, '127.0.0.1');
    socket.setNoDelay(true);
    let buf = Buffer.alloc(0);
    let finished = false;
    let sawContinue: (() => void) | undefined;
    const timer = setTimeout(() => fail(new Error(`raw ${req.method} ${req.target}: timeout`)), req.timeoutMs ?? 30_000);

    const finish = (res: RawResponse) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(res);
    };
    const fail = (err: Error) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const tryParse = (atEof: boolean) => {
      const parsed = parseResponse(buf, req.method, atEof, []);
      if (parsed) finish(parsed.response);
    };
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      // any complete response head (100 Continue or an early final answer) releases the body
      if (sawContinue && buf.indexOf('\r\n\r\n') >= 0) sawContinue();
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => {
      tryParse(true);
      if (!finished) fail(new Error(`raw ${req.method} ${req.target}: connection closed without a response`));
    });
    socket.on('error', () => {
      // EPIPE/ECONNRESET after an early rejection: the answer may already be buffered.
    });

    void (async () => {
      await writeAll(socket, serializeHead(req), () => finished);
      if (req.body === undefined) return;
      if (req.waitForContinue) {
        await new Promise<void>((r) => {
          sawContinue = r;
          setTimeout(r, 2_000);
        });
      }
      if (typeof req.body === 'string' || Buffer.isBuffer(req.body)) {
        await writeAll(socket, Buffer.from(req.body), () => finished);
      } else {
        for await (const piece of req.body) {
          if (finished || socket.destroyed) break;
          await writeAll(socket, piece, () => finished);
        }
      }
    })().catch(fail);
  });
}

/**
 * Sends the head and `sendBytes` of a body that declares more, then destroys the socket: a client
 * that disconnects mid-upload. Resolves once the socket is gone.
 */
export async function abortedUpload(req: RawRequest & { body: Buffer; sendBytes: number }): Promise<void> {
  const socket = connect(req.port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((r) => socket.once('connect', () => r()));
  await writeAll(socket, serializeHead(req), () => false);
  await writeAll(socket, req.body.subarray(0, req.sendBytes), () => false);
  await new Promise((r) => setTimeout(r, 100));
  socket.destroy();
  await new Promise((r) => setTimeout(r, 50));
}

export interface RawConversation {
  /** every complete response, in order */
  responses: RawResponse[];
  /** the server closed the connection (false: still open when `closeWithinMs` ran out) */
  closed: boolean;
  /** bytes after the last complete response */
  leftover: Buffer;
}

/**
 * Writes `parts` on one connection as they are, byte for byte (a part waits for `gapMs` after the
 * previous one, or for a first response if that comes sooner), then collects every response until
 * the server closes the connection or `closeWithinMs` passes. For request smuggling tests: what
 * the server answered, and whether it kept the connection.
 */
export function rawConversation(
  port: number,
  parts: Array<Buffer | string>,
  { gapMs = 0, closeWithinMs = 5_000 }: { gapMs?: number; closeWithinMs?: number } = {},
): Promise<RawConversation> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let buf = Buffer.alloc(0);
    let answered: (() => void) | undefined;
    const responses: RawResponse[] = [];
    const parse = (atEof: boolean) => {
      for (let parsed = parseResponse(buf, 'PUT', atEof, []); parsed; parsed = parseResponse(buf, 'PUT', atEof, [])) {
        responses.push(parsed.response);
        buf = buf.subarray(parsed.consumed);
        answered?.();
        if (buf.length === 0) break;
      }
    };
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses, closed, leftover: buf });
    };
    const timer = setTimeout(() => done(false), closeWithinMs);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      parse(false);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      parse(true);
      done(true);
    });
    void (async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && gapMs > 0) {
          await new Promise<void>((r) => {
            const t = setTimeout(r, gapMs);
            answered = () => {
              clearTimeout(t);
              r();
            };
            if (responses.length > 0) answered();
          });
        }
        await writeAll(socket, Buffer.from(part), () => socket.destroyed);
      }
    })();
  });
}
