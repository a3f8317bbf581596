// A real browser against the store (issue 12 acceptance): Debian's headless Chromium driven by
// playwright-core loads a page from another origin that uploads with a presigned PUT and with a
// POST form, lists and downloads with fetch; a page from an origin the CORS rules do not allow is
// refused. The test asserts on what the page reports and on what the store holds.

import { GetObjectCommand, ListObjectsV2Command, PutBucketCorsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { signPostPolicy } from './helpers/post-form.js';
import { makeTempDir } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const ctx = useTusk();

/** The page: runs the steps it is given and reports each outcome in window.__report. */
const PAGE_SCRIPT = String.raw`
async function step(name, fn) {
  try { window.__report[name] = await fn(); }
  catch (e) { window.__report[name] = { error: String(e && e.name || e) }; }
}
async function run(cfg) {
  window.__report = {};
  await step('put', async () => {
    const r = await fetch(cfg.putUrl, { method: 'PUT', body: 'written by a presigned PUT', headers: { 'content-type': 'text/plain' } });
    return r.ok ? { status: r.status, etag: r.headers.get('etag') } : { status: r.status, body: await r.text() };
  });
  await step('post', async () => {
    const form = new FormData();
    for (const [k, v] of cfg.postFields) form.append(k, v);
    form.append('file', new Blob(['written by a POST form'], { type: 'text/plain' }), 'form.txt');
    const r = await fetch(cfg.bucketUrl, { method: 'POST', body: form });
    const xml = new DOMParser().parseFromString(await r.text(), 'application/xml');
    return { status: r.status, key: xml.querySelector('Key')?.textContent ?? null, etag: r.headers.get('etag') };
  });
  await step('list', async () => {
    const r = await fetch(cfg.listUrl);
    const xml = new DOMParser().parseFromString(await r.text(), 'application/xml');
    return { status: r.status, keys: [...xml.querySelectorAll('Contents > Key')].map((k) => k.textContent) };
  });
  await step('download', async () => {
    const r = await fetch(cfg.getUrl);
    return { status: r.status, text: await r.text() };
  });
  window.__done = true;
}
`;

function pageHtml(config: unknown): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>upload</title></head><body>
<script>${PAGE_SCRIPT}; run(${JSON.stringify(config)});</script></body></html>`;
}

let pageConfig: unknown;
function startPageServer(): Promise<Server> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(pageHtml(pageConfig));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const originOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

describe.skipIf(!existsSync(CHROMIUM))('headless Chromium', () => {
  let allowed: Server;
  let refused: Server;
  let browser: BrowserContext;
  let profile: string;
  const bucket = bucketName('web');

  beforeAll(async () => {
    allowed = await startPageServer();
    refused = await startPageServer();
    profile = makeTempDir('tusk-chromium-');
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    expect((await s3Request(ctx.server, { method: 'PUT', bucket })).status).toBe(200);
    await s3Client(ctx.server).send(new PutBucketCorsCommand({
      Bucket: bucket,
      CORSConfiguration: {
        CORSRules: [{ AllowedOrigins: [originOf(allowed)], AllowedMethods: ['GET', 'PUT', 'POST', 'HEAD'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'], MaxAgeSeconds: 60 }],
      },
    }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    allowed?.close();
    refused?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function configFor(prefix: string) {
    // a presigned PUT cannot carry a checksum of a body the page chooses later
    const client = s3Client(ctx.server, { requestChecksumCalculation: 'WHEN_REQUIRED' });
    return {
      bucketUrl: `${ctx.server.endpoint}/${bucket}`,
      putUrl: await getSignedUrl(client, new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/put.txt`, ContentType: 'text/plain' }), { expiresIn: 300 }),
      postFields: signPostPolicy(ctx.server, [{ bucket }, ['starts-with', '$key', `${prefix}/`], { success_action_status: '201' }, ['content-length-range', 1, 1024]], [
        ['key', `${prefix}/\${filename}`],
        ['success_action_status', '201'],
      ]),
      listUrl: await getSignedUrl(client, new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }), { expiresIn: 300 }),
      getUrl: await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/put.txt` }), { expiresIn: 300 }),
    };
  }

  async function runPage(origin: string, config: unknown): Promise<Record<string, Record<string, unknown>>> {
    pageConfig = config;
    const page = await browser.newPage();
    try {
      await page.goto(origin + '/');
      await page.waitForFunction(() => (globalThis as unknown as { __done?: boolean }).__done === true, undefined, { timeout: 30_000 });
      return await page.evaluate(() => (globalThis as unknown as { __report: Record<string, Record<string, unknown>> }).__report);
    } finally {
      await page.close();
    }
  }

  it('a page from an allowed origin uploads (presigned PUT and POST form), lists and downloads', async () => {
    const report = await runPage(originOf(allowed), await configFor('allowed'));
    expect(report['put']).toMatchObject({ status: 200 });
    expect(report['put']!['etag']).toMatch(/^"[0-9a-f]{32}"$/);
    expect(report['post']).toMatchObject({ status: 201, key: 'allowed/form.txt' });
    expect(report['post']!['etag']).toMatch(/^"[0-9a-f]{32}"$/);
    expect(report['list']).toEqual({ status: 200, keys: ['allowed/form.txt', 'allowed/put.txt'] });
    expect(report['download']).toEqual({ status: 200, text: 'written by a presigned PUT' });
    const put = await s3Request(ctx.server, { method: 'GET', bucket, key: 'allowed/put.txt' });
    expect(put.text()).toBe('written by a presigned PUT');
    expect(put.headers['content-type']).toBe('text/plain');
    expect(`"${put.headers['etag']?.replace(/"/g, '')}"`).toBe(report['put']!['etag']);
    expect((await s3Request(ctx.server, { method: 'GET', bucket, key: 'allowed/form.txt' })).text()).toBe('written by a POST form');
  });

  it('a page from another origin is refused by the browser, and the store holds nothing of it', async () => {
    const report = await runPage(originOf(refused), await configFor('refused'));
    // the preflight of the PUT is answered 403, and the other answers carry no Allow-Origin: fetch fails
    for (const step of ['put', 'post', 'list', 'download']) expect(report[step], step).toEqual({ error: 'TypeError' });
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'refused/put.txt' })).status).toBe(404);
    // a simple (non-preflighted) multipart POST is sent although the page cannot read the answer
    // (CORS guards reading, not sending; S3 behaves the same): the signed form's upload is stored
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'refused/form.txt' })).status).toBe(200);
  });
});
