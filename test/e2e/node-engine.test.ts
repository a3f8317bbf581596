// The node:http engine (src/http/node-engine.ts) through a real server process, whatever engine
// TUSK_HTTP_ENGINE gives the rest of the suite: HTTP as S3 answers it. Many headers up to the head
// limit are served and a larger head gets RequestHeaderSectionTooLarge at once; non-ASCII metadata
// round-trips as boto3 and the AWS SDK send it; `Expect: 100-continue` is granted only to an
// authenticated, authorized request; what the parser refuses gets the face's error (S3 XML with a
// RequestId, the publisher's JSON) and the connection closes; and no refused framing, nor an answer
// that closes the connection after an await, lets a request hidden after it run (request
// smuggling). Also: which engine `auto` takes, and why.

import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { uwsAvailability } from '../../src/http/uws-module.js';
import { runBoto3 } from './helpers/boto3.js';
import { REPO_ROOT } from './helpers/child-process.js';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { rawRequest } from './helpers/raw-http.js';
import { makeTempDir, publisherOf, randomCredentials, startTusk } from './helpers/server.js';
import { objectPath, signHeaders, UNSIGNED_PAYLOAD } from './helpers/sigv4.js';
import { expectS3Error, xmlText } from './helpers/xml.js';

const other = { displayName: 'other', ...randomCredentials('OTHR') };
const ctx = useTusk({
  env: { TUSK_HTTP_ENGINE: 'node' },
  extraAccounts: [other],
  publisherListen: '127.0.0.1:0',
  extraArgs: ['--n-shards', '10'],
});
const bucket = bucketName('nodeengine');

beforeAll(async () => {
  expect((await s3Request(ctx.server, { method: 'PUT', bucket })).status).toBe(200);
});

/** Writes `bytes` on a fresh connection; resolves with everything received once the server closes it (or after `ms`). */
function exchange(port: number, bytes: Buffer | string, ms = 5_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: received.toString('latin1'), closed });
    };
    const timer = setTimeout(() => done(false), ms);
    socket.on('data', (d: Buffer) => (received = Buffer.concat([received, d])));
    socket.on('close', () => done(true));
    socket.on('error', () => undefined);
    socket.on('connect', () => socket.write(bytes));
  });
}

/** The status codes of the responses in `text`, in order. */
function statuses(text: string): number[] {
  return [...text.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
}

/** The body of the first response in `text` (an S3 error's XML). */
function firstBody(text: string): string {
  const start = text.indexOf('\r\n\r\n') + 4;
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? 0);
  return text.slice(start, start + length);
}

async function absent(key: string): Promise<void> {
  expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key })).status, `${key} must not be stored`).toBe(404);
}

describe('engine choice', () => {
  it('names the engine and why at start-up', () => {
    expect(ctx.server.output()).toContain('http engine: node (asked for)');
  });

  it('auto takes uWS where a binary of it loads for this Node and C library, node:http otherwise; uws without one refuses to start', async () => {
    const uws = uwsAvailability();
    const auto = await startTusk({ env: { TUSK_HTTP_ENGINE: 'auto' } });
    try {
      if ('module' in uws) expect(auto.output()).toContain(`http engine: uws (${uws.build})`);
      else expect(auto.output()).toContain(`http engine: node (uWS: ${uws.reason})`);
    } finally {
      await auto.dispose();
    }
    if ('module' in uws) return;
    const dir = makeTempDir();
    try {
      const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'tusk.js'), 'serve', '--http-engine', 'uws', '--listen', '127.0.0.1:0', '--data-dir', dir, '--publisher-listen', 'off', '--console-listen', 'off'], {
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, TUSK_HTTP_ENGINE: '' },
      });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toContain(`http-engine uws: uWebSockets.js cannot load (${uws.reason})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('headers as S3 takes them', () => {
  it('round-trips boto3 put_object with 60 metadata entries, and non-ASCII metadata as botocore sends it', async () => {
    const out = await runBoto3(ctx.server, 'metadata.py', { BUCKET: bucketName('boto') });
    expect(out).toEqual({ ok: true, many: 60 });
  });

  it('round-trips metadata the AWS SDK for JavaScript sends as Latin-1 bytes (and signs as UTF-8)', async () => {
    const client = s3Client(ctx.server);
    const Metadata = { word: 'café', edge: 'é in the middle and at the end é' };
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'latin1-sdk', Body: 'x', Metadata }));
    expect((await client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'latin1-sdk' }))).Metadata).toEqual(Metadata);
  });

  it('answers a request with 300 header fields at once, with an S3 error', async () => {
    const started = performance.now();
    const res = await rawRequest({
      port: ctx.server.port,
      method: 'GET',
      target: `/${bucket}`,
      headers: Array.from({ length: 300 }, (_, i) => [`x-filler-${i}`, `value ${i}`] as [string, string]),
      timeoutMs: 5_000,
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expectS3Error(res, 403, 'AccessDenied');
  });

  it('refuses a head larger than 16 KiB with RequestHeaderSectionTooLarge and closes the connection', async () => {
    const res = await rawRequest({
      port: ctx.server.port,
      method: 'GET',
      target: `/${bucket}`,
      headers: Array.from({ length: 40 }, (_, i) => [`x-filler-${i}`, 'v'.repeat(500)] as [string, string]),
      timeoutMs: 5_000,
    });
    const err = expectS3Error(res, 400, 'RequestHeaderSectionTooLarge');
    expect(xmlText(err.xml, 'MaxSizeAllowed')).toBe('16384');
    expect(res.headers['connection']).toBe('close');
  });
});

describe('Expect: 100-continue', () => {
  /** A signed PUT head asking to continue; the body is never written. */
  function continueHead(key: string, credentials = ctx.server.root, tamper = false): string {
    const path = objectPath(bucket, key);
    const { headers } = signHeaders({
      method: 'PUT',
      path,
      headers: [['host', `127.0.0.1:${ctx.server.port}`], ['content-length', '5'], ['expect', '100-continue']],
      credentials,
      payloadHash: UNSIGNED_PAYLOAD,
    });
    const lines = headers.map(([n, v]) => `${n}: ${tamper && n === 'authorization' ? v.replace(/.$/, (c) => (c === '0' ? '1' : '0')) : v}`);
    return `PUT ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
  }

  it('answers a bad signature with 403 before the body, without 100 Continue, and closes', async () => {
    const { text, closed } = await exchange(ctx.server.port, continueHead('continue-bad-sig', ctx.server.root, true));
    expect(statuses(text)).toEqual([403]);
    expect(firstBody(text)).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(closed).toBe(true);
    await absent('continue-bad-sig');
  });

  it('answers a signed request of a key without access with 403 before the body', async () => {
    const { text, closed } = await exchange(ctx.server.port, continueHead('continue-denied', other));
    expect(statuses(text)).toEqual([403]);
    expect(firstBody(text)).toContain('<Code>AccessDenied</Code>');
    expect(closed).toBe(true);
    await absent('continue-denied');
  });

  it('grants it to an authorized request, which then sends its body', async () => {
    const socket = connect(ctx.server.port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    await new Promise((r) => socket.once('connect', r));
    socket.write(continueHead('continue-ok'));
    const until = async (pattern: RegExp) => {
      for (let i = 0; i < 100 && !pattern.test(received); i++) await new Promise((r) => setTimeout(r, 20));
      expect(received).toMatch(pattern);
    };
    await until(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    socket.write('hello');
    await until(/HTTP\/1\.1 200 OK/);
    socket.destroy();
    const got = await s3Request(ctx.server, { method: 'GET', bucket, key: 'continue-ok' });
    expect(got.text()).toBe('hello');
  });
});

describe('what the parser refuses', () => {
  it.each([
    ['Content-Length: -1', `PUT /${bucket}/k HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n`, 400, 'InvalidArgument'],
    ['a malformed request line', `GET /${bucket} HTTP/1.1 extra\r\nHost: h\r\n\r\n`, 400, 'BadRequest'],
    ['a request without Host', `GET /${bucket} HTTP/1.1\r\n\r\n`, 400, 'BadRequest'],
    ['an unknown method', `BREW /${bucket} HTTP/1.1\r\nHost: h\r\n\r\n`, 501, 'NotImplemented'],
    ['CONNECT', `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: h\r\n\r\n`, 501, 'NotImplemented'],
    ['a header name that is not a token', `GET /${bucket} HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n`, 400, 'BadRequest'],
  ])('answers %s with an S3 error and closes the connection', async (_, request, status, code) => {
    const { text, closed } = await exchange(ctx.server.port, request);
    expect(statuses(text)).toEqual([status]);
    const xml = firstBody(text);
    expect(xml).toContain(`<Code>${code}</Code>`);
    expect(xmlText(xml, 'RequestId')).toBe(/\r\nx-amz-request-id: ([0-9A-F]{16})\r\n/.exec(text)?.[1]);
    expect(text).toMatch(/\r\ncontent-type: application\/xml\r\n/i);
    expect(closed).toBe(true);
  });

  it('answers a malformed request to the publisher with its JSON error', async () => {
    const { url } = await publisherOf(ctx.server);
    const { text, closed } = await exchange(Number(new URL(url).port), 'GET /status HTTP/1.1 extra\r\nHost: h\r\n\r\n');
    expect(statuses(text)).toEqual([400]);
    expect(JSON.parse(firstBody(text))).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'MALFORMED_HTTP_REQUEST' }] } });
    expect(closed).toBe(true);
  });
});

describe('clients that stop', () => {
  it('answers a head unfinished after 10 s with RequestTimeout, drops an upload stalled for 20 s and stores nothing of it', async () => {
    const path = objectPath(bucket, 'stalled');
    const { headers } = signHeaders({
      method: 'PUT',
      path,
      headers: [['host', `127.0.0.1:${ctx.server.port}`], ['content-length', '100']],
      credentials: ctx.server.root,
      payloadHash: UNSIGNED_PAYLOAD,
    });
    const started = Date.now();
    const [head, upload] = await Promise.all([
      exchange(ctx.server.port, `GET /${bucket} HTTP/1.1\r\nHost: h\r\nx-slow: `, 30_000),
      exchange(ctx.server.port, `PUT ${path} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}`).join('\r\n')}\r\n\r\n0123456789`, 30_000),
    ]);
    expect(head.closed).toBe(true);
    expect(statuses(head.text)).toEqual([400]);
    expect(firstBody(head.text)).toContain('<Code>RequestTimeout</Code>');
    expect(upload.closed).toBe(true);
    expect(statuses(upload.text)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(25_000);
    await absent('stalled');
  }, 40_000);
});

describe('request smuggling', () => {
  /** A signed PUT of `key` with an empty body: stored if any server ever takes it for a request. */
  function hidden(key: string): string {
    const path = objectPath(bucket, key);
    const { headers } = signHeaders({
      method: 'PUT',
      path,
      headers: [['host', `127.0.0.1:${ctx.server.port}`], ['content-length', '0']],
      credentials: ctx.server.root,
      payloadHash: UNSIGNED_PAYLOAD,
    });
    return `PUT ${path} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}`).join('\r\n')}\r\n\r\n`;
  }

  const front = `PUT /${bucket}/front HTTP/1.1\r\nHost: h\r\n`;
  // each shape frames its body in a way RFC 9112 §6 forbids or leaves ambiguous; a lax parser would
  // take the hidden request for the next one on the connection
  const shapes: Array<[string, (h: string) => string]> = [
    ['two different Content-Lengths', (h) => `${front}Content-Length: 0\r\nContent-Length: ${h.length}\r\n\r\n${h}`],
    ['two equal Content-Lengths', (h) => `${front}Content-Length: ${h.length}\r\nContent-Length: ${h.length}\r\n\r\n${h}`],
    ['Content-Length beside chunked (CL.TE)', (h) => `${front}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${h}`],
    ['chunked beside Content-Length (TE.CL)', (h) => `${front}Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${(h.length + 2).toString(16)}\r\n\r\n${h}\r\n0\r\n\r\n`],
    ['chunked twice', (h) => `${front}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${h}`],
    ['a coding that is not chunked', (h) => `${front}Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n${h}`],
    ['Transfer-Encoding folded over two lines', (h) => `${front}Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n${h}`],
    ['a space before the colon', (h) => `${front}Content-Length : ${h.length}\r\n\r\n${h}`],
    ['a signed Content-Length', (h) => `${front}Content-Length: +${h.length}\r\n\r\n${h}`],
    ['a chunk size that is not hexadecimal', (h) => `${front}Transfer-Encoding: chunked\r\n\r\nzz\r\n${h}\r\n0\r\n\r\n`],
    ['a chunk longer than its size', (h) => `${front}Transfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n${h}`],
    ['lines ending in a bare LF', (h) => `PUT /${bucket}/front HTTP/1.1\nHost: h\nContent-Length: 0\n\n${h}`],
  ];

  it.each(shapes.map(([name, shape], i) => [name, shape, `smuggled-${i}`] as const))(
    'refuses %s, closes the connection, and never runs what follows',
    async (_, shape, key) => {
      const { text, closed } = await exchange(ctx.server.port, shape(hidden(key)));
      const answers = statuses(text);
      expect(answers).toHaveLength(1);
      expect(answers[0]).toBeGreaterThanOrEqual(400);
      expect(answers[0]).toBeLessThan(500);
      expect(closed).toBe(true);
      await absent(key);
      await absent('front');
    },
  );

  // node:http hands over a pipelined request before the one ahead of it is answered: an answer
  // that closes the connection, decided after an await (authentication, reading the body), came
  // too late to stop the request behind it (issue 30; RFC 9112 §9.6)
  it('never runs a request pipelined behind one answered with Connection: close after an await', async () => {
    const tooLong = (1 << 20) + 1;
    const path = `/${bucket}?tagging`;
    const { headers } = signHeaders({
      method: 'PUT',
      path: `/${bucket}`,
      query: 'tagging',
      // PutBucketTagging wants an integrity header before its length is looked at
      headers: [['host', `127.0.0.1:${ctx.server.port}`], ['content-length', String(tooLong)], ['content-md5', '1B2M2Y8AsgTpgAmY7PhCfg==']],
      credentials: ctx.server.root,
      payloadHash: UNSIGNED_PAYLOAD,
    });
    const outer = `PUT ${path} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}`).join('\r\n')}\r\n\r\n${'x'.repeat(tooLong)}`;
    const { text, closed } = await exchange(ctx.server.port, outer + hidden('smuggled-after-close'));
    expect(statuses(text)).toEqual([400]);
    expect(text).toContain('<Code>MaxMessageLengthExceeded</Code>');
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(closed).toBe(true);
    await absent('smuggled-after-close');
  });

  it('the check can pass: requests pipelined behind ones kept alive all run, answered in order', async () => {
    const keys = ['pipelined-1', 'pipelined-2', 'pipelined-3'];
    const { text } = await exchange(ctx.server.port, keys.map(hidden).join('') + `HEAD /${bucket}/pipelined-1 HTTP/1.1\r\nHost: h\r\n\r\n`, 2_000);
    // the anonymous HEAD of a private bucket's object comes last: 403 shows the order
    expect(statuses(text)).toEqual([200, 200, 200, 403]);
    for (const key of keys) expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key })).status).toBe(200);
  });

  it('the check can pass: the same hidden request, sent as a request of its own, is stored', async () => {
    const { text } = await exchange(ctx.server.port, hidden('smuggled-control'), 1_000);
    expect(statuses(text)).toEqual([200]);
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'smuggled-control' })).status).toBe(200);
  });
});
