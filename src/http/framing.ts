// Request body framing that uWS lets through but HTTP does not allow (RFC 9112 §6): uWS decodes
// any Transfer-Encoding as chunked and hands an empty Content-Length on. The faces answer these
// before reading a body byte, and close the connection: where the body ends is not known.

import type { RequestHead } from './request-head.js';

export interface FramingProblem {
  /** 400: malformed or not ending in chunked (RFC 9112 §6.3); 501: a coding this server lacks (§6.1) */
  status: 400 | 501;
  header: 'Transfer-Encoding' | 'Content-Length';
  value: string;
}

/** RFC 9110 §5.6.2 token */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CHUNKED = 'chunked';

function transferEncodingProblem(value: string): FramingProblem['status'] | undefined {
  const codings = value.split(',').map((c) => c.trim());
  // transfer-coding names are case-insensitive (RFC 9112 §7); parameters are not allowed on chunked
  const names = codings.map((c) => c.split(';')[0]!.trim().toLowerCase());
  if (names.some((n, i) => !TOKEN.test(n) || (n === CHUNKED && codings[i]!.includes(';')))) return 400;
  if (names[names.length - 1] !== CHUNKED || names.indexOf(CHUNKED) !== names.length - 1) return 400;
  return names.length === 1 ? undefined : 501;
}

/** What is wrong with the request's framing headers, or undefined when nothing is. */
export function framingProblem(head: RequestHead): FramingProblem | undefined {
  const te = head.headers['transfer-encoding'];
  if (te !== undefined) {
    const status = transferEncodingProblem(te);
    if (status) return { status, header: 'Transfer-Encoding', value: te };
  }
  const cl = head.headers['content-length'];
  if (cl !== undefined && !/^\d+$/.test(cl.trim())) return { status: 400, header: 'Content-Length', value: cl };
  return undefined;
}
