// The blob body, read into memory (RS2 needs the whole blob, architecture.md "Publisher face") and
// bounded: a declared Content-Length over the limit is refused before any byte is read, and a body
// without one is cut off as soon as it passes the limit.

import type { Exchange } from '../../http/exchange.js';
import { PublisherError } from './errors.js';

/** Content-Length as a number, undefined when absent; a malformed one is a malformed request. */
export function declaredLength(ex: Exchange): number | undefined {
  const text = ex.head.headers['content-length'];
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(text)) throw new PublisherError('MALFORMED_REQUEST', `invalid Content-Length '${text}'`);
  return Number(text);
}

export function checkDeclaredLength(ex: Exchange, maxBytes: number): void {
  const length = declaredLength(ex);
  if (length !== undefined && length > maxBytes) throw tooLarge(maxBytes);
}

/** Reads the whole body; throws BLOB_TOO_LARGE past `maxBytes`, AbortedError if the client leaves. */
export async function readBody(ex: Exchange, maxBytes: number): Promise<Buffer> {
  const declared = declaredLength(ex);
  if (declared !== undefined) {
    if (declared > maxBytes) throw tooLarge(maxBytes);
    const body = Buffer.allocUnsafe(declared);
    let at = 0;
    for (let chunk = await ex.nextBodyChunk(); chunk; chunk = await ex.nextBodyChunk()) {
      if (at + chunk.length > declared) throw new PublisherError('MALFORMED_REQUEST', 'the body is longer than its Content-Length');
      at += chunk.copy(body, at);
    }
    if (at !== declared) throw new PublisherError('MALFORMED_REQUEST', `the body ended after ${at} of ${declared} bytes`);
    return body;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for (let chunk = await ex.nextBodyChunk(); chunk; chunk = await ex.nextBodyChunk()) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Reads and drops what is left of the body (at most `maxBytes`) so an early answer keeps the connection usable. */
export async function drainBody(ex: Exchange, maxBytes: number): Promise<boolean> {
  let total = 0;
  for (let chunk = await ex.nextBodyChunk(); chunk; chunk = await ex.nextBodyChunk()) {
    total += chunk.length;
    if (total > maxBytes) return false;
  }
  return true;
}

function tooLarge(maxBytes: number): PublisherError {
  return new PublisherError('BLOB_TOO_LARGE', `the limit is ${maxBytes} bytes`, { maxBodyBytes: String(maxBytes) });
}
