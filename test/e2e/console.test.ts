// The web console (issue 36): its listener (static files under a strict Content-Security-Policy,
// /config.json), the S3 face's CORS for its origin only, and Debian's headless Chromium driven by
// playwright-core through the real console against this real server, finding every control by its
// role and accessible name. The run also takes the README's screenshots (docs/console-*.png).

import { GetBucketLifecycleConfigurationCommand, GetBucketPolicyCommand, PutBucketLifecycleConfigurationCommand, GetBucketVersioningCommand, GetObjectCommand, HeadObjectCommand, ListBucketsCommand, ListObjectsV2Command, ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/child-process.js';
import { s3Client } from './helpers/clients.js';
import { makeTempDirFixture, md5OfFile, writeGeneratedFile } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { publisherOf } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const BIG = 100 * 1024 * 1024;
const SHARE_SECONDS = 4;
/** The page's HTMLImageElement, as far as the test reads it (the tests compile without the DOM library). */
type PageImage = { complete: boolean; naturalWidth: number; naturalHeight: number };
const ctx = useTusk({ consoleListen: '127.0.0.1:0', publisherListen: '127.0.0.1:0', extraArgs: ['--n-shards', '10'] });
const dirs = makeTempDirFixture();
afterAll(() => dirs.remove());

function consoleUrl(): string {
  const m = /console on (http:\/\/127\.0\.0\.1:\d+)/.exec(ctx.server.startOutput);
  if (!m) throw new Error(`no console line in:\n${ctx.server.output()}`);
  return m[1]!;
}

describe('console listener', () => {
  it('serves the built page under a strict CSP, and config.json naming the S3 endpoint', async () => {
    const page = await fetch(consoleUrl() + '/');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(csp).toContain(`connect-src 'self' ${ctx.server.endpoint}`);
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<style>|https?:\/\//);
    const config = (await (await fetch(consoleUrl() + '/config.json')).json()) as { s3: { host: string; port: number } };
    expect(config.s3).toEqual({ scheme: 'http', host: '127.0.0.1', port: ctx.server.port });
  });

  it('serves nothing outside its build', async () => {
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/assets/%2e%2e/%2e%2e/package.json', '/nope.js']) {
      expect((await fetch(consoleUrl() + path)).status, path).toBe(404);
    }
    expect((await fetch(consoleUrl() + '/', { method: 'POST' })).status).toBe(405);
  });

  it("S3 answers CORS for the console's origin and for no other", async () => {
    const preflight = (origin: string) =>
      fetch(ctx.server.endpoint + '/', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-amz-date' },
      });
    const allowed = await preflight(consoleUrl());
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(consoleUrl());
    expect(allowed.headers.get('access-control-allow-headers')).toBe('authorization, x-amz-date');
    expect((await preflight('http://127.0.0.1:1')).status).toBe(403);
    // an actual request: the answer (an error here) carries the headers for the console only
    const get = (origin: string) => fetch(ctx.server.endpoint + '/', { headers: { origin } });
    expect((await get(consoleUrl())).headers.get('access-control-allow-origin')).toBe(consoleUrl());
    expect((await get('http://evil.test')).headers.get('access-control-allow-origin')).toBeNull();
    const health = await fetch(ctx.server.endpoint + '/tusk/health/ready', { headers: { origin: consoleUrl() } });
    expect(health.headers.get('access-control-allow-origin')).toBe(consoleUrl());
  });
});

describe.skipIf(!existsSync(CHROMIUM))('console in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const bucket = `console-${Date.now().toString(36)}`;
  const problems: string[] = [];
  // the README's pictures come from the one-thread run only: the threads-4 project runs this file
  // at the same time and would write the same files
  const shot = async (name: string) => {
    if (process.env.TUSK_THREADS === '1') await page.screenshot({ path: join(REPO_ROOT, 'docs', `console-${name}.png`) });
  };

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    // no CSP violation, no script error, and no request anywhere but this machine's listeners
    page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('request', (r) => !r.url().startsWith('http://127.0.0.1:') && !r.url().startsWith('blob:') && problems.push(`request to ${r.url()}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('signs in with the keyboard alone, keeping the secret in sessionStorage only', async () => {
    await page.goto(consoleUrl() + '/');
    await page.getByRole('heading', { name: 'Sign in to Tusk' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type(ctx.server.root.accessKeyId);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ctx.server.root.secretAccessKey);
    await shot('sign-in');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Buckets' }).waitFor();
    const stored = await page.evaluate('({ session: sessionStorage.length, local: localStorage.length, cookies: document.cookie })');
    expect(stored).toEqual({ session: 1, local: 0, cookies: '' });
  });

  it('creates a bucket, uploads three files (one of 100 MiB, in parts) with progress, downloads it intact', async () => {
    await page.getByLabel('New bucket name').fill(bucket);
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('link', { name: bucket, exact: true }).click();
    await page.getByRole('heading', { name: bucket }).waitFor();
    const big = join(dirs.path, 'big.bin');
    const bigMd5 = await writeGeneratedFile(big, BIG);
    writeFileSync(join(dirs.path, 'hello.txt'), 'hello from the console\n');
    writeFileSync(join(dirs.path, 'data.json'), '{"a":1}\n');
    await page.getByLabel('Upload files').setInputFiles([join(dirs.path, 'hello.txt'), join(dirs.path, 'data.json'), big]);
    const bar = page.getByRole('progressbar', { name: 'Upload of big.bin' });
    await bar.waitFor();
    // progress is shown while the parts go up, then the bar is full
    await expect.poll(async () => Number(await bar.getAttribute('value')), { timeout: 60_000 }).toBeGreaterThan(0);
    await expect.poll(async () => Number(await bar.getAttribute('value')), { timeout: 90_000 }).toBe(BIG);
    await page.getByRole('link', { name: 'Details of big.bin' }).waitFor();
    await page.getByRole('link', { name: 'Details of hello.txt' }).waitFor();
    await page.getByRole('link', { name: 'Details of data.json' }).waitFor();
    await shot('objects');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download big.bin' }).click()]);
    expect(download.suggestedFilename()).toBe('big.bin');
    const saved = join(dirs.path, 'downloaded.bin');
    await download.saveAs(saved);
    expect(await md5OfFile(saved)).toBe(bigMd5);
    rmSync(saved);
    rmSync(big);
  }, 150_000);

  it('searches by prefix, opens a folder and shares a link that works in a fresh context until its expiry', async () => {
    const search = page.getByLabel('Search by prefix');
    await search.fill('da');
    await page.getByRole('caption').filter({ hasText: '0 folder(s), 1 object(s)' }).waitFor();
    await page.getByRole('link', { name: 'Details of data.json' }).waitFor();
    await search.fill('');
    await page.getByRole('caption').filter({ hasText: '0 folder(s), 3 object(s)' }).waitFor();
    await page.getByLabel('New folder name').fill('docs');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('link', { name: 'Open folder docs/' }).click();
    await page.getByRole('heading', { name: `${bucket}/docs/` }).waitFor();
    writeFileSync(join(dirs.path, 'note.txt'), 'first version\n');
    await page.getByLabel('Upload files').setInputFiles(join(dirs.path, 'note.txt'));
    await page.getByRole('link', { name: 'Details of note.txt' }).click();
    await page.getByRole('heading', { name: 'docs/note.txt' }).waitFor();
    await page.getByLabel('Link expires in (seconds)').fill(String(SHARE_SECONDS));
    await page.getByRole('button', { name: 'Create share link' }).click();
    const created = Date.now();
    const link = await page.getByLabel('Share link').inputValue();
    expect(link.startsWith(ctx.server.endpoint)).toBe(true);
    const fresh = await browser.newContext();
    try {
      const first = await fresh.request.get(link);
      if (Date.now() - created < SHARE_SECONDS * 1000) {
        expect(first.status()).toBe(200);
        expect(await first.text()).toBe('first version\n');
      }
      await new Promise((r) => setTimeout(r, Math.max(0, created + SHARE_SECONDS * 1000 + 1500 - Date.now())));
      const late = await fresh.request.get(link);
      expect(late.status()).toBe(403);
      expect(await late.text()).toContain('<Code>AccessDenied</Code>');
    } finally {
      await fresh.close();
    }
  }, 60_000);

  it('previews an image, a text, and a video the browser streams from a presigned URL by ranges; deletes two objects at once', async () => {
    await page.getByRole('navigation', { name: 'Folder path' }).getByRole('link', { name: 'docs', exact: true }).click();
    await page.getByRole('heading', { name: `${bucket}/docs/` }).waitFor();
    // a real PNG: a corner of this page
    const picture = await page.screenshot({ clip: { x: 0, y: 0, width: 48, height: 32 } });
    const clip = randomBytes(64 * 1024);
    await page.getByLabel('Upload files').setInputFiles([
      { name: 'picture.png', mimeType: 'image/png', buffer: picture },
      { name: 'clip.webm', mimeType: 'video/webm', buffer: clip },
    ]);
    await page.getByRole('link', { name: 'Details of picture.png' }).click();
    const img = page.getByRole('img', { name: 'Preview of picture.png' });
    await expect.poll(() => img.evaluate((el) => (({ complete, naturalWidth, naturalHeight }) => [complete, naturalWidth, naturalHeight])(el as unknown as PageImage))).toEqual([true, 48, 32]);
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    await shot('preview');

    await page.goBack();
    await page.getByRole('link', { name: 'Details of note.txt' }).click();
    expect(await page.getByLabel('Preview of note.txt').textContent()).toBe('first version\n');

    await page.goBack();
    const ranged = page.waitForRequest((r) => r.url().startsWith(`${ctx.server.endpoint}/${bucket}/docs/clip.webm?`) && r.headers()['range'] !== undefined);
    await page.getByRole('link', { name: 'Details of clip.webm' }).click();
    const src = (await page.getByLabel('Preview of clip.webm').getAttribute('src'))!;
    expect((await ranged).url()).toBe(src);
    // the same URL serves a range to anyone who has it
    const part = await fetch(src, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(clip.subarray(100, 200));

    // the picture and the video deleted at once (DeleteObjects)
    await page.goBack();
    await page.getByRole('checkbox', { name: 'Select picture.png' }).check();
    await page.getByRole('checkbox', { name: 'Select clip.webm' }).check();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete 2 selected' }).click();
    await page.getByText('2 object(s) deleted.').waitFor();
    await expect.poll(() => page.getByRole('link', { name: /^Details of (picture\.png|clip\.webm)$/ }).count()).toBe(0);
    const listed = await s3Client(ctx.server).send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'docs/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['docs/', 'docs/note.txt']);
  });

  it('uploads a folder from its picker, and a file dropped on the page, under the folder shown', async () => {
    const tree = join(dirs.path, 'tree');
    mkdirSync(join(tree, 'sub'), { recursive: true });
    writeFileSync(join(tree, 'a.txt'), 'a\n');
    writeFileSync(join(tree, 'sub', 'b.txt'), 'b\n');
    await page.getByLabel('Upload a folder').setInputFiles(tree);
    await page.getByRole('link', { name: 'Open folder tree/' }).waitFor();
    // what a drop of a file from the desktop hands the page
    const dropped = await page.evaluateHandle('(() => { const d = new DataTransfer(); d.items.add(new File(["dropped\\n"], "dropped.txt", { type: "text/plain" })); return d; })()');
    await page.getByRole('heading', { name: `${bucket}/docs/` }).dispatchEvent('drop', { dataTransfer: dropped });
    await page.getByRole('link', { name: 'Details of dropped.txt' }).waitFor();
    const client = s3Client(ctx.server);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'docs/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['docs/', 'docs/dropped.txt', 'docs/note.txt', 'docs/tree/a.txt', 'docs/tree/sub/b.txt']);
    const body = async (Key: string) => (await client.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body!.transformToString();
    expect([await body('docs/tree/sub/b.txt'), await body('docs/dropped.txt')]).toEqual(['b\n', 'dropped\n']);
  });

  it('turns versioning on, shows two versions of an object written twice, and deletes the older one', async () => {
    await page.getByRole('link', { name: bucket, exact: true }).click();
    await page.getByRole('link', { name: 'Bucket settings' }).click();
    await page.getByRole('button', { name: 'Enable versioning' }).click();
    await page.getByText('Versioning is enabled.').waitFor();
    expect((await s3Client(ctx.server).send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBe('Enabled');
    await page.getByRole('link', { name: `Objects of ${bucket}` }).click();
    await page.getByRole('link', { name: 'Open folder docs/' }).click();
    writeFileSync(join(dirs.path, 'note.txt'), 'second version\n');
    await page.getByLabel('Upload files').setInputFiles(join(dirs.path, 'note.txt'));
    await page.getByRole('listitem').filter({ hasText: 'note.txt' }).getByText('done').waitFor();
    await page.getByRole('link', { name: 'Details of note.txt' }).click();
    await page.getByRole('table').filter({ has: page.getByText('2 version(s)') }).waitFor();
    const versions = await s3Client(ctx.server).send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'docs/note.txt' }));
    expect(versions.Versions?.length).toBe(2);
    await shot('object');
    const older = versions.Versions!.find((v) => !v.IsLatest)!.VersionId!;
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Delete version ${older}` }).click();
    await page.getByRole('table').filter({ has: page.getByText('1 version(s)') }).waitFor();
    const left = await s3Client(ctx.server).send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'docs/note.txt' }));
    expect(left.Versions?.map((v) => v.VersionId)).toEqual([versions.Versions!.find((v) => v.IsLatest)!.VersionId]);
    expect(await page.getByLabel('Preview of note.txt').textContent()).toBe('second version\n');
  });

  it('adds a lifecycle rule and a policy, refusing a malformed one before sending it', async () => {
    // a rule the editor cannot show (noncurrent versions, a tag filter, disabled) must survive its saves
    const kept = {
      ID: 'old-versions',
      Filter: { And: { Prefix: 'tmp/', Tags: [{ Key: 'kind', Value: 'scratch' }] } },
      Status: 'Disabled' as const,
      NoncurrentVersionExpiration: { NoncurrentDays: 7 },
    };
    await s3Client(ctx.server).send(new PutBucketLifecycleConfigurationCommand({ Bucket: bucket, LifecycleConfiguration: { Rules: [kept] } }));
    await page.goto(`${consoleUrl()}/#/settings?bucket=${bucket}`);
    await page.getByRole('heading', { name: `Settings of ${bucket}` }).waitFor();
    await page.getByRole('cell', { name: 'old-versions', exact: true }).waitFor();
    await page.getByLabel('Rule name').fill('expire-logs');
    await page.getByLabel('Prefix').fill('logs/');
    await page.getByLabel('Expire after days').fill('30');
    await page.getByRole('button', { name: 'Add lifecycle rule' }).click();
    await page.getByRole('cell', { name: 'expire-logs', exact: true }).waitFor();
    const rules = (await s3Client(ctx.server).send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }))).Rules;
    expect(rules).toMatchObject([kept, { ID: 'expire-logs', Filter: { Prefix: 'logs/' }, Expiration: { Days: 30 }, Status: 'Enabled' }]);

    const policy = page.getByLabel('Policy JSON');
    await policy.fill('{"Statement": [');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Not valid JSON/);
    const doc = {
      Version: '2012-10-17',
      Statement: [{ Sid: 'PublicRead', Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/public/*` }],
    };
    await policy.fill(JSON.stringify(doc));
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Policy saved.').waitFor();
    const saved = (await s3Client(ctx.server).send(new GetBucketPolicyCommand({ Bucket: bucket }))).Policy!;
    expect(JSON.parse(saved)).toMatchObject(doc);
    await shot('settings');
  });

  it('shows readiness and a live chart of requests per second that moves under load', async () => {
    await page.getByRole('link', { name: 'Monitoring' }).click();
    await page.getByText('Readiness: ready').waitFor();
    const now = page.getByLabel('Requests per second now');
    // the chart has points once two readings of /tusk/metrics were taken
    await expect.poll(async () => (await page.locator('svg polyline').getAttribute('points'))?.split(' ').length ?? 0, { timeout: 20_000 }).toBeGreaterThan(1);
    // a bounded load (at most 15 s, one request at a time) until the page shows it
    const client = s3Client(ctx.server);
    let loading = true;
    const load = (async () => {
      for (const end = Date.now() + 15_000; loading && Date.now() < end; ) await client.send(new GetBucketVersioningCommand({ Bucket: bucket }));
    })();
    try {
      await expect.poll(async () => Number(await now.textContent()), { timeout: 15_000 }).toBeGreaterThan(5);
    } finally {
      loading = false;
      await load;
    }
    await shot('monitoring');
  }, 45_000);

  it('stores a file through the publisher on the Walrus page and reads it back', async () => {
    const { url: publisherUrl, key: endpointKey } = await publisherOf(ctx.server);
    await page.getByRole('link', { name: 'Walrus' }).click();
    await page.getByRole('heading', { name: 'Walrus' }).waitFor();
    writeFileSync(join(dirs.path, 'blob.txt'), 'a blob stored from the console\n');
    await page.getByLabel('Endpoint key').fill(endpointKey);
    await page.getByLabel('File to store').setInputFiles(join(dirs.path, 'blob.txt'));
    await page.getByRole('button', { name: 'Store blob' }).click();
    const blobId = (await page.getByRole('definition').locator('code').textContent())!;
    expect(blobId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.getByLabel('Blob ID to read').fill(blobId);
    await page.getByRole('button', { name: 'Read blob' }).click();
    expect(await page.getByLabel('Blob content').textContent()).toBe('a blob stored from the console\n');
    // the aggregator serves the same bytes to anyone
    expect(await (await fetch(`${publisherUrl}/v1/blobs/${blobId}`)).text()).toBe('a blob stored from the console\n');
    await shot('walrus');
  });

  it('creates an account and its key on the Identity page; that key sees no Identity page and gets no further than its rights', async () => {
    await page.getByRole('link', { name: 'Identity' }).click();
    await page.getByLabel('New account name').fill('alice');
    await page.getByRole('button', { name: 'Create account' }).click();
    const firstKeyId = (await page.getByLabel('New access key ID').textContent())!;
    const firstSecret = (await page.getByLabel('New secret access key').textContent())!;
    await page.getByRole('cell', { name: 'alice', exact: true }).waitFor();
    // a second key for the account, its secret shown once; both keys listed in its row
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'New key for alice' }).click();
    const accessKeyId = (await page.getByLabel('New access key ID').textContent())!;
    const secretAccessKey = (await page.getByLabel('New secret access key').textContent())!;
    expect(accessKeyId).not.toBe(firstKeyId);
    const aliceRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'alice', exact: true }) });
    await aliceRow.getByText(accessKeyId).waitFor();
    await aliceRow.getByText(firstKeyId).waitFor();
    await shot('identity');
    // the first key rotated (a new key in its place, the old one refused at once), then that one deleted
    const listWith = (keyId: string, secret: string) => s3Client(ctx.server, { credentials: { accessKeyId: keyId, secretAccessKey: secret } }).send(new ListBucketsCommand({}));
    await page.getByRole('button', { name: `Rotate key ${firstKeyId}` }).click();
    await page.getByText(`Key ${firstKeyId} rotated: its new key is below.`).waitFor();
    const rotatedId = (await page.getByLabel('New access key ID').textContent())!;
    const rotated = (await page.getByLabel('New secret access key').textContent())!;
    await aliceRow.getByText(rotatedId).waitFor();
    expect(await aliceRow.getByText(firstKeyId).count()).toBe(0);
    await listWith(rotatedId, rotated);
    await expect(listWith(firstKeyId, firstSecret)).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Delete key ${rotatedId}` }).click();
    await page.getByText(`Key ${rotatedId} deleted.`).waitFor();
    await expect.poll(() => aliceRow.getByText(rotatedId).count()).toBe(0);
    await expect(listWith(rotatedId, rotated)).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    // an account with no bucket deleted
    await page.getByLabel('New account name').fill('bob');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('cell', { name: 'bob', exact: true }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete account bob' }).click();
    await page.getByText('Account bob deleted.').waitFor();
    await expect.poll(() => page.getByRole('cell', { name: 'bob', exact: true }).count()).toBe(0);
    const other = await browser.newContext();
    try {
      const alice = await other.newPage();
      await alice.goto(consoleUrl() + '/');
      await alice.getByLabel('Access key ID').fill(accessKeyId);
      await alice.getByLabel('Secret access key').fill(secretAccessKey);
      const asked = alice.waitForResponse((r) => r.url().endsWith('/tusk/admin/v1/info'));
      await alice.getByRole('button', { name: 'Sign in' }).click();
      expect((await asked).status()).toBe(403);
      await alice.getByRole('heading', { name: 'Buckets' }).waitFor();
      await alice.getByRole('caption').filter({ hasText: '0 bucket(s)' }).waitFor();
      expect(await alice.getByRole('link', { name: 'Identity' }).count()).toBe(0);
      // root's bucket: its policy lets anyone read public/* only, so alice may not list it
      await alice.goto(`${consoleUrl()}/#/objects?bucket=${bucket}&prefix=`);
      await expect.poll(() => alice.getByRole('alert').textContent()).toMatch(/AccessDenied/);
      // nor write to it: the server refuses the upload, the page says so, nothing is stored
      await alice.getByLabel('Upload files').setInputFiles({ name: 'intruder.txt', mimeType: 'text/plain', buffer: Buffer.from('not yours\n') });
      await expect.poll(() => alice.getByRole('listitem').filter({ hasText: 'intruder.txt' }).getByRole('status').textContent()).toMatch(/^failed: AccessDenied/);
      await expect(s3Client(ctx.server).send(new HeadObjectCommand({ Bucket: bucket, Key: 'intruder.txt' }))).rejects.toMatchObject({ name: 'NotFound' });
      // nor reach the Identity page by its address
      await alice.goto(`${consoleUrl()}/#/identity`);
      await alice.getByText('Identity needs the root key.').waitFor();
      expect(await alice.getByLabel('New account name').count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('is usable at a phone width, without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${consoleUrl()}/#/objects?bucket=${bucket}&prefix=`);
    await page.getByRole('link', { name: 'Details of hello.txt' }).waitFor();
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow as number).toBeLessThanOrEqual(0);
    await shot('phone');
    expect(problems).toEqual([]);
  });
});
