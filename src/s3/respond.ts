// The one response writer of the S3 face: common headers (s3.md §1.8) on every answer, XML
// bodies, and error rendering (errors are always XML; HEAD answers carry no body, §1.9).

import { randomBytes } from 'node:crypto';
import type { ResponseHeaders } from '../http/exchange.js';
import type { RefusalAnswer } from '../http/listener.js';
import type { S3Context } from './context.js';
import type { S3Error } from './errors/errors.js';
import { renderError } from './xml.js';

const NODE_ID = randomBytes(6).toString('hex');
let requestCounter = BigInt(`0x${randomBytes(6).toString('hex')}`) << 16n;

/** 16 upper-case hex characters, unique per request, and the opaque x-amz-id-2 that goes with it. */
export function newRequestIds(): RequestIds {
  requestCounter = (requestCounter + 1n) & 0xffffffffffffffffn;
  const requestId = requestCounter.toString(16).toUpperCase().padStart(16, '0');
  return { requestId, hostId: Buffer.from(`${NODE_ID}/${requestId}`).toString('base64') };
}

export interface RequestIds {
  requestId: string;
  hostId: string;
  /** CORS headers of the bucket's matching rule (s3.md §3.11): on every answer, errors included */
  cors?: ResponseHeaders;
}

export function commonHeaders(ids: RequestIds, server: string): ResponseHeaders {
  const h: Array<readonly [string, string]> = [
    ['x-amz-request-id', ids.requestId],
    ['x-amz-id-2', ids.hostId],
    ['Server', server],
  ];
  if (ids.cors) h.push(...ids.cors);
  return h;
}

/** The URL of `key` in `bucket` as this request reached it (scheme, Host, addressing style): a Location. */
export function objectLocation(ctx: S3Context, bucket: string, key: string): string {
  const origin = `${ctx.head.secure ? 'https' : 'http'}://${ctx.headers['host'] ?? 'localhost'}`;
  const path = key.split('/').map(encodeURIComponent).join('/');
  return ctx.resource.style === 'virtual' ? `${origin}/${path}` : `${origin}/${encodeURIComponent(bucket)}/${path}`;
}

export function send(
  ctx: S3Context,
  status: number,
  headers: ResponseHeaders = [],
  body?: string | Buffer,
  contentType?: string,
): void {
  const all: Array<readonly [string, string]> = [...commonHeaders(ctx, ctx.services.config.serverHeader), ...headers];
  if (body !== undefined && contentType) all.push(['Content-Type', contentType]);
  if (ctx.head.method === 'HEAD') {
    ctx.ex.sendHead(status, all, body === undefined ? 0 : Buffer.byteLength(body));
  } else {
    ctx.ex.send(status, all, body);
  }
}

export function sendXml(ctx: S3Context, xml: string, headers: ResponseHeaders = [], status = 200): void {
  send(ctx, status, headers, xml, 'application/xml');
}

function errorHeaders(ids: RequestIds, server: string, err: S3Error): Array<readonly [string, string]> {
  const headers: Array<readonly [string, string]> = [...commonHeaders(ids, server)];
  for (const [k, v] of Object.entries(err.headers)) headers.push([k, v]);
  return headers;
}

/** Renders an S3Error; `close` when the request body was not (fully) read (s3.md §1.7). */
export function sendError(
  ex: S3Context['ex'],
  ids: RequestIds,
  server: string,
  err: S3Error,
  close: boolean,
): void {
  const headers = errorHeaders(ids, server, err);
  if (ex.head.method === 'HEAD') {
    ex.sendHead(err.status, headers, undefined, close);
    return;
  }
  // the engine writes `Connection: close` itself when asked to close
  headers.push(['Content-Type', 'application/xml']);
  ex.send(err.status, headers, renderError(err, ids.requestId, ids.hostId), close);
}

/** An S3Error as a status, fields and XML body, for a request the HTTP engine refused (no Exchange). */
export function errorAnswer(server: string, err: S3Error): RefusalAnswer {
  const ids = newRequestIds();
  const headers = errorHeaders(ids, server, err);
  headers.push(['Content-Type', 'application/xml']);
  return { status: err.status, headers, body: renderError(err, ids.requestId, ids.hostId) };
}
