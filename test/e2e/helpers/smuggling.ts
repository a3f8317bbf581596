// Request smuggling (RFC 9112 §11.2): twenty requests whose body framing is ambiguous or broken,
// each carrying a second, hidden request where some parser would see the next request start. A
// server must refuse each before acting on it (§6.3), and then act on no byte after it on that
// connection (§9.6): whatever it thinks the framing is, the hidden request must never run. The
// table is engine-neutral: run it against any Tusk listener (smugglingSuite below).

import { beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './clients.js';
import { bucketName } from './fixtures.js';
import { rawConversation, type RawConversation } from './raw-http.js';
import type { TuskServer } from './server.js';
import { objectPath, signHeaders, UNSIGNED_PAYLOAD, type HeaderList } from './sigv4.js';
import { expectS3Error, parseError } from './xml.js';

/** An S3 error answer, "status Code" */
type Answer = '400 InvalidArgument' | '400 BadRequest' | '411 MissingContentLength' | '501 NotImplemented';

export interface SmugglingShape {
  name: string;
  /**
   * The S3 errors a server may answer the outer request with: Tusk's own refusal, or, for what an
   * HTTP parser refuses first, the engine's (node:http: 400 BadRequest)
   */
  answers: readonly Answer[];
  /**
   * The framing is valid HTTP and S3 refuses the request: an answer that keeps the connection
   * (the body was read to its end) may be followed by the next request; one that closes may not.
   */
  wellFramed?: true;
  /** raw header lines of the outer request after its Host line (CRLF added); `{n}` is the byte length of `body(hidden)` */
  lines: string[];
  /** what follows the outer head; the hidden request is in it */
  body(hidden: string): string;
}

const CRLF = '\r\n';
const behind = (prefix: string) => (hidden: string) => prefix + hidden;
const chunkedEnd = behind(`0${CRLF}${CRLF}`);

const INVALID: readonly Answer[] = ['400 InvalidArgument'];
/** refused by Tusk, or by a parser that reads header fields strictly (RFC 9112 §5.1, §5.2) */
const INVALID_OR_BAD: readonly Answer[] = ['400 InvalidArgument', '400 BadRequest'];
/** a chunked PutObject S3 refuses before its body, or a parser that reads the chunk sizes first */
const NO_LENGTH_OR_BAD: readonly Answer[] = ['411 MissingContentLength', '400 BadRequest'];

export const SMUGGLING_SHAPES: readonly SmugglingShape[] = [
  // Content-Length (RFC 9110 §8.6, RFC 9112 §6.3 item 5)
  { name: 'two Content-Length fields, 0 first', answers: INVALID, lines: ['Content-Length: 0', 'Content-Length: {n}'], body: behind('') },
  { name: 'two Content-Length fields, 0 last', answers: INVALID, lines: ['Content-Length: {n}', 'Content-Length: 0'], body: behind('') },
  { name: 'two equal Content-Length fields', answers: INVALID, lines: ['Content-Length: 0', 'Content-Length: 0'], body: behind('') },
  { name: 'a Content-Length list', answers: INVALID, lines: ['Content-Length: 0, {n}'], body: behind('') },
  { name: 'an empty Content-Length', answers: INVALID, lines: ['Content-Length: '], body: behind('') },
  { name: 'a signed Content-Length', answers: INVALID, lines: ['Content-Length: +0'], body: behind('') },
  { name: 'a space before the colon of Content-Length', answers: INVALID_OR_BAD, lines: ['Content-Length : {n}'], body: behind('') },
  { name: 'Content-Length continued on a folded line', answers: INVALID_OR_BAD, lines: ['Content-Length: 0', ' {n}'], body: behind('') },
  // Transfer-Encoding not ending in chunked (RFC 9112 §6.3 item 4), or unknown (§6.1)
  { name: 'Transfer-Encoding: identity', answers: INVALID, lines: ['Transfer-Encoding: identity'], body: chunkedEnd },
  { name: 'Transfer-Encoding: xchunked', answers: INVALID, lines: ['Transfer-Encoding: xchunked'], body: chunkedEnd },
  { name: 'Transfer-Encoding: chunked, identity', answers: INVALID, lines: ['Transfer-Encoding: chunked, identity'], body: chunkedEnd },
  { name: 'two Transfer-Encoding fields', answers: INVALID, lines: ['Transfer-Encoding: chunked', 'Transfer-Encoding: identity'], body: chunkedEnd },
  { name: 'Transfer-Encoding: gzip, chunked', answers: ['501 NotImplemented'], lines: ['Transfer-Encoding: gzip, chunked'], body: chunkedEnd },
  { name: 'Transfer-Encoding continued on a folded line', answers: INVALID_OR_BAD, lines: ['Transfer-Encoding: identity', ' chunked'], body: chunkedEnd },
  { name: 'a space before the colon of Transfer-Encoding', answers: INVALID_OR_BAD, lines: ['Transfer-Encoding : chunked'], body: chunkedEnd },
  // both (RFC 9112 §6.1: close after answering, whatever is done with it)
  { name: 'Content-Length and Transfer-Encoding', answers: INVALID, lines: ['Content-Length: {n}', 'Transfer-Encoding: chunked'], body: chunkedEnd },
  // chunked bodies a lenient parser ends early (RFC 9112 §7.1)
  { name: 'a chunk size with 0x', answers: NO_LENGTH_OR_BAD, lines: ['Transfer-Encoding: chunked'], body: behind(`0x0${CRLF}${CRLF}`) },
  { name: 'a chunk size that wraps at 2^64', answers: NO_LENGTH_OR_BAD, lines: ['Transfer-Encoding: chunked'], body: behind(`10000000000000000${CRLF}${CRLF}`) },
  { name: 'a chunked body ended with bare LF', answers: NO_LENGTH_OR_BAD, lines: ['Transfer-Encoding: chunked'], body: behind('0\n\n') },
  // valid chunked framing that S3 refuses, closing the connection (s3.md: PUT needs a length)
  { name: 'a chunked PutObject without a decoded length', answers: ['411 MissingContentLength'], wellFramed: true, lines: ['Transfer-Encoding: chunked'], body: chunkedEnd },
];

/** A hidden request as raw bytes: a PUT to `path` with `headers` (Host first) and the 5-byte body `hello`. */
export function hiddenPut(path: string, headers: HeaderList): string {
  return `PUT ${path} HTTP/1.1${CRLF}${headers.map(([n, v]) => `${n}: ${v}${CRLF}`).join('')}${CRLF}hello`;
}

/** The outer request of `shape` to `path` on `port`, with `hidden` inside, as the parts to write. */
export function smugglingRequest(port: number, path: string, shape: SmugglingShape, hidden: string): { head: string; body: string } {
  const body = shape.body(hidden);
  const lines = shape.lines.map((l) => l.replace('{n}', String(Buffer.byteLength(body))));
  return { head: `PUT ${path} HTTP/1.1${CRLF}Host: 127.0.0.1:${port}${CRLF}${lines.map((l) => l + CRLF).join('')}${CRLF}`, body };
}

/**
 * Timings of the hidden request: in the same write as the outer one (what an attacker sends, and
 * what one TCP read brings the server), or only once the outer one was answered.
 */
export type SmugglingTiming = 'together' | 'after the answer';

export interface SmugglingTarget {
  port(): number;
  /** path of the outer request */
  outerPath: string;
  /** the hidden request for a unique key, unsigned (anonymous) or signed; `stored` says whether it ran */
  hidden(key: string, signed: boolean): string;
  stored(key: string, signed: boolean): Promise<boolean>;
  /**
   * Shapes this engine's own HTTP parser refuses before Tusk sees them, closing the connection
   * without an answer (immediately or at its idle timeout).
   */
  unanswered: ReadonlySet<string>;
  /** how long the engine may take to close such a connection */
  closeWithinMs: number;
}

/**
 * What the engine must do with a shape: answer (if at all) with one of its S3 errors, then close
 * and run nothing after it. False when a well-framed request was refused on a connection kept
 * open: the next request on it is then a request like any other.
 */
export function expectRefused(shape: SmugglingShape, timing: SmugglingTiming, talk: RawConversation, answerRequired: boolean): boolean {
  const where = `${shape.name} (${timing}): ${talk.responses.map((r) => r.status).join(', ') || 'no answer'}`;
  const res = talk.responses[0];
  if (answerRequired) expect.soft(res, where).toBeDefined();
  if (res) {
    expect.soft(shape.answers, where).toContain(`${res.status} ${parseError(res).code}`);
    expectS3Error(res, res.status, parseError(res).code ?? '', 'PUT');
    if (shape.wellFramed && res.headers['connection'] !== 'close') return false;
    expect.soft(res.headers['connection'], where).toBe('close');
  }
  expect.soft(talk.responses.length, where).toBeLessThanOrEqual(1);
  expect.soft(talk.closed, `${where}: the server must close the connection`).toBe(true);
  return true;
}

/**
 * The table against one engine: each shape in both timings, the hidden request unsigned and
 * signed. A shape the engine's own parser does not refuse is answered when the hidden request
 * comes later; in the same write an engine may instead close without answering (uWS closes a
 * connection when a request arrives before the previous one is answered), never run it.
 */
export function smugglingSuite(label: string, target: () => SmugglingTarget): void {
  describe(`request smuggling: ${label}`, () => {
    const cases = (['together', 'after the answer'] as const).flatMap((timing) => [false, true].map((signed) => ({ timing, signed })));
    it.each(cases)('no hidden request runs behind a refused one ($timing, signed: $signed)', async ({ timing, signed }) => {
      const t = target();
      const runs = SMUGGLING_SHAPES.map(async (shape, i) => {
        const key = `hidden-${timing === 'together' ? 't' : 'a'}-${signed ? 's' : 'u'}-${i}`;
        const { head, body } = smugglingRequest(t.port(), t.outerPath, shape, t.hidden(key, signed));
        const parts = timing === 'together' ? [head + body] : [head + shape.body(''), body.slice(shape.body('').length)];
        const talk = await rawConversation(t.port(), parts, { gapMs: 500, closeWithinMs: t.closeWithinMs });
        return { shape, key, talk };
      });
      for (const { shape, key, talk } of await Promise.all(runs)) {
        if (!expectRefused(shape, timing, talk, timing === 'after the answer' && !t.unanswered.has(shape.name))) continue;
        expect.soft(await t.stored(key, signed), `${shape.name} (${timing}): the hidden request ran`).toBe(false);
      }
    });
  });
}

/**
 * The table against a Tusk server (`server()`, started by the caller's useTusk): the outer
 * request goes to a public-read-write bucket, the hidden PUT too when unsigned, and to a private
 * bucket signed with the root key. `unanswered`: the shapes the engine's own parser refuses.
 */
export function tuskSmugglingSuite(label: string, server: () => TuskServer, unanswered: ReadonlySet<string>, closeWithinMs: number): void {
  const open = bucketName('pubw');
  const closed = bucketName('private');
  beforeAll(async () => {
    expect((await s3Request(server(), { method: 'PUT', bucket: open, headers: { 'x-amz-acl': 'public-read-write' } })).status).toBe(200);
    expect((await s3Request(server(), { method: 'PUT', bucket: closed })).status).toBe(200);
  });
  const host = () => `127.0.0.1:${server().port}`;
  smugglingSuite(label, () => ({
    port: () => server().port,
    outerPath: objectPath(open, 'outer'),
    hidden(key, signed) {
      if (!signed) return hiddenPut(objectPath(open, key), [['Host', host()], ['Content-Length', '5']]);
      const path = objectPath(closed, key);
      const { headers } = signHeaders({
        method: 'PUT',
        path,
        headers: [['host', host()], ['content-length', '5']],
        credentials: server().root,
        payloadHash: UNSIGNED_PAYLOAD,
      });
      return hiddenPut(path, headers);
    },
    async stored(key, signed) {
      const res = await s3Request(server(), { method: 'HEAD', bucket: signed ? closed : open, key });
      expect([200, 404], `HEAD ${key}`).toContain(res.status);
      return res.status === 200;
    },
    unanswered,
    closeWithinMs,
  }));
}
