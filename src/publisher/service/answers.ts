// The publisher's small answers and its error answer (walrus.md §10.5), shared by its store and read routes.

import { AbortedError, type Exchange, type ResponseHeaders } from '../../http/exchange.js';
import { CORS_HEADERS } from './cors.js';
import type { Logger } from './context.js';
import { PublisherError, renderError } from './errors.js';
import { declaredLength, drainBody } from './request-body.js';
import { loggablePath } from './routes.js';
import { isOutOfSpace, storageErrno } from '../../base/storage-failures.js';

export const JSON_HEADERS: ResponseHeaders = [
  ['content-type', 'application/json'],
  ['server', 'Tusk'],
  ...CORS_HEADERS,
];

export const TEXT_HEADERS: ResponseHeaders = [
  ['content-type', 'text/plain; charset=utf-8'],
  ['server', 'Tusk'],
  ...CORS_HEADERS,
];

/** An early error answer reads (and drops) at most this much of the body to keep the connection; past it, it closes. */
const DRAIN_LIMIT = 1 << 20;

/** A small complete answer; HEAD gets the headers and the length only. */
export function answer(ex: Exchange, status: number, headers: ResponseHeaders, body: string, close = false): void {
  if (ex.head.method === 'HEAD') ex.sendHead(status, headers, Buffer.byteLength(body), close);
  else ex.send(status, headers, body, close);
}

/** Renders the error; an unread body is drained if small so the connection stays usable, else the connection closes. */
export async function answerError(log: Logger, ex: Exchange, error: unknown): Promise<void> {
  // the client went away: nobody to answer
  if (error instanceof AbortedError || ex.aborted) return;
  const outOfSpace = await isOutOfSpace(await storageErrno(error));
  const rendered = renderError(outOfSpace ? new PublisherError('STORAGE_FULL') : error);
  if (rendered.incidentId) log(`publisher: incident ${rendered.incidentId}: ${ex.head.method} ${loggablePath(ex.head.rawPath)}: ${(error as Error)?.stack ?? error}`, 'error');
  else if (outOfSpace || (error instanceof PublisherError && error.code === 'STORAGE_FULL')) log(`publisher: ${ex.head.method} ${loggablePath(ex.head.rawPath)}: ${(error as Error).message}`, 'warn');
  if (ex.responded) {
    ex.close();
    return;
  }
  let close = false;
  if (!ex.bodyEnded) {
    let remaining: number | undefined;
    try {
      remaining = declaredLength(ex);
    } catch {
      remaining = undefined;
    }
    close = remaining === undefined || remaining - ex.received > DRAIN_LIMIT || !(await drainBody(ex, DRAIN_LIMIT).catch(() => false));
  }
  const headers: ResponseHeaders =
    rendered.allow !== undefined
      ? [['allow', rendered.allow]]
      : rendered.httpStatus === 416
        ? [...JSON_HEADERS, ['content-range', `bytes */${(error as PublisherError).metadata?.size ?? '*'}`] as const]
        : JSON_HEADERS;
  answer(ex, rendered.httpStatus, headers, rendered.body, close);
}
