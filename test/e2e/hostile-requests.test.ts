// Hostile traffic against both faces of one server (one thread, or four in the threads-4 pass, as
// TUSK_THREADS says): malformed paths, ids, ranges, queries and headers, bodies that lie about their
// length, that stop half-way or that are cut off, on 16 connections at once (TUSK_HOSTILE_CONCURRENCY), from a seeded
// generator (a failure names its seed, and TUSK_HOSTILE_SEED repeats it). No answer may be a 5xx,
// nothing may be logged at error level, on the node engine every request sent whole is answered,
// and afterwards the server still serves both faces. TUSK_HOSTILE_REQUESTS=100000 is the long run
// (README Testing); its figures are printed.

import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomBytes, rng } from '../unit/publisher/codec/vector-input.js';
import { publisherOf, startTusk, type TuskServer } from './helpers/server.js';

const SEED = Number(process.env.TUSK_HOSTILE_SEED ?? 20261128);
const REQUESTS = Number(process.env.TUSK_HOSTILE_REQUESTS ?? 1200);
// most of a run is spent waiting on requests that are owed no answer (TUSK_HOSTILE_CONCURRENCY=64 speeds a long run)
const CONCURRENCY = Number(process.env.TUSK_HOSTILE_CONCURRENCY ?? 16);

let server: TuskServer;
let publisherPort: number;
let key: string;
/** the server runs the node:http engine (its start-up line; the output kept later holds only the last lines) */
let nodeEngine: boolean;

beforeAll(async () => {
  server = await startTusk({ durability: 'relaxed', publisherListen: '127.0.0.1:0', extraArgs: ['--n-shards', '10'] });
  const publisher = await publisherOf(server);
  key = publisher.key;
  publisherPort = Number(new URL(publisher.url).port);
  nodeEngine = server.output().includes('http engine: node ');
});
afterAll(async () => {
  await server?.dispose();
});

/** Choices and bytes from seeded generators, so that a failing run can be repeated. */
function generator(seed: number) {
  const int = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const bytes = (n: number): Buffer => randomBytes(1 + int(0x7ffffffe), n);
  return { int, pick, bytes };
}

type Gen = ReturnType<typeof generator>;

function junk(g: Gen): string {
  return g.pick([
    '', 'A', '%', '%zz', '%00', '..', '../..', '%2e%2e', 'é', ' ', '-1', '0', '18446744073709551616', '{"a":1}', '*',
    'a'.repeat(g.int(6000)), g.bytes(g.int(48)).toString('base64url'), g.bytes(g.int(48)).toString('hex'),
  ]);
}

const blobId = (g: Gen): string => g.bytes(32).toString('base64url');

function publisherTarget(g: Gen): string {
  return g.pick([
    () => `/v1/blobs/${blobId(g)}`,
    () => `/v1/blobs/${junk(g)}`,
    () => `/v1/blobs/${blobId(g)}/byte-range?start=${junk(g)}&length=${junk(g)}`,
    () => `/v1alpha/blobs/${blobId(g)}/stream`,
    () => `/v1alpha/blobs/concat?ids=${blobId(g)},${junk(g)}`,
    () => `/v1alpha/blobs/concat?ids=${Array.from({ length: g.int(300) }, () => blobId(g)).join(',')}`,
    () => `/v1alpha/blobs/concat`,
    () => `/v1/blobs/by-quilt-patch-id/${junk(g)}`,
    () => `/v1/blobs/by-quilt-id/${blobId(g)}/${junk(g)}`,
    () => `/v1/quilts/${blobId(g)}/patches`,
    () => `/v1/blobs/by-object-id/${junk(g)}`,
    () => `/${key}/v1/blobs?epochs=${junk(g)}`,
    () => `/${key}/v1/blobs?${junk(g)}=${junk(g)}`,
    () => `/${key}/v1/quilts?epochs=1`,
    () => `/${key}/v1/blob-upload-relay?blob_id=${junk(g)}`,
    () => `/${junk(g)}/v1/blobs`,
    () => `/v1/blobs/${blobId(g)}?strict_consistency_check=${junk(g)}&skip_consistency_check=true`,
    () => `/${junk(g)}`,
    () => '/status',
    () => '/v1/api',
  ])();
}

function s3Target(g: Gen): string {
  return g.pick([
    () => '/',
    () => `/${junk(g)}`,
    () => `/bkt/${junk(g)}`,
    () => `/bkt/k?uploads`,
    () => `/bkt/k?partNumber=${junk(g)}&uploadId=${junk(g)}`,
    () => `/bkt?list-type=2&max-keys=${junk(g)}&continuation-token=${junk(g)}`,
    () => `/bkt?versions&key-marker=${junk(g)}&version-id-marker=${junk(g)}`,
    () => `/bkt/k?tagging`,
    () => `/bkt?delete`,
    () => `/bkt/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${junk(g)}&X-Amz-Date=${junk(g)}&X-Amz-Expires=${junk(g)}&X-Amz-SignedHeaders=host&X-Amz-Signature=${junk(g)}`,
    () => '/tusk/health/ready',
    () => `/tusk/admin/v1/${junk(g)}`,
  ])();
}

function headerLines(g: Gen): string[] {
  return Array.from({ length: g.int(6) }, () =>
    g.pick([
      () => `Range: bytes=${junk(g)}-${junk(g)}`,
      () => `Range: ${junk(g)}`,
      () => `Content-Type: ${junk(g)}`,
      () => `Authorization: ${g.pick(['AWS4-HMAC-SHA256 ', 'AWS ', 'Bearer ', ''])}${junk(g)}`,
      () => `x-amz-content-sha256: ${g.pick(['STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'UNSIGNED-PAYLOAD', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', junk(g)])}`,
      () => `x-amz-date: ${junk(g)}`,
      () => `x-amz-decoded-content-length: ${junk(g)}`,
      () => `Content-Encoding: ${junk(g)}`,
      () => `Content-MD5: ${junk(g)}`,
      () => `If-Match: ${junk(g)}`,
      () => `Origin: ${junk(g)}`,
      () => 'Expect: 100-continue',
    ])(),
  );
}

interface Outcome {
  status?: number;
  target: string;
  /** the whole request went out, its body as long as its head said: it is owed an answer */
  complete: boolean;
  /** the answer is uWS v20.57's own HTML page for what its parser refused (README Known limits) */
  uwsParserPage?: boolean;
}

/** One hostile request; resolves with the final status when one came (or none: closed, cut off, or left open by the client). */
function hostile(g: Gen, port: number, target: string): Promise<Outcome> {
  const method = g.pick(['GET', 'GET', 'PUT', 'PUT', 'POST', 'HEAD', 'DELETE', 'OPTIONS', 'PATCH']);
  const body = g.int(3) === 0 ? g.bytes(g.int(70_000)) : Buffer.alloc(0);
  const chunked = g.int(8) === 0;
  const declared = g.int(5) === 0 ? Math.max(0, body.length + g.int(1000) - 500) : body.length;
  const cut = g.int(6) === 0 ? g.int(body.length + 1) : undefined;
  const complete = cut === undefined && (chunked || declared === body.length);
  const head =
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    headerLines(g).map((h) => `${h}\r\n`).join('') +
    (chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${declared}\r\n`) +
    '\r\n';
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      // the last status line received: 100 Continue may come first
      const statuses = [...received.toString('latin1').matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
      const final = statuses.filter((s) => s >= 200);
      const uwsParserPage = /HTTP\/1\.1 \d{3} [^\r]*\r\nConnection: close\r\n\r\n<h1>/.test(received.toString('latin1'));
      resolve({ status: final[0], target: `${method} ${target.slice(0, 120)}`, complete, uwsParserPage });
    };
    socket.setTimeout(2000, settle);
    socket.on('error', settle);
    socket.on('close', settle);
    socket.on('data', (d) => {
      received = Buffer.concat([received, d]);
      if (/HTTP\/1\.1 [2-5]\d\d/.test(received.toString('latin1'))) setTimeout(settle, 50);
    });
    socket.write(head, 'latin1');
    if (cut !== undefined) {
      socket.write(body.subarray(0, cut));
      setTimeout(settle, 20);
    } else if (chunked) {
      if (body.length) socket.write(`${body.length.toString(16)}\r\n`);
      socket.write(body);
      socket.write(body.length ? '\r\n0\r\n\r\n' : '0\r\n\r\n');
    } else {
      socket.write(body);
    }
  });
}

/** Statuses by count, `none` for a request that got no final answer. */
function histogram(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.status ?? 'none'] = (counts[o.status ?? 'none'] ?? 0) + 1;
  return counts;
}

// 1 200 requests take ~20 s on two cores
const TIMEOUT_MS = Math.max(120_000, REQUESTS * 30);

it(`answers ${REQUESTS} hostile requests on both faces without a 5xx, an error log line or a crash (seed ${SEED})`, { timeout: TIMEOUT_MS }, async () => {
  const g = generator(SEED);
  const faces = { s3: [] as Outcome[], publisher: [] as Outcome[] };
  const started = Date.now();
  let issued = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < REQUESTS) {
        issued++;
        const toPublisher = g.int(2) === 0;
        const outcome = await hostile(g, toPublisher ? publisherPort : server.port, toPublisher ? publisherTarget(g) : s3Target(g));
        faces[toPublisher ? 'publisher' : 's3'].push(outcome);
      }
    }),
  );
  const outcomes = [...faces.s3, ...faces.publisher];
  const unanswered = outcomes.filter((o) => o.complete && o.status === undefined);
  const figures = {
    engine: nodeEngine ? 'node' : 'uws',
    seed: SEED,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    s3: { requests: faces.s3.length, statuses: histogram(faces.s3) },
    publisher: { requests: faces.publisher.length, statuses: histogram(faces.publisher) },
    sentWhole: outcomes.filter((o) => o.complete).length,
    unansweredSentWhole: unanswered.length,
    unansweredSamples: unanswered.slice(0, 5).map((o) => o.target),
  };
  console.log(`hostile run: ${JSON.stringify(figures)}`);
  const answered = outcomes.filter((o) => o.status !== undefined);
  // most requests get a final answer; the cut-off ones and those left waiting for a body do not
  expect(answered.length).toBeGreaterThan(REQUESTS / 2);
  // uWS v20.57 answers a request line with a space or a byte above 0x7F in its target `505 HTTP Version Not Supported`
  // itself, before Tusk sees it (README Known limits); every other 5xx is Tusk's
  expect(answered.filter((o) => o.status! >= 500 && !(o.status === 505 && o.uwsParserPage)), `seed ${SEED}`).toEqual([]);
  // uWS closes some requests its parser refuses without an answer (README Known limits); node:http's engine answers every one
  if (nodeEngine) expect(unanswered, `seed ${SEED}`).toEqual([]);
  expect(server.alive()).toBe(true);
  const errorLines = server.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
  expect(errorLines, `seed ${SEED}`).toEqual([]);

  // both faces still serve: a stored blob reads back, the S3 listener is ready
  const blob = Buffer.from(`after the storm ${SEED}`);
  const put = await fetch(`http://127.0.0.1:${publisherPort}/${key}/v1/blobs`, { method: 'PUT', body: blob });
  expect(put.status).toBe(200);
  const id = ((await put.json()) as { newlyCreated: { blobObject: { blobId: string } } }).newlyCreated.blobObject.blobId;
  const read = await fetch(`http://127.0.0.1:${publisherPort}/v1/blobs/${id}`);
  expect(Buffer.from(await read.arrayBuffer()).equals(blob)).toBe(true);
  expect((await fetch(`${server.endpoint}/tusk/health/ready`)).status).toBe(200);
});
