// The S3 answer to a request whose body framing HTTP does not allow (src/http/framing.ts), and to
// one the HTTP engine refused before any handler saw it (src/http/listener.ts RequestRefusal). S3
// names the header: an unknown transfer coding is 501 NotImplemented with `Header`, as S3 says
// of any header that asks for something it lacks; a malformed one 400 InvalidArgument. Both close
// the connection, since where the body ends is unknown.

import { framingProblem, type FramingProblem } from '../http/framing.js';
import { MAX_HEAD_BYTES, type RequestRefusal } from '../http/listener.js';
import type { RequestHead } from '../http/request-head.js';
import { S3Error } from './errors/errors.js';

function framingError(problem: FramingProblem): S3Error {
  if (problem.status === 501) return new S3Error('NotImplemented', { Header: problem.header }, { close: true });
  return new S3Error(
    'InvalidArgument',
    { ArgumentName: problem.header, ArgumentValue: problem.value },
    { message: problem.reason, close: true },
  );
}

/** Throws the S3 error for a request's broken framing, if it has any. */
export function checkRequestFraming(head: RequestHead): void {
  const problem = framingProblem(head);
  if (problem) throw framingError(problem);
}

/** The S3 error for a request the HTTP engine refused (the connection closes after it). */
export function refusalError(refusal: RequestRefusal): S3Error {
  switch (refusal.kind) {
    case 'framing':
      return framingError(refusal.problem);
    case 'head-too-large':
      return new S3Error('RequestHeaderSectionTooLarge', { MaxSizeAllowed: MAX_HEAD_BYTES }, { close: true });
    // RFC 9110 §9.1: a method the server does not recognize is 501
    case 'method-not-implemented':
      return new S3Error('NotImplemented', {}, { message: `The ${refusal.method} method is not implemented.`, close: true });
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is 400
    case 'missing-host':
      return new S3Error('BadRequest', {}, { message: 'An HTTP/1.1 request must have a Host header.', close: true });
    case 'malformed':
      return new S3Error('BadRequest', {}, { message: `The request is not valid HTTP/1.1: ${refusal.detail}.`, close: true });
    case 'timeout':
      return new S3Error('RequestTimeout', {}, { close: true });
  }
}
