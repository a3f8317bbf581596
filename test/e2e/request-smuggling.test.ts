// Request smuggling through the uWS front end (issue 30, defect 1): a request whose framing Tusk
// refuses was answered with Connection: close, yet a request hidden in its body still ran, unsigned
// on a public-read-write bucket and signed on a private one. The shapes are in helpers/smuggling.ts.

import { beforeAll } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { objectPath, signHeaders, UNSIGNED_PAYLOAD } from './helpers/sigv4.js';
import { hiddenPut, smugglingSuite } from './helpers/smuggling.js';
import { expect } from 'vitest';

const ctx = useTusk();
const open = bucketName('pubw');
const closed = bucketName('private');

beforeAll(async () => {
  expect((await s3Request(ctx.server, { method: 'PUT', bucket: open, headers: { 'x-amz-acl': 'public-read-write' } })).status).toBe(200);
  expect((await s3Request(ctx.server, { method: 'PUT', bucket: closed })).status).toBe(200);
});

const host = () => `127.0.0.1:${ctx.server.port}`;

smugglingSuite('uWS', () => ({
  port: () => ctx.server.port,
  outerPath: objectPath(open, 'outer'),
  hidden(key, signed) {
    if (!signed) return hiddenPut(objectPath(open, key), [['Host', host()], ['Content-Length', '5']]);
    const path = objectPath(closed, key);
    const { headers } = signHeaders({
      method: 'PUT',
      path,
      headers: [['host', host()], ['content-length', '5']],
      credentials: ctx.server.root,
      payloadHash: UNSIGNED_PAYLOAD,
    });
    return hiddenPut(path, headers);
  },
  async stored(key, signed) {
    const res = await s3Request(ctx.server, { method: 'HEAD', bucket: signed ? closed : open, key });
    expect([200, 404], `HEAD ${key}`).toContain(res.status);
    return res.status === 200;
  },
  // uWS refuses these itself, closing without an answer: a Content-Length that is not one
  // decimal number or sits beside Transfer-Encoding, and a chunk size it cannot read at once; a
  // field name with a space or a folded line it never finishes reading, until its idle timeout.
  unanswered: new Set([
    'a Content-Length list',
    'a signed Content-Length',
    'a space before the colon of Content-Length',
    'Content-Length continued on a folded line',
    'Transfer-Encoding continued on a folded line',
    'a space before the colon of Transfer-Encoding',
    'Content-Length and Transfer-Encoding',
    'a chunk size with 0x',
    'a chunk size that wraps at 2^64',
    'a chunked body ended with bare LF',
  ]),
  closeWithinMs: 20_000,
}));
