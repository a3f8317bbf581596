import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { errorCode, HttpS3Client, NetworkError, type ClientOptions, type S3Client } from '../../../src/bench/client.js';
import type { BenchOptions } from '../../../src/bench/options.js';
import { RawS3Client } from '../../../src/bench/raw-client.js';
import { runBench } from '../../../src/bench/scenario.js';
import { parseSizeDistribution } from '../../../src/bench/sizes.js';
import { startMemoryS3, type MemoryS3 } from './memory-s3.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  socket: net.Socket;
}

type Handler = (seen: Seen, res: http.ServerResponse) => void;

const servers: { close(): void }[] = [];
const clients: S3Client[] = [];

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) s.close();
});

async function httpServer(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(parts), socket: req.socket };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => server.close() && server.closeAllConnections() });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A server that writes `answer(requestIndex)` verbatim, for framings node:http would not produce on its own. */
async function rawServer(answer: (socket: net.Socket, index: number) => void): Promise<string> {
  let index = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let buffered = '';
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      while (buffered.includes('\r\n\r\n')) {
        buffered = buffered.slice(buffered.indexOf('\r\n\r\n') + 4); // requests here carry no body
        answer(socket, index++);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => { server.close(); for (const s of sockets) s.destroy(); } });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function options(endpoint: string, overrides: Partial<ClientOptions> = {}): ClientOptions {
  return {
    endpoint, credentials: { accessKeyId: 'ak', secretAccessKey: 'sk', region: 'us-east-1' },
    addressing: 'path', concurrency: 2, timeoutMs: 5000, ...overrides,
  };
}

function raw(endpoint: string, overrides: Partial<ClientOptions> = {}): RawS3Client {
  const client = new RawS3Client(options(endpoint, overrides));
  clients.push(client);
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff));

describe('RawS3Client', () => {
  it('streams a GET body written in several pieces to onChunk, byte for byte', async () => {
    const { url, seen } = await httpServer(async (_s, res) => {
      res.writeHead(200, { 'content-length': body.length, etag: '"x"' });
      for (let at = 0; at < body.length; at += 70_000) {
        res.write(body.subarray(at, at + 70_000));
        await sleep(2);
      }
      res.end();
    });
    const received: Buffer[] = [];
    let calls = 0;
    const res = await raw(url).send({
      method: 'GET', bucket: 'b', key: 'dir/a b+c',
      onChunk: (chunk) => { calls++; received.push(Buffer.from(chunk)); },
    });
    expect(res.status).toBe(200);
    expect(res.headers['etag']).toBe('"x"');
    expect(res.body.length).toBe(0);
    expect(calls).toBeGreaterThan(1);
    expect(Buffer.concat(received).equals(body)).toBe(true);
    expect(res.firstByteAt).toBeGreaterThan(0);
    expect(seen[0]!.url).toBe('/b/dir/a%20b%2Bc');
    expect(seen[0]!.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=ak\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
  });

  it('signs exactly what the node:http client signs (same target, same headers)', async () => {
    const { url, seen } = await httpServer((_s, res) => res.end());
    const req = { method: 'PUT' as const, bucket: 'b', key: 'k', query: [['partNumber', '1'], ['uploadId', 'u/1']] as [string, string][], body: [Buffer.from('abc')], payloadHash: 'UNSIGNED-PAYLOAD' };
    const http1 = new HttpS3Client(options(url));
    clients.push(http1);
    await http1.send(req);
    await raw(url).send(req);
    expect(seen[1]!.url).toBe(seen[0]!.url);
    const signed = (h: http.IncomingHttpHeaders) => ({ ...h, authorization: h.authorization!.replace(/Signature=.*/, ''), 'x-amz-date': undefined, connection: undefined });
    expect(signed(seen[1]!.headers)).toEqual(signed(seen[0]!.headers));
  });

  it('sends a PUT body split over several buffers as one body with its content-length', async () => {
    const { url, seen } = await httpServer((_s, res) => res.writeHead(200, { etag: '"e"' }).end());
    const parts = [body.subarray(0, 1), body.subarray(1, 100_000), Buffer.alloc(0), body.subarray(100_000)];
    const res = await raw(url).send({ method: 'PUT', bucket: 'b', key: 'k', body: parts, payloadHash: 'UNSIGNED-PAYLOAD' });
    expect(res.status).toBe(200);
    expect(seen[0]!.headers['content-length']).toBe(String(body.length));
    expect(seen[0]!.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(seen[0]!.body.equals(body)).toBe(true);
  });

  it('reads no body for HEAD and 204, and reuses the one connection after them', async () => {
    const { url, seen } = await httpServer((s, res) => {
      if (s.method === 'HEAD') res.writeHead(200, { 'content-length': '12345' }).end();
      else res.writeHead(204).end();
    });
    const client = raw(url, { concurrency: 1 });
    const head = await client.send({ method: 'HEAD', bucket: 'b', key: 'k' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('12345');
    expect(head.body.length).toBe(0);
    const del = await client.send({ method: 'DELETE', bucket: 'b', key: 'k' });
    expect(del.status).toBe(204);
    const again = await client.send({ method: 'HEAD', bucket: 'b', key: 'k' });
    expect(again.status).toBe(200);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
  });

  it('collects a 404 XML error body (not streamed to onChunk) so errorCode can read it', async () => {
    const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>';
    const { url } = await httpServer((_s, res) => res.writeHead(404, { 'content-type': 'application/xml' }).end(xml));
    let streamed = 0;
    const res = await raw(url).send({ method: 'GET', bucket: 'b', key: 'k', onChunk: () => streamed++ });
    expect(res.status).toBe(404);
    expect(streamed).toBe(0);
    expect(res.body.toString()).toBe(xml);
    expect(errorCode(res)).toBe('NoSuchKey');
  });

  it('replaces a connection the server closed (Connection: close) for the next requests', async () => {
    const { url, seen } = await httpServer((s, res) => {
      res.shouldKeepAlive = false;
      res.writeHead(200, { 'content-length': '2' }).end(String(seen.length).padStart(2, '0'));
    });
    const client = raw(url, { concurrency: 1 });
    for (let i = 1; i <= 4; i++) {
      const res = await client.send({ method: 'GET', bucket: 'b', key: 'k' });
      expect(res.headers['connection']).toBe('close');
      expect(res.body.toString()).toBe(String(i).padStart(2, '0'));
    }
    expect(new Set(seen.map((s) => s.socket)).size).toBe(4);
  });

  it('decodes chunked transfer-encoding, lines and sizes split across reads, trailers included', async () => {
    const url = await rawServer(async (socket, index) => {
      const answer =
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Index: ' + index + '\r\n\r\n' +
        '5;ext=1\r\nhello\r\n1A\r\n' + 'abcdefghijklmnopqrstuvwxyz' + '\r\n0\r\nx-trailer: t\r\n\r\n';
      for (let at = 0; at < answer.length; at += 3) {
        socket.write(answer.slice(at, at + 3));
        await sleep(0);
      }
    });
    const client = raw(url, { concurrency: 1 });
    for (let i = 0; i < 2; i++) {
      const chunks: string[] = [];
      const res = await client.send({ method: 'GET', bucket: 'b', key: 'k', onChunk: (c) => chunks.push(c.toString()) });
      expect(res.status).toBe(200);
      expect(res.headers['x-index']).toBe(String(i));
      expect(chunks.join('')).toBe('helloabcdefghijklmnopqrstuvwxyz');
    }
    const collected = await client.send({ method: 'GET', bucket: 'b', key: 'k' });
    expect(collected.body.toString()).toBe('helloabcdefghijklmnopqrstuvwxyz');
  });

  it('answers a body framed by the end of the connection, and skips a 100 Continue head', async () => {
    const url = await rawServer((socket, index) => {
      if (index === 0) socket.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end');
      else socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc');
    });
    const client = raw(url, { concurrency: 1 });
    expect((await client.send({ method: 'GET', bucket: 'b', key: 'k' })).body.toString()).toBe('until the end');
    expect((await client.send({ method: 'GET', bucket: 'b', key: 'k' })).body.toString()).toBe('abc');
  });

  it('a reset mid-response is a NetworkError, and the next request gets a fresh connection', async () => {
    const url = await rawServer((socket, index) => {
      if (index === 0) {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial');
        setTimeout(() => socket.resetAndDestroy(), 20);
      } else {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      }
    });
    const client = raw(url, { concurrency: 1 });
    const err = await client.send({ method: 'GET', bucket: 'b', key: 'k', onChunk: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toMatch(/^net:(ECONNRESET|aborted)$/);
    expect((await client.send({ method: 'GET', bucket: 'b', key: 'k' })).body.toString()).toBe('ok');
  });

  it('a server that never answers is net:timeout; a refused connection is net:ECONNREFUSED', async () => {
    const silent = await rawServer(() => {});
    const err = await raw(silent, { timeoutMs: 100 }).send({ method: 'GET', bucket: 'b' }).catch((e: unknown) => e);
    expect((err as NetworkError).code).toBe('net:timeout');
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await raw(`http://127.0.0.1:${port}`).send({ method: 'GET', bucket: 'b' }).catch((e: unknown) => e);
    expect((refused as NetworkError).code).toBe('net:ECONNREFUSED');
  });

  it('keeps at most `concurrency` connections, queueing the rest', async () => {
    const { url, seen } = await httpServer(async (_s, res) => {
      await sleep(5);
      res.end('x');
    });
    const client = raw(url, { concurrency: 3 });
    const all = await Promise.all(Array.from({ length: 20 }, () => client.send({ method: 'GET', bucket: 'b', key: 'k' })));
    expect(all.every((r) => r.status === 200 && r.body.toString() === 'x')).toBe(true);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(3);
  });

  it('refuses https endpoints with a clear error', () => {
    expect(() => new RawS3Client(options('https://127.0.0.1:9000'))).toThrow(/plain http only.*--client http/);
  });
});

describe('tusk bench over --client raw', () => {
  let server: MemoryS3 | undefined;
  afterEach(async () => server?.close());

  function run(endpoint: string, overrides: Partial<BenchOptions>): BenchOptions {
    return {
      endpoint, accessKeyId: 'ak', secretAccessKey: 'sk', region: 'us-east-1', addressing: 'path',
      mix: { get: 1 }, sizes: parseSizeDistribution('1KiB..256KiB'), concurrency: 4, durationMs: 1000, count: 200,
      warmupMs: 0, objects: 20, partSize: 8 << 20, listMaxKeys: 1000, seed: 1, payload: 'sha256',
      timeoutMs: 5000, keep: false, client: 'raw', ...overrides,
    };
  }

  it('verifies every GET body: a corrupting server yields only verification errors', async () => {
    server = await startMemoryS3({ corruptGets: true });
    const result = await runBench(run(server.url, {}));
    expect(result.ops['get']).toMatchObject({ ok: 0, errorCount: 200, errors: { 'verify:content': 200 } });
  });

  it('a mixed run against an honest server succeeds and leaves the endpoint as found', async () => {
    server = await startMemoryS3();
    const result = await runBench(run(server.url, { mix: { put: 2, get: 5, head: 2, delete: 1 }, count: 300 }));
    expect(result.total.errors).toEqual({});
    expect(result.total.ok).toBe(300);
    expect(result.ops['get']!.ttfbMs!.p50).toBeLessThanOrEqual(result.ops['get']!.latencyMs!.max);
    expect(server.objects.size).toBe(0);
    expect(server.buckets.size).toBe(0);
  });
});
