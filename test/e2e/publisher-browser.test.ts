// A browser page on another origin stores a blob through the publisher and reads it back (issue 14:
// CORS for browser apps, as the Walrus daemon allows any origin). Headless Chromium from Debian
// (`chromium`, installed by scripts/setup.mjs --test) loads a page from a second local server; the
// page's PUT needs a CORS preflight, its GETs need Access-Control-Allow-Origin; it posts what it
// saw back to its own origin.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPublisherProcess, type PublisherProcess } from './helpers/publisher.js';
import { makeTempDir } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const RESULT_TIMEOUT_MS = 60_000;

interface PageResult {
  stored?: { status: number; blobId?: string };
  read?: { status: number; text: string };
  head?: { status: number; length: string | null };
  error?: string;
}

/** The page: store a text through the publisher, read it back whole, HEAD it, report to its origin. */
function page(publisherUrl: string, key: string, text: string): string {
  return `<!doctype html><meta charset="utf-8"><title>tusk browser test</title><script type="module">
const publisher = ${JSON.stringify(publisherUrl)};
const result = {};
try {
  const put = await fetch(publisher + '/' + ${JSON.stringify(key)} + '/v1/blobs?epochs=1', {
    method: 'PUT', body: ${JSON.stringify(text)}, headers: { 'content-type': 'text/plain' } });
  const json = await put.json();
  const blobId = json.newlyCreated?.blobObject.blobId ?? json.alreadyCertified?.blobId;
  result.stored = { status: put.status, blobId };
  const read = await fetch(publisher + '/v1/blobs/' + blobId);
  result.read = { status: read.status, text: await read.text() };
  const head = await fetch(publisher + '/v1/blobs/' + blobId, { method: 'HEAD' });
  result.head = { status: head.status, length: head.headers.get('content-length') };
} catch (e) {
  result.error = String(e);
}
await fetch('/result', { method: 'POST', body: JSON.stringify(result) });
</script>`;
}

describe('a browser page on another origin (headless Chromium)', () => {
  let pub: PublisherProcess;
  let site: Server;
  let browser: ChildProcess | undefined;
  let profile: string;
  const TEXT = 'stored from a browser page on another origin ✓';
  let resolveResult: (r: PageResult) => void;
  const result = new Promise<PageResult>((resolve) => (resolveResult = resolve));

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`node scripts/setup.mjs --test\` (Debian package chromium)`);
    pub = await startPublisherProcess({ nShards: 10 });
    profile = makeTempDir('tusk-chromium-');
    site = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/result') {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          res.end('ok');
          resolveResult(JSON.parse(body) as PageResult);
        });
        return;
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(page(pub.url, pub.endpointKey, TEXT));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    browser?.kill('SIGKILL');
    await new Promise<void>((resolve) => site?.close(() => resolve()));
    await pub?.dispose();
    rmSync(profile, { recursive: true, force: true });
  });

  it('stores a blob and reads it back through CORS', async () => {
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    expect(new URL(origin).origin).not.toBe(new URL(pub.url).origin);
    let log = '';
    browser = spawn(CHROMIUM, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, `${origin}/`], { stdio: ['ignore', 'pipe', 'pipe'] });
    browser.stdout!.on('data', (d) => (log += d));
    browser.stderr!.on('data', (d) => (log += d));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no result from the page:\n${log.slice(-3000)}`)), RESULT_TIMEOUT_MS)));
    const got = await Promise.race([result, timeout]).finally(() => clearTimeout(timer));
    expect(got.error).toBeUndefined();
    expect(got.stored?.status).toBe(200);
    expect(got.stored?.blobId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(got.read).toEqual({ status: 200, text: TEXT });
    expect(got.head).toEqual({ status: 200, length: String(Buffer.byteLength(TEXT)) });
  }, RESULT_TIMEOUT_MS + 10_000);
});
