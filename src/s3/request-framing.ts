// The S3 answer to a request whose body framing HTTP does not allow (src/http/framing.ts). S3
// names the header: an unknown transfer coding is 501 NotImplemented with `Header`, as S3 says
// of any header that asks for something it lacks; a malformed one 400 InvalidArgument. Both close
// the connection, since where the body ends is unknown.

import { framingProblem } from '../http/framing.js';
import type { RequestHead } from '../http/request-head.js';
import { S3Error } from './errors.js';

const MALFORMED: Record<'Transfer-Encoding' | 'Content-Length', string> = {
  'Transfer-Encoding': 'Transfer-Encoding must be chunked',
  'Content-Length': 'Content-Length must be a non-negative decimal number of bytes',
};

/** Throws the S3 error for a request's broken framing, if it has any. */
export function checkRequestFraming(head: RequestHead): void {
  const problem = framingProblem(head);
  if (!problem) return;
  if (problem.status === 501) throw new S3Error('NotImplemented', { Header: problem.header }, { close: true });
  throw new S3Error(
    'InvalidArgument',
    { ArgumentName: problem.header, ArgumentValue: problem.value },
    { message: MALFORMED[problem.header], close: true },
  );
}
