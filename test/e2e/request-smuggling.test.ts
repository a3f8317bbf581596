// Request smuggling (issue 30, defect 1): on the uWS front end, a request whose framing Tusk refused
// was answered with Connection: close, yet a request hidden in its body still ran, unsigned on a
// public-read-write bucket and signed on a private one; on node:http, one hidden behind
// `Transfer-Encoding: gzip, chunked` did. The same twenty shapes (helpers/smuggling.ts) on each engine.

import { describe } from 'vitest';
import { uwsAvailability } from '../../src/http/uws-module.js';
import { useTusk } from './helpers/lifecycle.js';
import { tuskSmugglingSuite } from './helpers/smuggling.js';

// uWS refuses these itself, closing without an answer: a Content-Length that is not one decimal
// number or sits beside Transfer-Encoding, and a chunk size it cannot read at once; a field name
// with a space or a folded line it never finishes reading, until its idle timeout (~10 s).
const UWS_UNANSWERED = new Set([
  'a Content-Length list',
  'a signed Content-Length',
  'a space before the colon of Content-Length',
  'Content-Length continued on a folded line',
  'Transfer-Encoding continued on a folded line',
  'a space before the colon of Transfer-Encoding',
  'Content-Length and Transfer-Encoding',
  'a chunk size with 0x',
  'a chunk size that wraps at 2^64',
]);

// wherever a uWS binary loads
describe.skipIf(!('module' in uwsAvailability()))('uWS engine', () => {
  const ctx = useTusk({ env: { TUSK_HTTP_ENGINE: 'uws' } });
  tuskSmugglingSuite('uWS', () => ctx.server, UWS_UNANSWERED, 20_000);
});

// node:http's engine answers what its parser refuses (node-engine.ts): every shape gets an answer
describe('node:http engine', () => {
  const ctx = useTusk({ env: { TUSK_HTTP_ENGINE: 'node' } });
  tuskSmugglingSuite('node:http', () => ctx.server, new Set(), 20_000);
});
