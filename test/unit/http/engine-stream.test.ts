// Exchange.stream on each HTTP engine (uWS, node:http), over TLS and plain HTTP: a body of many chunks reaches a
// client that reads slowly (so the socket pushes back, and a TLS socket takes a chunk in several
// pieces) whole and byte-identical, and closing the exchange after a complete response is harmless.
// A source that reuses its buffer once a chunk was taken (the store's readers do, from a pool) and an
// answer whose buffer is overwritten once send() returned still arrive intact.

import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../../../src/http/exchange.js';
import type { HttpServer } from '../../../src/http/listener.js';
import { ENGINES } from './engines.js';

const BODY = randomBytes(16 << 20);
const DIGEST = createHash('sha256').update(BODY).digest('hex');
const dir = mkdtempSync(join(tmpdir(), 'tusk-engine-stream-'));
const cert = join(dir, 'cert.pem');
const key = join(dir, 'key.pem');
const servers = new Map<string, { plain: HttpServer; secure: HttpServer }>();
const closedAfter: Array<'ok' | 'threw'> = [];

/** One buffer for every chunk, overwritten by the next read and zeroed at the end, as a pooled reader's. */
async function serveReused(ex: Exchange): Promise<void> {
  const scratch = Buffer.alloc(1 << 20);
  let at = 0;
  await ex.stream(200, [], BODY.length, async (max) => {
    const n = BODY.copy(scratch, 0, at, at + Math.min(max, scratch.length));
    at += n;
    return scratch.subarray(0, n);
  });
  scratch.fill(0);
}

async function serve(ex: Exchange): Promise<void> {
  if (ex.head.rawPath === '/reused') return serveReused(ex);
  if (ex.head.rawPath === '/send-reused') {
    const copy = Buffer.from(BODY);
    ex.send(200, [], copy);
    copy.fill(0);
    return;
  }
  let at = 0;
  await ex.stream(200, [['Content-Type', 'application/octet-stream']], BODY.length, async (max) => {
    const piece = BODY.subarray(at, at + max);
    at += piece.length;
    return piece;
  });
  if (ex.head.rawPath === '/then-close') {
    try {
      ex.close();
      closedAfter.push('ok');
    } catch {
      closedAfter.push('threw');
    }
  }
}

beforeAll(async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  for (const engine of ENGINES) {
    servers.set(engine.name, {
      plain: await engine.listen('127.0.0.1', 0, serve),
      secure: await engine.listen('127.0.0.1', 0, serve, { certFile: cert, keyFile: key }),
    });
  }
});
afterAll(async () => {
  await Promise.all([...servers.values()].flatMap((s) => [s.plain.close(100), s.secure.close(100)]));
  rmSync(dir, { recursive: true, force: true });
});

/** GETs `path` twice, one after the other on one connection, reading with a pause after every piece when `paceMs` > 0; the bodies' digests. */
function getTwice(server: HttpServer, path: string, paceMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const opts = { host: '127.0.0.1', port: server.port };
    const socket: Socket = server.secure ? tlsConnect({ ...opts, ca: readFileSync(cert) }) : netConnect(opts);
    const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    socket.once(server.secure ? 'secureConnect' : 'connect', () => socket.write(request));
    const digests: string[] = [];
    let pending = Buffer.alloc(0);
    let hash: ReturnType<typeof createHash> | undefined;
    let left = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${server.secure ? 'https' : 'http'} ${path}: stalled after ${digests.length} bodies, ${left} bytes short`));
    }, 30_000);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        if (!hash) {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0) break;
          const head = pending.subarray(0, end).toString();
          expect(head).toMatch(/^HTTP\/1\.1 200/);
          left = Number(/content-length: (\d+)/i.exec(head)![1]);
          hash = createHash('sha256');
          pending = pending.subarray(end + 4);
        }
        const take = pending.subarray(0, left);
        hash.update(take);
        left -= take.length;
        pending = pending.subarray(take.length);
        if (left > 0) break;
        digests.push(hash.digest('hex'));
        hash = undefined;
        if (digests.length === 1) socket.write(request);
        if (digests.length === 2) {
          clearTimeout(timer);
          socket.destroy();
          resolve(digests);
          return;
        }
      }
      if (paceMs > 0) {
        socket.pause();
        setTimeout(() => socket.resume(), paceMs);
      }
    });
    socket.on('error', reject);
  });
}

describe.each(ENGINES)('Exchange.stream on $name', ({ name }) => {
  for (const kind of ['tls', 'plain'] as const) {
    it(`sends every byte to a ${kind} client that reads slowly, and to one that reads at once`, async () => {
      const server = kind === 'tls' ? servers.get(name)!.secure : servers.get(name)!.plain;
      for (const pace of [1, 0, 2]) expect(await getTwice(server, '/body', pace)).toEqual([DIGEST, DIGEST]);
    });
  }

  it('sends a body whose buffers the source reuses once each was taken, and one overwritten after send(), intact to a slow client', async () => {
    expect(await getTwice(servers.get(name)!.plain, '/reused', 2)).toEqual([DIGEST, DIGEST]);
    expect(await getTwice(servers.get(name)!.plain, '/send-reused', 2)).toEqual([DIGEST, DIGEST]);
  });

  it('ignores a close after the whole response went out; the connection carries the next request', async () => {
    closedAfter.length = 0;
    expect(await getTwice(servers.get(name)!.plain, '/then-close', 0)).toEqual([DIGEST, DIGEST]);
    // node:http's stream() returns once the socket took the last byte, which may be just after the client read it
    for (let i = 0; i < 100 && closedAfter.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closedAfter).toEqual(['ok', 'ok']);
  });
});
