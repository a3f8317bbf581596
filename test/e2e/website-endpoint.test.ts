// The static website endpoint (issue 37 §4; AWS *Hosting a static website using Amazon S3*): sites
// set up with the AWS SDK, read without credentials by plain curl and by Node's fetch. Index
// documents (root, folders, `dir` → `dir/`), the error document with the error's status, routing
// rules before and after the read, redirect-all, x-amz-website-redirect-location, Range and
// conditional GETs, and S3's HTML errors: a private object, a bucket without a website, no bucket,
// a method other than GET and HEAD. On both HTTP engines, the default one with a front-end thread.

import {
  CreateBucketCommand,
  DeletePublicAccessBlockCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketPolicyCommand,
  PutBucketWebsiteCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { LookupAddress } from 'node:dns';
import { Agent, fetch, type Response } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runProcess, s3Client } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const DOMAIN = 'web.test';
const WEBSITE_LINE = /website on http:\/\/127\.0\.0\.1:(\d+)/;

interface Answer {
  status: number;
  headers: Response['headers'];
  text: string;
}

/** Every host name is this machine: the sites' names go into the URL and Host as a browser sends them. */
const LOCAL = new Agent({
  connect: {
    lookup: (_host: string, options: { all?: boolean }, done: (e: Error | null, address: string | LookupAddress[], family?: number) => void) =>
      options.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4),
  },
});

/** A site's policy: anyone may read its objects and list it (so a missing key is a 404), except under private/. */
function publicPolicy(bucket: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: `arn:aws:s3:::${bucket}/*` },
      { Effect: 'Allow', Principal: '*', Action: ['s3:ListBucket'], Resource: `arn:aws:s3:::${bucket}` },
      { Effect: 'Deny', Principal: '*', Action: ['s3:GetObject'], Resource: `arn:aws:s3:::${bucket}/private/*` },
    ],
  });
}

/** What plain curl prints for `args` (silent, at most 5 s). */
async function curl(...args: string[]): Promise<string> {
  return (await runProcess('curl', ['-s', '--max-time', '5', ...args])).stdout.toString('utf8');
}

async function put(s3: S3Client, Bucket: string, Key: string, Body: string, extra: Partial<ConstructorParameters<typeof PutObjectCommand>[0]> = {}): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket, Key, Body, ContentType: 'text/html', ...extra }));
}

for (const engine of ['default', 'node'] as const) {
  // two front-end threads on the default engine (where its port can be shared), one thread on node's
  describe(`website endpoint (${engine} engine)`, () => {
    let server: TuskServer;
    let port: number;
    const site = bucketName('site');
    const closed = bucketName('closed');
    const moved = bucketName('moved');
    const plain = bucketName('plain');

    /** GET (or `method`) of http://`host`:port`path` without credentials by fetch (undici's, as Node's), redirects not followed. */
    async function web(host: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
      const res = await fetch(`http://${host}:${port}${path}`, { method: init.method ?? 'GET', headers: init.headers, body: init.body, redirect: 'manual', dispatcher: LOCAL });
      return { status: res.status, headers: res.headers, text: await res.text() };
    }

    beforeAll(async () => {
      server = await startTusk({
        extraArgs: ['--website-listen', '127.0.0.1:0', '--website-domain', DOMAIN, '--threads', engine === 'node' ? '1' : '2'],
        env: engine === 'node' ? { TUSK_HTTP_ENGINE: 'node' } : {},
      });
      port = Number(WEBSITE_LINE.exec(server.startOutput)![1]);
      const s3 = s3Client(server);
      for (const b of [site, closed, moved, plain]) await s3.send(new CreateBucketCommand({ Bucket: b }));
      await s3.send(new PutBucketWebsiteCommand({
        Bucket: site,
        WebsiteConfiguration: {
          IndexDocument: { Suffix: 'index.html' },
          ErrorDocument: { Key: 'error.html' },
          RoutingRules: [
            { Condition: { KeyPrefixEquals: 'old/' }, Redirect: { ReplaceKeyPrefixWith: 'new/', HttpRedirectCode: '302' } },
            { Condition: { HttpErrorCodeReturnedEquals: '404', KeyPrefixEquals: 'gone/' }, Redirect: { HostName: 'archive.example.com', Protocol: 'https' } },
          ],
        },
      }));
      await s3.send(new PutBucketPolicyCommand({ Bucket: site, Policy: publicPolicy(site) }));
      await put(s3, site, 'index.html', '<h1>home</h1>');
      await put(s3, site, 'error.html', '<h1>oops</h1>');
      await put(s3, site, 'docs/index.html', '<h1>docs</h1>');
      await put(s3, site, 'page.html', '0123456789');
      await put(s3, site, 'private/secret.html', 'secret');
      await put(s3, site, 'moved.html', '', { WebsiteRedirectLocation: '/page.html' });
      // no policy: nothing in it is readable anonymously, its error document (missing) included
      await s3.send(new PutBucketWebsiteCommand({ Bucket: closed, WebsiteConfiguration: { IndexDocument: { Suffix: 'index.html' }, ErrorDocument: { Key: 'error.html' } } }));
      await put(s3, closed, 'index.html', 'closed');
      // an object ACL alone can open one page (ACLs on: ObjectWriter)
      await s3.send(new PutBucketOwnershipControlsCommand({ Bucket: closed, OwnershipControls: { Rules: [{ ObjectOwnership: 'ObjectWriter' }] } }));
      await put(s3, closed, 'open.html', 'open', { ACL: 'public-read' });
      await s3.send(new PutBucketWebsiteCommand({ Bucket: moved, WebsiteConfiguration: { RedirectAllRequestsTo: { HostName: 'www.example.org', Protocol: 'https' } } }));
    }, 60_000);

    afterAll(async () => {
      await server?.dispose();
    });

    it('serves the index document to plain curl, at the root and in a folder, and redirects dir to dir/', async () => {
      const home = await curl('-i', '-H', `Host: ${site}.${DOMAIN}`, `http://127.0.0.1:${port}/`);
      expect(home).toMatch(/^HTTP\/1\.1 200 /);
      expect(home).toMatch(/content-type: text\/html/i);
      expect(home.endsWith('<h1>home</h1>')).toBe(true);
      expect((await web(`${site}.${DOMAIN}`, '/docs/')).text).toBe('<h1>docs</h1>');
      const folder = await web(`${site}.${DOMAIN}`, '/docs');
      expect(folder.status).toBe(302);
      expect(folder.headers.get('location')).toBe(`http://${site}.${DOMAIN}:${port}/docs/`);
      // a Host that is the bucket's name (CNAME style); query strings are not S3's parameters here
      expect((await web(site, '/page.html?versionId=x&v=3')).text).toBe('0123456789');
      // in the access log as AWS's server access logs name website reads (from a front-end thread too)
      await vi.waitFor(() => expect(server.stdout()).toMatch(/"op":"WEBSITE\.GET\.OBJECT".*"status":200/), { timeout: 5_000 });
    });

    it('answers a missing page with the error document and its 404, and a redirect rule to plain curl', async () => {
      const missing = await curl('-i', '-H', `Host: ${site}.${DOMAIN}`, `http://127.0.0.1:${port}/nope.html`);
      expect(missing).toMatch(/^HTTP\/1\.1 404 /);
      expect(missing.endsWith('<h1>oops</h1>')).toBe(true);
      const rule = await curl('-o', '/dev/null', '-w', '%{http_code} %{redirect_url}', '-H', `Host: ${site}.${DOMAIN}`, `http://127.0.0.1:${port}/old/a%20b.html`);
      expect(rule).toBe(`302 http://${site}.${DOMAIN}/new/a%20b.html`);
      // an error-code rule applies after the read, and only when its prefix matches too
      const gone = await web(`${site}.${DOMAIN}`, '/gone/x.html');
      expect(gone.status).toBe(301);
      expect(gone.headers.get('location')).toBe('https://archive.example.com/gone/x.html');
      expect((await web(`${site}.${DOMAIN}`, '/gone/x.html', { method: 'HEAD' })).status).toBe(301);
      // HEAD of a missing page: the error status, no body
      const head = await web(`${site}.${DOMAIN}`, '/nope.html', { method: 'HEAD' });
      expect([head.status, head.text]).toEqual([404, '']);
    });

    it('follows x-amz-website-redirect-location, and Range and conditional GETs as S3 does', async () => {
      const moved = await web(`${site}.${DOMAIN}`, '/moved.html');
      expect(moved.status).toBe(301);
      expect(moved.headers.get('location')).toBe('/page.html');
      const range = await web(`${site}.${DOMAIN}`, '/page.html', { headers: { range: 'bytes=2-4' } });
      expect([range.status, range.text, range.headers.get('content-range')]).toEqual([206, '234', 'bytes 2-4/10']);
      const etag = (await web(`${site}.${DOMAIN}`, '/page.html')).headers.get('etag')!;
      expect((await web(`${site}.${DOMAIN}`, '/page.html', { headers: { 'if-none-match': etag } })).status).toBe(304);
      expect((await web(`${site}.${DOMAIN}`, '/page.html', { headers: { 'if-match': '"nope"' } })).status).toBe(412);
    });

    it("answers S3's HTML errors: a private object, no website configuration, no bucket, a POST", async () => {
      // with an error document, a denied object gets it with 403
      const denied = await web(`${site}.${DOMAIN}`, '/private/secret.html');
      expect([denied.status, denied.text]).toEqual([403, '<h1>oops</h1>']);
      const closedPage = await web(`${closed}.${DOMAIN}`, '/');
      expect(closedPage.status).toBe(403);
      expect(closedPage.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(closedPage.text).toContain('<h1>403 Forbidden</h1>');
      expect(closedPage.text).toContain('<li>Code: AccessDenied</li>');
      expect(closedPage.text).not.toContain('closed');
      expect((await web(`${closed}.${DOMAIN}`, '/open.html')).text).toBe('open');
      // its error document cannot be read anonymously either: S3's page says so
      expect(closedPage.text).toContain('<h3>An Error Occurred While Attempting to Retrieve a Custom Error Document</h3>');
      const none = await curl('-i', '-H', `Host: ${plain}.${DOMAIN}`, `http://127.0.0.1:${port}/`);
      expect(none).toMatch(/^HTTP\/1\.1 404 /);
      expect(none).toContain('<li>Code: NoSuchWebsiteConfiguration</li>');
      expect(none).toContain(`<li>BucketName: ${plain}</li>`);
      const noBucket = await web(`nobucket-here.${DOMAIN}`, '/');
      expect(noBucket.status).toBe(404);
      expect(noBucket.text).toContain('<li>Code: NoSuchBucket</li>');
      const post = await web(`${site}.${DOMAIN}`, '/index.html', { method: 'POST', body: 'name=value' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
      expect(post.text).toContain('<li>Code: MethodNotAllowed</li>');
      // credentials change nothing: the website endpoint reads as anyone
      expect((await web(`${closed}.${DOMAIN}`, '/', { headers: { authorization: 'AWS4-HMAC-SHA256 Credential=x' } })).status).toBe(403);
    });

    it('redirects every request of a redirect-all site, and obeys the public access block', async () => {
      const all = await web(`${moved}.${DOMAIN}`, '/a/b.html');
      expect(all.status).toBe(301);
      expect(all.headers.get('location')).toBe('https://www.example.org/a/b.html');
      const s3 = s3Client(server);
      await s3.send(new PutPublicAccessBlockCommand({ Bucket: site, PublicAccessBlockConfiguration: { RestrictPublicBuckets: true } }));
      try {
        const blocked = await web(`${site}.${DOMAIN}`, '/page.html');
        expect(blocked.status).toBe(403);
      } finally {
        await s3.send(new DeletePublicAccessBlockCommand({ Bucket: site }));
      }
      expect((await web(`${site}.${DOMAIN}`, '/page.html')).status).toBe(200);
    });
  });
}
