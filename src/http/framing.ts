// Request body framing that uWS lets through but HTTP does not allow (RFC 9112 §6): uWS decodes
// any Transfer-Encoding as chunked, reads the first of several Content-Length fields and hands an
// empty one on. Where such a body ends is not known, so the next request may start anywhere in
// it: the engines close the connection after answering (uws.ts) and the faces answer these
// before reading a body byte.

import type { RequestHead } from './request-head.js';

export interface FramingProblem {
  /** 400: malformed, ambiguous or not ending in chunked (RFC 9112 §6.3); 501: a coding this server lacks (§6.1) */
  status: 400 | 501;
  header: 'Transfer-Encoding' | 'Content-Length';
  value: string;
  /** what is wrong, in a sentence */
  reason: string;
}

/** RFC 9110 §5.6.2 token */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CHUNKED = 'chunked';
const DECIMAL = /^\d+$/;

/** FramingProblem.reason, whichever engine found the problem */
export const FRAMING_REASONS = {
  notChunked: 'Transfer-Encoding must be chunked',
  notDecimal: 'Content-Length must be a non-negative decimal number of bytes',
  // RFC 9112 §6.1: a server may refuse both, and must close the connection either way
  bothHeaders: 'Content-Length and Transfer-Encoding must not be sent together',
} as const;

function transferEncodingProblem(value: string): FramingProblem['status'] | undefined {
  const codings = value.split(',').map((c) => c.trim());
  // transfer-coding names are case-insensitive (RFC 9112 §7); parameters are not allowed on chunked
  const names = codings.map((c) => c.split(';')[0]!.trim().toLowerCase());
  if (names.some((n, i) => !TOKEN.test(n) || (n === CHUNKED && codings[i]!.includes(';')))) return 400;
  if (names[names.length - 1] !== CHUNKED || names.indexOf(CHUNKED) !== names.length - 1) return 400;
  return names.length === 1 ? undefined : 501;
}

/**
 * What is wrong with the request's framing headers, or undefined when nothing is. Repeated fields
 * arrive joined with ',' (request-head.ts), so two Content-Length fields, even equal ones, are
 * not a decimal number: refused, as RFC 9110 §8.6 allows.
 */
export function framingProblem(head: RequestHead): FramingProblem | undefined {
  const te = head.headers['transfer-encoding'];
  const cl = head.headers['content-length'];
  if (te !== undefined) {
    const status = transferEncodingProblem(te);
    if (status) return { status, header: 'Transfer-Encoding', value: te, reason: FRAMING_REASONS.notChunked };
    if (cl !== undefined) return { status: 400, header: 'Content-Length', value: cl, reason: FRAMING_REASONS.bothHeaders };
  }
  if (cl !== undefined && !DECIMAL.test(cl.trim())) return { status: 400, header: 'Content-Length', value: cl, reason: FRAMING_REASONS.notDecimal };
  return undefined;
}

/** The request asks to close the connection after its answer (RFC 9112 §9.6: `Connection: close`). */
export function asksToClose(head: RequestHead): boolean {
  const connection = head.headers['connection'];
  return connection !== undefined && connection.split(',').some((option) => option.trim().toLowerCase() === 'close');
}
