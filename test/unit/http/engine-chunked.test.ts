// Exchange.beginChunked on each HTTP engine (uWS, node:http): a response of unknown length goes out with
// chunked transfer encoding, pieces arrive as they are written, and the connection stays usable.

import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpServer } from '../../../src/http/listener.js';
import { ENGINES } from './engines.js';

const servers = new Map<string, HttpServer>();
beforeAll(async () => {
  for (const engine of ENGINES) servers.set(engine.name, await engine.listen('127.0.0.1', 0, async (ex) => {
    if (ex.head.rawPath === '/plain') return ex.send(200, [], 'plain');
    const out = ex.beginChunked(200, [['Content-Type', 'application/xml']]);
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n');
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 30));
      out.write(' ');
    }
    out.end('<Result/>');
  }));
});
afterAll(() => Promise.all([...servers.values()].map((s) => s.close(100))));

function get(server: HttpServer, agent: Agent, path: string): Promise<{ status: number; headers: Record<string, unknown>; pieces: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, agent }, (res) => {
      const pieces: string[] = [];
      res.on('data', (c: Buffer) => pieces.push(c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, pieces }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(ENGINES)('Exchange.beginChunked on $name', ({ name }) => {
  it('streams a body of unknown length, chunk by chunk, and keeps the connection alive', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const res = await get(servers.get(name)!, agent, '/slow');
      expect(res.status).toBe(200);
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.pieces.join('')).toBe('<?xml version="1.0" encoding="UTF-8"?>\n   <Result/>');
      expect(res.pieces.length).toBeGreaterThan(1);
      const next = await get(servers.get(name)!, agent, '/plain');
      expect(next.pieces.join('')).toBe('plain');
    } finally {
      agent.destroy();
    }
  });
});
