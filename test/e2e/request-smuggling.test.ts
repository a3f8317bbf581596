// Request smuggling through the uWS front end (issue 30, defect 1): a request whose framing Tusk
// refuses was answered with Connection: close, yet a request hidden in its body still ran, unsigned
// on a public-read-write bucket and signed on a private one. The shapes are in helpers/smuggling.ts.

import { useTusk } from './helpers/lifecycle.js';
import { tuskSmugglingSuite } from './helpers/smuggling.js';

const ctx = useTusk();

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

tuskSmugglingSuite('uWS', () => ctx.server, UWS_UNANSWERED, 20_000);
