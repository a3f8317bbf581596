// The Sui client's fetch sends a request again, once, when its connection was closed under it
// (src/publisher/walrus/sui-fetch.ts), and only then.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionReset, resendOnReset } from '../../../../src/publisher/walrus/sui-fetch.js';

let server: http.Server;
let url: string;
/** requests to drop, by closing their connection without an answer */
let drop = 0;
let seen = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen++;
    req.resume();
    req.on('end', () => (drop-- > 0 ? req.socket.destroy() : res.end('answered')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const post = (f: typeof fetch) => f(url, { method: 'POST', body: new Uint8Array([1, 2, 3]) });

describe('resendOnReset', () => {
  it('a connection closed under the request fails plain fetch; sent again once, it is answered', async () => {
    drop = 1;
    seen = 0;
    const failure = await post(fetch).catch((e: unknown) => e);
    expect(isConnectionReset(failure)).toBe(true);
    drop = 1;
    seen = 0;
    const res = await post(resendOnReset());
    expect(await res.text()).toBe('answered');
    expect(seen).toBe(2);
  });

  it('sends it again only once, and never after a refused connection', async () => {
    drop = 2;
    seen = 0;
    expect(isConnectionReset(await post(resendOnReset()).catch((e: unknown) => e))).toBe(true);
    expect(seen).toBe(2);
    drop = 0;
    let calls = 0;
    const counting: typeof fetch = (input, init) => (calls++, fetch(input, init));
    const closed = await resendOnReset(counting)('http://127.0.0.1:9/', { method: 'POST' }).catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(TypeError);
    expect(isConnectionReset(closed)).toBe(false);
    expect(calls).toBe(1);
  });
});
