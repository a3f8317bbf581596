// The website endpoint (--website-listen): serves a bucket's static website (PutBucketWebsite) to
// anonymous GET and HEAD, as S3's website endpoints do (AWS *Website endpoints*: "supports only
// GET and HEAD requests", "returns HTML" errors, no authenticated requests). The bucket comes from
// the Host header (website-routing.ts). Each object is read by the S3 face's own GetObject or
// HeadObject for an anonymous caller, through dispatch: the same bucket policy, ACL and public
// access block decide, and Range and conditional requests behave as on S3.

import { AbortedError, type Exchange, type ResponseHeaders } from '../../http/exchange.js';
import { statusLine } from '../../http/listener.js';
import type { LogLine } from '../../log/log-line.js';
import type { S3Context, S3RequestSummary, S3Services } from '../context.js';
import { dispatch } from './dispatch.js';
import { S3Error } from '../errors/errors.js';
import { checkRequestFraming } from '../request-framing.js';
import { commonHeaders, newRequestIds, type RequestIds } from '../respond.js';
import { normalizeDomains, type Resource } from '../router.js';
import { hasUnreadBody } from './service.js';
import { s3ErrorOf } from '../store-errors.js';
import {
  documentKeyOf,
  folderRedirect,
  matchRoutingRule,
  redirectAll,
  ruleRedirect,
  websiteBucketOf,
  websiteErrorPage,
  websiteKeyOf,
  type RequestOrigin,
  type WebsiteErrorItem,
  type WebsiteRedirectAnswer,
} from '../website-routing.js';

const REDIRECT_HEADER = 'x-amz-website-redirect-location';
/** request headers that do not apply to the error document: it answers whatever was asked */
const DOCUMENT_ONLY_HEADERS = new Set(['range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since']);
/** error details the HTML page lists, as S3's does */
const PAGE_DETAILS = ['Key', 'BucketName'];
/** a request body up to this size is read and dropped before an error answer; a larger one closes the connection unread */
const DRAIN_BEFORE_ERROR = 1 << 20;
const DRAIN_TIMEOUT_MS = 2_000;

interface WebsiteRequest {
  services: S3Services;
  ex: Exchange;
  ids: RequestIds;
  bucket: string;
  summary: S3RequestSummary;
}

/**
 * The exchange a GetObject answers through: an object with x-amz-website-redirect-location
 * answers 301 to it instead of its body (AWS *Configuring a webpage redirect*), and `status`, when
 * given, replaces the object's (an error document keeps the error's status).
 */
function websiteExchange(ex: Exchange, ids: RequestIds, server: string, status?: number): Exchange {
  const redirectOf = (headers: ResponseHeaders): string | undefined => headers.find(([n]) => n.toLowerCase() === REDIRECT_HEADER)?.[1];
  const redirect = (location: string): void => sendRedirect(ex, ids, server, { status: 301, location });
  return {
    get head() { return ex.head; },
    get aborted() { return ex.aborted; },
    get responded() { return ex.responded; },
    get status() { return ex.status; },
    get bytesSent() { return ex.bytesSent; },
    get bodyEnded() { return ex.bodyEnded; },
    get received() { return ex.received; },
    onAbort: (l) => ex.onAbort(l),
    discardSmallBody: (max, ms) => ex.discardSmallBody(max, ms),
    nextBodyChunk: () => ex.nextBodyChunk(),
    beginChunked: (s, h) => ex.beginChunked(status ?? s, h),
    close: () => ex.close(),
    send(s, headers, body, close) {
      const location = redirectOf(headers);
      if (location !== undefined && s < 300) return redirect(location);
      ex.send(status ?? s, headers, body, close);
    },
    sendHead(s, headers, length, close) {
      const location = redirectOf(headers);
      if (location !== undefined && s < 300) return redirect(location);
      ex.sendHead(status ?? s, headers, length, close);
    },
    async stream(s, headers, total, read) {
      const location = redirectOf(headers);
      if (location !== undefined && s < 300) return redirect(location);
      await ex.stream(status ?? s, headers, total, read);
    },
  };
}

function sendRedirect(ex: Exchange, ids: RequestIds, server: string, r: WebsiteRedirectAnswer): void {
  const headers = [...commonHeaders(ids, server), ['Location', r.location] as const];
  if (ex.head.method === 'HEAD') ex.sendHead(r.status, headers, 0);
  else ex.send(r.status, headers);
}

function errorItem(err: S3Error): WebsiteErrorItem {
  const details = PAGE_DETAILS.flatMap((name) => (err.extras[name] === undefined ? [] : [[name, String(err.extras[name])] as const]));
  return { code: err.code, message: err.message, details };
}

function sendErrorPage(ex: Exchange, ids: RequestIds, server: string, err: S3Error, documentError?: S3Error, close = false): void {
  const html = websiteErrorPage(statusLine(err.status), errorItem(err), ids, documentError && errorItem(documentError));
  const headers: Array<readonly [string, string]> = [...commonHeaders(ids, server), ...Object.entries(err.headers), ['Content-Type', 'text/html; charset=utf-8']];
  if (ex.head.method === 'HEAD') ex.sendHead(err.status, headers, Buffer.byteLength(html), close);
  else ex.send(err.status, headers, html, close);
}

/** GetObject (HeadObject for HEAD) of `key` for an anonymous caller, answered through `ex`. */
function readObject(r: WebsiteRequest, key: string, ex: Exchange, headers: Readonly<Record<string, string>>): Promise<void> {
  const head = r.ex.head;
  const resource: Resource = { style: 'path', bucket: r.bucket, key };
  const ctx: S3Context = {
    services: r.services,
    ex,
    head,
    headers,
    // S3's query parameters (versionId, partNumber, response-*) are not the website's: ignored, as a cache buster is
    query: new Map(),
    resource,
    route: { op: head.method === 'HEAD' ? 'HeadObject' : 'GetObject' },
    auth: { kind: 'anonymous' },
    principal: { kind: 'anonymous' },
    summary: r.summary,
    ...r.ids,
  };
  return dispatch(ctx);
}

/**
 * The custom error document with the error's status, or S3's HTML page naming both errors when it
 * cannot be read either (AWS *Configuring a custom error document*).
 */
async function serveErrorDocument(r: WebsiteRequest, documentKey: string, err: S3Error): Promise<void> {
  const server = r.services.config.serverHeader;
  const headers = Object.fromEntries(Object.entries(r.ex.head.headers).filter(([n]) => !DOCUMENT_ONLY_HEADERS.has(n)));
  try {
    await readObject(r, documentKey, websiteExchange(r.ex, r.ids, server, err.status), headers);
  } catch (e) {
    if (!(e instanceof S3Error) || r.ex.responded) throw e;
    sendErrorPage(r.ex, r.ids, server, err, e);
  }
}

async function serve(services: S3Services, domains: readonly string[], ex: Exchange, ids: RequestIds, summary: S3RequestSummary): Promise<void> {
  const head = ex.head;
  const server = services.config.serverHeader;
  checkRequestFraming(head);
  if (head.method !== 'GET' && head.method !== 'HEAD') {
    throw new S3Error('MethodNotAllowed', { Method: head.method, ResourceType: 'OBJECT' }, { headers: { Allow: 'GET, HEAD' } });
  }
  const bucketName = websiteBucketOf(head.headers['host'], domains);
  if (bucketName === undefined) throw new S3Error('InvalidRequest', {}, { message: 'A website request needs a Host header naming the bucket.' });
  summary.bucket = bucketName;
  const bucket = services.store.getBucket(bucketName);
  if (!bucket) throw new S3Error('NoSuchBucket', { BucketName: bucketName });
  const site = bucket.website;
  if (!site) throw new S3Error('NoSuchWebsiteConfiguration', { BucketName: bucketName });
  const key = websiteKeyOf(head.rawPath);
  if (key === undefined) throw new S3Error('InvalidURI');
  summary.key = key;
  const origin: RequestOrigin = { protocol: head.secure ? 'https' : 'http', host: head.headers['host']! };
  if (site.redirectAllRequestsTo) return sendRedirect(ex, ids, server, redirectAll(site.redirectAllRequestsTo, key, origin));
  const before = matchRoutingRule(site.routingRules, key);
  if (before) return sendRedirect(ex, ids, server, ruleRedirect(before, key, origin));
  const index = site.indexDocument!;
  const documentKey = documentKeyOf(key, index);
  // a delete marker as the latest version is no object
  const exists = (k: string): boolean => services.store.getObject(bucketName, k)?.deleteMarker === false;
  if (documentKey === key && !exists(key) && exists(`${key}/${index}`)) {
    return sendRedirect(ex, ids, server, folderRedirect(key, origin));
  }
  const r: WebsiteRequest = { services, ex, ids, bucket: bucketName, summary };
  try {
    await readObject(r, documentKey, websiteExchange(ex, ids, server), head.headers);
  } catch (e) {
    if (!(e instanceof S3Error) || ex.responded || e.status < 400 || e.status >= 500) throw e;
    const after = matchRoutingRule(site.routingRules, key, e.status);
    if (after) return sendRedirect(ex, ids, server, ruleRedirect(after, key, origin));
    // a failed precondition or range is the answer itself, not a page that is missing
    if (site.errorDocument === undefined || e.status === 412 || e.status === 416) throw e;
    summary.errorCode = e.code;
    return serveErrorDocument(r, site.errorDocument, e);
  }
}

/** The website listener's request handler; `domains` are the website domains (--website-domain). */
export function websiteRequestHandler(services: S3Services, domains: readonly string[], log: LogLine): (ex: Exchange) => Promise<void> {
  const websiteDomains = normalizeDomains(domains);
  return async (ex) => {
    const ids = newRequestIds();
    // AWS's server access logs name website requests WEBSITE.GET.OBJECT and WEBSITE.HEAD.OBJECT
    const summary: S3RequestSummary = { requestId: ids.requestId, operation: `WEBSITE.${ex.head.method === 'HEAD' ? 'HEAD' : 'GET'}.OBJECT`, startedAt: performance.now() };
    services.observer?.started(ex);
    try {
      await serve(services, websiteDomains, ex, ids, summary);
    } catch (e) {
      if (e instanceof AbortedError || ex.aborted) return;
      if (ex.responded) {
        log(`${ids.requestId} website answer failed after it started: ${(e as Error).stack ?? e}`, 'error');
        ex.close();
        return;
      }
      const err = await s3ErrorOf(e, { style: 'path', bucket: summary.bucket, key: summary.key }, services.config.dataDir);
      summary.errorCode = err.code;
      if (err.status === 500) log(`${ids.requestId} ${err.code}: ${e instanceof S3Error ? e.message : ((e as Error).stack ?? e)}`, 'error');
      // a form POSTed to a page gets its 405: a small body is read first, so that closing does not reset the answer away
      const unread = hasUnreadBody(ex);
      if (unread) await ex.discardSmallBody(DRAIN_BEFORE_ERROR, DRAIN_TIMEOUT_MS);
      if (ex.aborted) return;
      sendErrorPage(ex, ids, services.config.serverHeader, err, undefined, unread);
    } finally {
      services.observer?.finished(ex, summary);
    }
  };
}
