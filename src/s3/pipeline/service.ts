// The S3 face's request entry: resolve the resource, authenticate, classify, dispatch, and turn
// every failure into one S3 error answer (processing order of s3.md §1.10).

import type { Accounts } from '../../identity/accounts.js';
import type { Config } from '../../config/config.js';
import { parseQuery } from '../query.js';
import { AbortedError, type Exchange } from '../../http/exchange.js';
import type { RenderRefusal } from '../../http/listener.js';
import type { LogLine } from '../../log/log-line.js';
import { MfaDevices } from '../../identity/mfa-devices.js';
import type { S3Store } from '../object-attrs.js';
import type { S3Bucket } from '../object-attrs.js';
import type { Principal } from '../access.js';
import { authenticate, type AuthResult } from '../sigv4/index.js';
import { createBodyDigester } from '../body-digests.js';
import { authContextOf, type S3Context, type S3RequestSummary, type S3Services } from '../context.js';
import { consoleCorsHeaders, corsForRequest } from '../cors.js';
import { dispatch } from './dispatch.js';
import { S3Error, ServedByWriter } from '../errors/errors.js';
import { checkRequestFraming, refusalError } from '../request-framing.js';
import { errorAnswer, newRequestIds, sendError } from '../respond.js';
import { classify, normalizeDomains, resolveResource, type Resource } from '../router.js';
import { s3ErrorOf } from '../store-errors.js';

export type RequestLogger = LogLine;

/**
 * A body up to this size is read and dropped before an error answer given early (a full disk
 * refuses a part before its first byte), so that the answer is not lost to a reset: uWS closes
 * the socket right after an answer that closes, and unread bytes turn the close into a reset the
 * client sees instead of the answer (its write fails with EPIPE). Large enough for the part sizes
 * clients use (5 MiB SDKs and rclone, 8 MiB aws-cli, 15 MiB s3cmd, 50 MiB s5cmd); the connection
 * still closes after the answer, and a larger body is never read to be discarded (s3.md §1.7).
 * uWS offers no way to answer first and read on: the response's handle is gone once it ended.
 */
const DRAIN_BEFORE_ERROR = 64 << 20;
const DRAIN_TIMEOUT_MS = 10_000;

/** The request declared a body that was not read to its end. */
export function hasUnreadBody(ex: Exchange): boolean {
  const h = ex.head.headers;
  const declared = h['content-length'] !== undefined && h['content-length'] !== '0';
  return (declared || h['transfer-encoding'] !== undefined) && !ex.bodyEnded;
}

async function handle(services: S3Services, ex: Exchange, log: RequestLogger): Promise<void> {
  const ids = newRequestIds();
  const observer = services.observer;
  const summary: S3RequestSummary = { requestId: ids.requestId, operation: 'unclassified', startedAt: performance.now() };
  observer?.started(ex);
  try {
    await handleClassified(services, ex, log, ids, summary);
  } finally {
    observer?.finished(ex, summary);
  }
}

async function handleClassified(
  services: S3Services,
  ex: Exchange,
  log: RequestLogger,
  ids: ReturnType<typeof newRequestIds>,
  summary: S3RequestSummary,
): Promise<void> {
  let resource: Resource = { style: 'path' };
  const received = ex;
  try {
    const head = ex.head;
    checkRequestFraming(head);
    resource = resolveResource(head, services.domains);
    summary.bucket = resource.bucket;
    summary.key = resource.key;
    const origin = head.headers['origin'];
    let bucket: S3Bucket | undefined;
    if (resource.bucket !== undefined && services.accessLogging) {
      // read once here (dispatch takes it from the context): no second lookup for the logging check
      bucket = services.store.getBucket(resource.bucket);
      // from here on every answer goes through the exchange that journals its record first
      if (bucket?.logging) ex = services.accessLogging.watch(ex, bucket, resource.key, summary, ids.hostId);
    }
    if (origin !== undefined && head.method !== 'OPTIONS' && services.config.console.origins.includes(origin)) {
      ids.cors = consoleCorsHeaders(origin, head.headers['access-control-request-headers']);
    } else if (origin !== undefined && resource.bucket !== undefined && head.method !== 'OPTIONS') {
      bucket ??= services.store.getBucket(resource.bucket);
      ids.cors = corsForRequest(bucket?.access?.cors, origin, head.method, head.headers['access-control-request-headers']);
    }
    const query = parseQuery(head.rawQuery);
    const { accounts } = services;
    // CORS preflights are never authenticated (s3.md §2.1)
    const auth: AuthResult = head.method === 'OPTIONS' ? { kind: 'anonymous' } : authenticate(head, authContextOf(services, resource));
    if (auth.kind === 'signed') {
      summary.accessKeyId = auth.accessKeyId;
      summary.signatureVersion = auth.signatureVersion ? 'SigV2' : 'SigV4';
      summary.authType = auth.presigned ? 'QueryString' : 'AuthHeader';
    }
    const principal: Principal =
      auth.kind === 'signed' ? { kind: 'key', key: accounts.lookup(auth.accessKeyId)! } : { kind: 'anonymous' };
    const headers = auth.kind === 'signed' && Object.keys(auth.hoistedHeaders).length
      ? { ...auth.hoistedHeaders, ...head.headers }
      : head.headers;
    const route = classify(head.method, resource, query, headers);
    summary.operation = route.op;
    const ctx: S3Context = { services, ex, head, headers, query, resource, route, auth, principal, summary, ...ids, ...(bucket ? { bucket } : {}) };
    await dispatch(ctx);
  } catch (e) {
    if (e instanceof AbortedError || ex.aborted) return;
    // nothing answered yet: the writer thread serves the whole request (and logs it)
    if (e instanceof ServedByWriter && services.forwardToWriter && !ex.responded) return services.forwardToWriter(received);
    if (ex.responded) {
      // a streamed answer failed midway: the only honest thing left is to drop the connection
      log(`${ids.requestId} failed after the response started: ${(e as Error).stack ?? e}`, 'error');
      ex.close();
      return;
    }
    const err = await s3ErrorOf(e, resource, services.config.dataDir);
    summary.errorCode = err.code;
    logFailure(log, ids.requestId, e, err);
    const unread = hasUnreadBody(ex);
    if (unread) await ex.discardSmallBody(DRAIN_BEFORE_ERROR, DRAIN_TIMEOUT_MS);
    if (ex.aborted) return;
    sendError(ex, ids, services.config.serverHeader, err, err.close || unread);
  }
}

/**
 * A failure on the server's side at its level: a full disk warns; every 500 (an internal error, or
 * damaged data: a CRC32C mismatch, bytes lost) is an error, with the stack of what was thrown
 * unless it was an S3 error. A client's mistake is in the access log only.
 */
function logFailure(log: LogLine, requestId: string, e: unknown, err: S3Error): void {
  if (err.code === 'XTuskStorageFull') log(`${requestId} XTuskStorageFull: ${(e as Error).message}`, 'warn');
  else if (err.status === 500) log(`${requestId} ${err.code}: ${e instanceof S3Error ? e.message : ((e as Error).stack ?? e)}`, 'error');
}

/** The S3 face's services over `store`: the normalized base domains and one body digester. */
export function s3Services(store: S3Store, accounts: Accounts, config: Config): S3Services {
  return {
    store, accounts, config, domains: normalizeDomains(config.domains), digester: createBodyDigester(), mfa: new MfaDevices(config.dataDir),
  };
}

/** The S3 listener's request handler; the promise settles when the exchange is answered. */
export function s3RequestHandler(services: S3Services, log: RequestLogger): (ex: Exchange) => Promise<void> {
  return (ex) => handle(services, ex, log);
}

/** The answer to S3 requests that arrive before the engine is open (start-up, recovery). */
export function s3Unavailable(ex: Exchange, serverHeader: string): Promise<void> {
  const err = new S3Error('ServiceUnavailable', {}, { message: 'The server is starting; retry shortly.', headers: { 'Retry-After': '1' } });
  sendError(ex, newRequestIds(), serverHeader, err, hasUnreadBody(ex));
  return Promise.resolve();
}

/** The S3 listener's answer to a request its HTTP engine refused before any handler saw it. */
export function s3Refusal(serverHeader: string): RenderRefusal {
  return (refusal) => errorAnswer(serverHeader, refusalError(refusal));
}
