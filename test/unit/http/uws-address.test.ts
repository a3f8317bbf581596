// The remote address as text, formatted from uWS's getRemoteAddress bytes exactly as the binding's
// getRemoteAddressAsText does (uWS AsyncSocket::addressAsText), with a real uWS server.

import { describe, expect, it } from 'vitest';
import { addressText } from '../../../src/http/uws.js';
import { loadUws, uwsAvailability } from '../../../src/http/uws-module.js';

describe('uWS remote address', () => {
  it('4 bytes dotted, 16 bytes as eight 4-digit hex groups', () => {
    expect(addressText(new Uint8Array([127, 0, 0, 1]))).toBe('127.0.0.1');
    expect(addressText(new Uint8Array([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0xbc, 0xde]))).toBe('2001:0db8:0000:0000:0000:0000:000a:bcde');
    expect(addressText(new Uint8Array(0))).toBe('');
  });

  // no uWS binary loads on Node 24 with glibc 2.36 (Debian 12): CI's second leg runs the node engine
  it.skipIf(!('module' in uwsAvailability()))('is what the binding\'s text call gives, for IPv4 and IPv6 connections', async () => {
    const uws = loadUws();
    const seen: Array<[string, string]> = [];
    for (const [bind, connect] of [['127.0.0.1', '127.0.0.1'], ['::1', '[::1]'], ['::', '127.0.0.1']] as const) {
      const app = uws.App();
      app.any('/*', (res) => {
        const text = Buffer.from((res as unknown as { getRemoteAddressAsText(): ArrayBuffer }).getRemoteAddressAsText()).toString();
        seen.push([text, addressText(new Uint8Array(res.getRemoteAddress()))]);
        res.end('ok');
      });
      const socket = await new Promise<unknown>((resolve) => app.listen(bind, 0, 0, resolve));
      // a machine without IPv6 cannot bind ::1 or ::
      if (!socket) continue;
      try {
        await (await fetch(`http://${connect}:${uws.us_socket_local_port(socket)}/`)).text();
      } finally {
        uws.us_listen_socket_close(socket);
      }
    }
    expect(seen[0]).toEqual(['127.0.0.1', '127.0.0.1']);
    for (const [theirs, ours] of seen) expect(ours).toBe(theirs);
  });
});
