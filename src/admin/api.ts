// The admin API (issue 13 §6) under /tusk/admin/v1/ on the S3 listener: JSON in and out, every
// request signed with SigV4 by the root key (src/s3/sigv4), bodies covered by the signature.
// Changes are written to the data directory before they apply, so they hold without a restart.

import { createHash } from 'node:crypto';
import { AccountError, type AccountRegistry } from '../identity/accounts.js';
import { VERSION, type Config } from '../config/config.js';
import { AbortedError, type Exchange, type ResponseHeaders } from '../http/exchange.js';
import type { Health } from '../ops/health.js';
import type { LogLine } from '../log/log-line.js';
import { authenticate } from '../s3/sigv4/index.js';
import { consoleCorsHeaders } from '../s3/cors.js';
import { S3Error } from '../s3/errors/errors.js';
import { FORMAT_VERSION } from '../store/format.js';
import { INDEX_FORMAT_VERSION } from '../store/index-db.js';
import type { S3Store } from '../s3/object-attrs.js';
import type { TargetStatus } from '../notify/notifier.js';
import type { WalrusImportResult } from '../s3/walrus-import.js';
import { bucketUsage, incompleteUploadCount, versionCount, type BucketQuotas, type BucketQuota } from '../s3/pipeline/quotas.js';
import type { KeyRegistry } from '../kms/key-registry.js';
import { KmsError } from '../kms/key-service.js';

export const ADMIN_API_PREFIX = '/tusk/admin/v1/';
const MAX_BODY = 64 * 1024;

export interface AdminServices {
  config: Config;
  accounts: AccountRegistry;
  /** SSE-KMS's built-in key service */
  kms?: KeyRegistry;
  store: S3Store;
  quotas: BucketQuotas;
  health: Health;
  log: LogLine;
  /** the web console's origins, which may call the API (its Identity page signs with the root key) */
  consoleOrigins?(): readonly string[];
  /** bucket notification targets' delivery status */
  notify?: () => TargetStatus[];
  /** rebuilds a bucket's WALRUS objects from the network (s3/walrus-import.ts); undefined: no network here */
  walrusImport?: (bucket: string) => Promise<WalrusImportResult> | undefined;
}

class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;
type Route = (s: AdminServices, params: string[], body: Json, query: URLSearchParams) => Promise<[number, unknown]> | [number, unknown];

const ROUTES: Array<[method: string, pattern: RegExp, route: Route]> = [
  ['GET', /^info$/, info],
  ['GET', /^accounts$/, (s) => [200, { accounts: s.accounts.list() }]],
  ['GET', /^notify$/, (s) => [200, { targets: s.notify?.() ?? [] }]],
  ['POST', /^accounts$/, (s, _p, body) => {
    const created = s.accounts.createAccount(stringField(body, 'name'));
    return [201, { account: created.account, accessKeyId: created.account.accessKeyIds[0], secretAccessKey: created.secretAccessKey }];
  }],
  ['POST', /^accounts\/([^/]+)\/disable$/, (s, [name]) => [200, { account: s.accounts.setDisabled(name!, true) }]],
  ['POST', /^accounts\/([^/]+)\/enable$/, (s, [name]) => [200, { account: s.accounts.setDisabled(name!, false) }]],
  ['DELETE', /^accounts\/([^/]+)$/, (s, [name]) => {
    s.accounts.deleteAccount(name!, (owner) => s.store.listBuckets(owner).length);
    return [200, { deleted: name }];
  }],
  ['POST', /^accounts\/([^/]+)\/keys$/, (s, [name]) => [201, s.accounts.createKey(name!)]],
  ['POST', /^keys\/([^/]+)\/rotate$/, (s, [id]) => [200, s.accounts.rotateKey(id!)]],
  ['DELETE', /^keys\/([^/]+)$/, (s, [id]) => {
    s.accounts.deleteKey(id!);
    return [200, { deleted: id }];
  }],
  ['GET', /^buckets$/, (s) => [200, { buckets: s.store.listBuckets().map((b) => ({ name: b.name, owner: s.accounts.byCanonicalId(b.owner)?.displayName ?? b.owner })) }]],
  ['GET', /^buckets\/([^/]+)\/usage$/, async (s, [bucket]) => [200, await usageOf(s, bucket!)]],
  ['GET', /^buckets\/([^/]+)\/quota$/, (s, [bucket]) => {
    const quota = s.quotas.get(bucket!);
    if (!quota) throw new AdminError(404, 'NoSuchQuota', `bucket '${bucket}' has no quota`);
    return [200, { bucket, quota }];
  }],
  ['PUT', /^buckets\/([^/]+)\/quota$/, (s, [bucket], body) => {
    existingBucket(s, bucket!);
    const quota: BucketQuota = { maxBytes: countField(body, 'maxBytes'), maxObjects: countField(body, 'maxObjects') };
    if (quota.maxBytes === undefined && quota.maxObjects === undefined) throw new AdminError(400, 'InvalidArgument', 'give maxBytes, maxObjects or both');
    s.quotas.set(bucket!, quota);
    return [200, { bucket, quota }];
  }],
  ['POST', /^buckets\/([^/]+)\/walrus-import$/, async (s, [bucket]) => {
    existingBucket(s, bucket!);
    const running = s.walrusImport?.(bucket!);
    if (!running) throw new AdminError(400, 'NotAvailable', "this server has no Walrus network to list Blob objects from (its publisher is off)");
    return [200, { bucket, ...(await running) }];
  }],
  ['DELETE', /^buckets\/([^/]+)\/quota$/, (s, [bucket]) => {
    if (!s.quotas.remove(bucket!)) throw new AdminError(404, 'NoSuchQuota', `bucket '${bucket}' has no quota`);
    return [200, { deleted: bucket }];
  }],
  // SSE-KMS keys (src/kms): a key is named by id, ARN or alias (aliases, which may hold '/', in the
  // account of `account`, root by default); keys belong to `account`
  ['GET', /^kms\/keys$/, (s, _p, _b, q) => [200, { keys: kmsOf(s).list(q.has('account') ? accountIdOf(s, q.get('account')!) : undefined) }]],
  ['POST', /^kms\/keys$/, (s, _p, body) => {
    const id = optionalString(body, 'id');
    const description = optionalString(body, 'description');
    return [201, { key: kmsOf(s).create(accountIdOf(s, optionalString(body, 'account')), { ...(id ? { id } : {}), ...(description ? { description } : {}) }) }];
  }],
  ['POST', /^kms\/keys\/(.+)\/(enable|disable)$/, (s, [ref, action], body) => [200, { key: kmsOf(s).setEnabled(ref!, accountIdOf(s, optionalString(body, 'account')), action === 'enable') }]],
  ['POST', /^kms\/keys\/(.+)\/rotate$/, (s, [ref], body) => [200, { key: kmsOf(s).rotate(ref!, accountIdOf(s, optionalString(body, 'account'))) }]],
  ['POST', /^kms\/keys\/(.+)\/schedule-deletion$/, (s, [ref], body) => [200, { key: kmsOf(s).scheduleDeletion(ref!, accountIdOf(s, optionalString(body, 'account')), countField(body, 'pendingWindowDays')) }]],
  ['POST', /^kms\/keys\/(.+)\/cancel-deletion$/, (s, [ref], body) => [200, { key: kmsOf(s).cancelDeletion(ref!, accountIdOf(s, optionalString(body, 'account'))) }]],
  ['GET', /^kms\/keys\/(.+)$/, (s, [ref], _b, q) => [200, { key: kmsOf(s).describe(ref!, accountIdOf(s, q.get('account') ?? undefined)) }]],
  ['PUT', /^kms\/aliases\/(.+)$/, (s, [name], body) => [200, { key: kmsOf(s).putAlias(accountIdOf(s, optionalString(body, 'account')), name!, stringField(body, 'keyId')) }]],
  ['DELETE', /^kms\/aliases\/(.+)$/, (s, [name], _b, q) => {
    kmsOf(s).deleteAlias(accountIdOf(s, q.get('account') ?? undefined), name!);
    return [200, { deleted: name }];
  }],
];

function kmsOf(s: AdminServices): KeyRegistry {
  if (!s.kms) throw new AdminError(501, 'NotImplemented', 'this server runs no key service');
  return s.kms;
}

/** The account id of an account named by display name (root when absent). */
function accountIdOf(s: AdminServices, name: string | undefined): string {
  if (name === undefined || name === 'root') return s.accounts.root.account.accountId;
  const found = s.accounts.list().find((a) => a.displayName === name);
  if (!found) throw new AdminError(404, 'NoSuchAccount', `no account '${name}'`);
  return found.accountId;
}

async function info(s: AdminServices): Promise<[number, unknown]> {
  const readiness = await s.health.readiness();
  return [200, {
    version: VERSION,
    uptimeSeconds: Math.round((Date.now() - s.health.startedAt) / 1000),
    dataDir: s.config.dataDir,
    disk: readiness.disk,
    ready: readiness.ready,
    degraded: readiness.degraded,
    formatVersions: { segments: FORMAT_VERSION, index: INDEX_FORMAT_VERSION },
    durability: s.config.durability,
    region: s.config.region,
  }];
}

function existingBucket(s: AdminServices, bucket: string): void {
  if (!s.store.getBucket(bucket)) throw new AdminError(404, 'NoSuchBucket', `no bucket '${bucket}'`);
}

async function usageOf(s: AdminServices, bucket: string): Promise<Json> {
  existingBucket(s, bucket);
  return {
    bucket,
    ...(await bucketUsage(s.store, bucket)),
    versions: await versionCount(s.store, bucket),
    incompleteUploads: await incompleteUploadCount(s.store, bucket),
    quota: s.quotas.get(bucket) ?? null,
  };
}

function stringField(body: Json, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v === '') throw new AdminError(400, 'InvalidArgument', `'${name}' must be a non-empty string`);
  return v;
}

function optionalString(body: Json, name: string): string | undefined {
  return body[name] === undefined || body[name] === null ? undefined : stringField(body, name);
}

function countField(body: Json, name: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new AdminError(400, 'InvalidArgument', `'${name}' must be a non-negative integer`);
  return v;
}

function send(ex: Exchange, s: AdminServices, status: number, body: unknown): void {
  const origin = ex.head.headers['origin'];
  const cors = origin !== undefined && s.consoleOrigins?.().includes(origin) ? consoleCorsHeaders(origin) : [];
  const headers: ResponseHeaders = [['Content-Type', 'application/json'], ['Cache-Control', 'no-store'], ['Server', s.config.serverHeader], ...cors];
  ex.send(status, headers, JSON.stringify(body), !ex.bodyEnded);
}

async function readJson(ex: Exchange, expectedSha256: string | undefined): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (let c = await ex.nextBodyChunk(); c; c = await ex.nextBodyChunk()) {
    size += c.length;
    if (size > MAX_BODY) throw new AdminError(413, 'EntityTooLarge', `admin request bodies are at most ${MAX_BODY} bytes`);
    chunks.push(c);
  }
  const raw = Buffer.concat(chunks);
  const actual = createHash('sha256').update(raw).digest('hex');
  if (expectedSha256 !== actual) throw new AdminError(400, 'XAmzContentSHA256Mismatch', 'the body must be signed: x-amz-content-sha256 is its SHA-256');
  if (raw.length === 0) return {};
  try {
    const parsed = JSON.parse(raw.toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Json;
  } catch {
    throw new AdminError(400, 'MalformedJSON', 'the body must be a JSON object');
  }
}

/** The admin API's request handler. */
export function adminHandler(s: AdminServices): (ex: Exchange) => Promise<void> {
  return async (ex) => {
    try {
      const head = ex.head;
      const auth = authenticate(head, {
        region: s.config.region,
        acceptAnyRegion: s.config.acceptAnyRegion,
        clockSkewMs: s.config.clockSkewMs,
        now: Date.now(),
        // only the root key administers (issue 13 §6)
        lookupKey: (ak) => (ak === s.accounts.root.accessKeyId ? { secretKey: s.accounts.root.secretAccessKey } : undefined),
      });
      if (auth.kind !== 'signed' || auth.presigned) throw new AdminError(403, 'AccessDenied', 'sign admin requests with the root key (SigV4 Authorization header)');
      // opsRoutes hands over everything under /tusk/admin/; only this version's paths route, whole
      // (every pattern is anchored, and none matches the empty path)
      const path = head.rawPath.startsWith(ADMIN_API_PREFIX) ? head.rawPath.slice(ADMIN_API_PREFIX.length) : '';
      for (const [method, pattern, route] of ROUTES) {
        const m = pattern.exec(path);
        if (!m) continue;
        if (method !== head.method) continue;
        const params = m.slice(1).map((p) => decodeURIComponent(p));
        const body = await readJson(ex, auth.payload.kind === 'sha256' ? auth.payload.expectedHex : undefined);
        const [status, result] = await route(s, params, body, new URLSearchParams(head.rawQuery));
        send(ex, s, status, result);
        return;
      }
      const known = ROUTES.some(([, pattern]) => pattern.test(path));
      throw known
        ? new AdminError(405, 'MethodNotAllowed', `${head.method} is not allowed on ${head.rawPath}`)
        : new AdminError(404, 'NoSuchRoute', `no admin route ${head.method} ${head.rawPath}`);
    } catch (e) {
      if (e instanceof AbortedError || ex.aborted) return;
      if (e instanceof AdminError) send(ex, s, e.status, { error: e.code, message: e.message });
      else if (e instanceof S3Error) send(ex, s, e.status, { error: e.code, message: e.message });
      else if (e instanceof KmsError) {
        const status = { NotFound: 404, Conflict: 409, Invalid: 400, Disabled: 409, PendingDeletion: 409, AccessDenied: 403 }[e.kind];
        send(ex, s, status, { error: e.kind, message: e.message });
      } else if (e instanceof AccountError) {
        send(ex, s, { 'not-found': 404, conflict: 409, invalid: 400 }[e.kind], { error: e.kind, message: e.message });
      } else if (e instanceof URIError) send(ex, s, 400, { error: 'InvalidURI', message: 'bad percent-encoding in the path' });
      else {
        s.log(`admin ${ex.head.method} ${ex.head.rawPath}: internal error: ${(e as Error).stack ?? e}`, 'error');
        if (!ex.responded) send(ex, s, 500, { error: 'InternalError', message: 'internal error (see the server log)' });
      }
    }
  };
}
