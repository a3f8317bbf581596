// Requests pipelined in one read behind a request whose answer closes the connection, on each
// HTTP engine: none of them may run (RFC 9112 §9.6), and an answer given alone still arrives. The
// uWS binding itself dispatches them once that answer is complete (uws.ts, readTurn), so its
// engine answers such requests only after the read.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../../../src/http/exchange.js';
import type { HttpServer } from '../../../src/http/listener.js';
import { loadUws, uwsAvailability } from '../../../src/http/uws-module.js';
import { rawConversation } from '../../e2e/helpers/raw-http.js';
import { ENGINES } from './engines.js';

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;
const HIDDEN = get('/hidden');

describe.skipIf(!('module' in uwsAvailability()))('the uWS binding (what uws.ts works around)', () => {
  type Res = { onAborted(f: () => void): void; cork(f: () => void): void; end(body: string, close?: boolean): void };
  type Req = { getUrl(): string };
  let port = 0;
  let app: { close(): void } | undefined;
  const handled: string[] = [];

  beforeAll(async () => {
    const uws = loadUws();
    const a = uws.App() as unknown as {
      any(p: string, h: (res: Res, req: Req) => void): void;
      listen(h: string, p: number, cb: (s: unknown) => void): void;
      close(): void;
    };
    a.any('/*', (res, req) => {
      const url = req.getUrl();
      handled.push(url);
      let aborted = false;
      res.onAborted(() => (aborted = true));
      if (url === '/sync-close') res.cork(() => res.end('refused', true));
      else setTimeout(() => !aborted && res.cork(() => res.end('later', url === '/async-close')), 20);
    });
    await new Promise<void>((resolve) => a.listen('127.0.0.1', 0, (s) => ((port = uws.us_socket_local_port(s)), resolve())));
    app = a;
  });
  afterAll(() => app?.close());

  it('dispatches the next request of a read after an answer that closed, written inside the read', async () => {
    handled.length = 0;
    const talk = await rawConversation(port, [get('/sync-close') + HIDDEN], { closeWithinMs: 500 });
    expect(handled).toEqual(['/sync-close', '/hidden']);
    expect(talk.responses.map((r) => r.status)).toEqual([200, 200]);
    expect(talk.closed).toBe(false);
  });

  it('closes the connection, without dispatching, when a request arrives before the previous one is answered', async () => {
    handled.length = 0;
    const talk = await rawConversation(port, [get('/async-close') + HIDDEN], { closeWithinMs: 2_000 });
    expect(handled).toEqual(['/async-close']);
    expect(talk.responses).toEqual([]);
    expect(talk.closed).toBe(true);
  });
});

describe.each(ENGINES)('$name listen(): nothing after an answer that closes the connection runs', (engine) => {
  let server: HttpServer;
  const handled: string[] = [];

  async function handler(ex: Exchange): Promise<void> {
    handled.push(ex.head.rawPath);
    const path = ex.head.rawPath;
    if (path === '/close-now') return ex.send(400, [], 'refused', true);
    if (path === '/close-later') {
      await new Promise((r) => setTimeout(r, 20));
      return ex.send(400, [], 'refused', true);
    }
    if (path === '/stream') {
      return ex.stream(200, [], 2, async () => Buffer.from('ok'));
    }
    ex.send(200, [], 'ok');
  }

  beforeAll(async () => {
    server = await engine.listen('127.0.0.1', 0, handler);
  });
  afterAll(() => server.close(100));

  const cases: Array<[string, string]> = [
    ['an answer with close written at once', get('/close-now')],
    ['an answer with close written later', get('/close-later')],
    ['a request with Connection: close', get('/plain', 'Connection: close\r\n')],
    ['a request whose framing is refused', get('/plain', 'Transfer-Encoding: identity\r\n') + '0\r\n\r\n'],
    ['a refused request answered with a stream', get('/stream', 'Content-Length: 0\r\nContent-Length: 0\r\n')],
  ];

  // node:http hands a request pipelined behind one over before that one is answered: its engine
  // starts each only once the previous one is answered, and none after an answer that closed
  it.each(cases)('%s: the request pipelined behind it never runs', async (_, first) => {
    handled.length = 0;
    const talk = await rawConversation(server.port, [first + HIDDEN], { closeWithinMs: 2_000 });
    expect(handled).not.toContain('/hidden');
    expect(talk.closed).toBe(true);
    // node:http's engine answers the bytes after Connection: close with a refusal of their own
    if (engine.name === 'uws') expect(talk.responses.length).toBeLessThanOrEqual(1);
  });

  it.each(cases.slice(0, engine.name === 'node' ? 3 : 4))('%s: alone, it is answered and the connection closes', async (_, first) => {
    handled.length = 0;
    const talk = await rawConversation(server.port, [first, HIDDEN], { gapMs: 1_000, closeWithinMs: 2_000 });
    expect(talk.responses).toHaveLength(1);
    expect(talk.closed).toBe(true);
    expect(handled).not.toContain('/hidden');
  });

  // node:http's parser refuses two Content-Length fields itself, with an answer
  it.skipIf(engine.name !== 'uws')('a refused request answered with a stream drops the connection, unanswered', async () => {
    const talk = await rawConversation(server.port, [get('/stream', 'Content-Length: 0\r\nContent-Length: 0\r\n')], { closeWithinMs: 2_000 });
    expect(talk.responses).toEqual([]);
    expect(talk.closed).toBe(true);
  });

  it('keep-alive answers still serve pipelined requests in order', async () => {
    handled.length = 0;
    const talk = await rawConversation(server.port, [get('/a') + get('/b') + get('/c', 'Connection: close\r\n')], { closeWithinMs: 2_000 });
    expect(handled).toEqual(['/a', '/b', '/c']);
    expect(talk.responses.map((r) => r.text())).toEqual(['ok', 'ok', 'ok']);
    expect(talk.closed).toBe(true);
  });
});
