// Drives the S3 handlers in-process: a fake uWS response records what the Exchange writes, and a
// real store in a temp dir answers. For golden-string tests of the rendered responses.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessKey, Accounts } from '../../../../src/identity/accounts.js';
import { loadConfig } from '../../../../src/config/config.js';
import { joinHeaders, type RequestHead } from '../../../../src/http/request-head.js';
import { parseQuery } from '../../../../src/s3/query.js';
import { UwsExchange } from '../../../../src/http/uws.js';
import type { Principal } from '../../../../src/s3/access.js';
import type { S3Context } from '../../../../src/s3/context.js';
import { dispatch } from '../../../../src/s3/pipeline/dispatch.js';
import { S3Error } from '../../../../src/s3/errors/errors.js';
import { sendError } from '../../../../src/s3/respond.js';
import { classify, resolveResource } from '../../../../src/s3/router.js';
import { s3Services } from '../../../../src/s3/pipeline/service.js';
import { openStore } from '../../../../src/store/index.js';
import type { S3Bucket, S3ObjectAttrs, S3PartAttrs, S3Store } from '../../../../src/s3/object-attrs.js';

export interface Recorded {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Enough of uWS's HttpResponse for Exchange.send/sendHead/stream. */
class FakeResponse {
  status = 0;
  headers: Array<[string, string]> = [];
  body: Buffer[] = [];
  done: (() => void) | undefined;
  private dataHandler: ((ab: ArrayBuffer, last: boolean) => void) | undefined;
  cork(cb: () => void) { cb(); return this; }
  onAborted() { return this; }
  onData(h: (ab: ArrayBuffer, last: boolean) => void) { this.dataHandler = h; return this; }
  feed(body: Buffer) {
    const ab = body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer;
    this.dataHandler?.(ab, true);
  }
  writeStatus(s: string) { this.status = Number(s.split(' ')[0]); return this; }
  /** uWS writes `k: v CRLF`; the fields are read back as a client reads the head (one call may carry several) */
  writeHeader(k: string, v: string) {
    for (const line of `${k}: ${v}`.split('\r\n')) {
      const colon = line.indexOf(': ');
      this.headers.push([line.slice(0, colon), line.slice(colon + 2)]);
    }
    return this;
  }
  end(b?: Uint8Array | string) { if (b !== undefined) this.body.push(Buffer.from(b)); this.done?.(); return this; }
  endWithoutBody() { this.done?.(); return this; }
  tryEnd(chunk: Uint8Array, total: number): [boolean, boolean] {
    this.body.push(Buffer.from(chunk));
    const n = this.body.reduce((a, b) => a + b.length, 0);
    if (n >= total) this.done?.();
    return [true, n >= total];
  }
  getWriteOffset() { return this.body.reduce((a, b) => a + b.length, 0); }
  onWritable() { return this; }
  close() { this.done?.(); return this; }
  pause() {}
  resume() {}
}

export const OWNER_ID = 'a'.repeat(64);

export interface Harness {
  store: S3Store;
  /** Runs one request as `principal` (the owner by default) and records the answer. */
  request(method: string, url: string, opts?: { headers?: Record<string, string>; body?: string; anonymous?: boolean }): Promise<Recorded>;
  close(): Promise<void>;
}

export async function openHarness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-harness-'));
  const store = await openStore<S3ObjectAttrs, S3PartAttrs, S3Bucket>({ dataDir: dir, durability: 'relaxed' });
  const account = { accountId: '123456789012', canonicalId: OWNER_ID, displayName: 'owner' };
  const key: AccessKey = {
    accessKeyId: 'AKOWNER',
    secretAccessKey: 'secret',
    account,
    capabilities: new Set(['create_bucket', 'delete_bucket', 'write', 'read']),
  };
  const accounts: Accounts = {
    root: key,
    lookup: (ak) => (ak === key.accessKeyId ? key : undefined),
    byCanonicalId: (id) => (id === OWNER_ID ? account : undefined),
  };
  const config = loadConfig(['--data-dir', dir], {});
  const services = s3Services(store, accounts, config);
  let n = 0;
  return {
    store,
    async request(method, url, opts = {}) {
      const [rawPath, rawQuery = ''] = url.split('?') as [string, string?];
      const body = Buffer.from(opts.body ?? '');
      const list: Array<readonly [string, string]> = [['host', '127.0.0.1:9000']];
      for (const [k, v] of Object.entries(opts.headers ?? {})) list.push([k.toLowerCase(), v]);
      if (body.length) list.push(['content-length', String(body.length)]);
      const head: RequestHead = { method, rawPath, rawQuery, headerList: list, headers: joinHeaders(list) };
      const res = new FakeResponse();
      const finished = new Promise<void>((resolve) => (res.done = resolve));
      const ex = new UwsExchange(res as never, head);
      const ids = { requestId: `REQ${String(++n).padStart(13, '0')}`, hostId: 'HOSTID' };
      const principal: Principal = opts.anonymous ? { kind: 'anonymous' } : { kind: 'key', key };
      try {
        const resource = resolveResource(head, services.domains);
        const query = parseQuery(rawQuery);
        const route = classify(method, resource, query, head.headers);
        const auth = opts.anonymous
          ? ({ kind: 'anonymous' } as const)
          : ({
              kind: 'signed', accessKeyId: key.accessKeyId, presigned: false, payload: { kind: 'unsigned' },
              signingKey: Buffer.alloc(32), scope: '', requestTime: '', seedSignature: '', hoistedHeaders: {},
            } as const);
        const ctx: S3Context = { services, ex, head, headers: head.headers, query, resource, route, auth, principal, summary: { requestId: ids.requestId, operation: route.op, startedAt: performance.now() }, ...ids };
        const running = dispatch(ctx);
        if (body.length) res.feed(body);
        await running;
      } catch (e) {
        if (!(e instanceof S3Error)) throw e;
        sendError(ex, ids, config.serverHeader, e, false);
      }
      await finished;
      return { status: res.status, headers: res.headers, body: Buffer.concat(res.body).toString() };
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
