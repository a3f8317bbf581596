// Operating Tusk (issue 13): health probes without a signature (not ready during recovery and at
// the disk reserve), one JSON access-log line per request with no secret in it, and a Prometheus
// exposition that Prometheus's own promtool accepts after a mixed workload.

import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3Client } from './helpers/clients.js';
import { REPO_ROOT, spawnUntil } from './helpers/child-process.js';
import { metricSample } from './helpers/metrics.js';
import { rawRequest } from './helpers/raw-http.js';
import { signHeaders } from './helpers/sigv4.js';
import { bucketName, NASTY_KEYS, randomBody } from './helpers/fixtures.js';
import { makeTempDir, publisherOf, randomCredentials, startTusk, type TuskServer } from './helpers/server.js';

interface LogLine {
  level: number;
  msg: string;
  face?: string;
  reqId?: string;
  op?: string;
  bucket?: string;
  key?: string;
  status?: number;
  bytesIn?: number;
  bytesOut?: number;
  ms?: number;
  accessKeyId?: string;
}

function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogLine);
}

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('health probes', () => {
  it('answer without a signature: live at once, ready only after recovery', async () => {
    const dataDir = makeTempDir();
    const child = await spawnUntil(
      [join(REPO_ROOT, 'bin', 'tusk.js'), 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--publisher-listen', 'off', '--console-listen', 'off', '--durability', 'relaxed'],
      /listener bound on http:\/\/127\.0\.0\.1:(\d+)/,
      { env: { TUSK_TEST_RECOVERY_DELAY_MS: '2500' }, startTimeoutMs: 30_000, label: 'tusk' },
    );
    try {
      const base = `http://127.0.0.1:${child.match[1]}`;
      const live = await fetch(`${base}/tusk/health/live`);
      expect(live.status).toBe(200);
      const notReady = await fetch(`${base}/tusk/health/ready`);
      expect(notReady.status).toBe(503);
      const body = (await notReady.json()) as { ready: boolean; stage: string; reasons: string[] };
      expect(body.ready).toBe(false);
      expect(body.stage).toBe('recovery');
      expect(body.reasons.join(' ')).toMatch(/recovery/);
      // S3 requests meanwhile get a clear S3 error, not a hang
      const s3 = await fetch(`${base}/`);
      expect(s3.status).toBe(503);
      expect(s3.headers.get('retry-after')).toBe('1');
      expect(await s3.text()).toMatch(/<Code>ServiceUnavailable<\/Code>.*<RequestId>/s);
      const ready = await eventually(async () => {
        const r = await fetch(`${base}/tusk/health/ready`);
        return r.status === 200 ? ((await r.json()) as { stage: string }) : undefined;
      });
      expect(ready.stage).toBe('up');
      expect((await fetch(`${base}/tusk/health/ready`, { method: 'HEAD' })).status).toBe(200);
      expect((await fetch(`${base}/tusk/health/ready`, { method: 'POST' })).status).toBe(405);
    } finally {
      await child.stop(5_000);
    }
  });

  it('is not ready when free disk space is at the reserve', async () => {
    const server = await startTusk({ extraArgs: ['--disk-reserve', '1000000GiB'] });
    try {
      const r = await fetch(`${server.endpoint}/tusk/health/ready`);
      expect(r.status).toBe(503);
      const body = (await r.json()) as { reasons: string[]; disk: { freeBytes: number; reserveBytes: number } };
      expect(body.reasons.join(' ')).toMatch(/disk reserve reached/);
      expect(body.disk.reserveBytes).toBe(1_000_000 * 1024 ** 3);
      expect(body.disk.freeBytes).toBeGreaterThan(0);
      expect((await fetch(`${server.endpoint}/tusk/health/live`)).status).toBe(200);
      // addressed to a bucket by host name, /tusk/health/live is an object key: S3 answers
      const virtual = await rawRequest({ port: server.port, method: 'GET', target: '/tusk/health/live', headers: [['host', `some-bucket.localhost:${server.port}`]] });
      expect(virtual.text()).toMatch(/<Error><Code>(AccessDenied|NoSuchBucket)<\/Code>/);
    } finally {
      await server.dispose();
    }
  });
});

describe('access log and metrics after a mixed workload', () => {
  let server: TuskServer;
  let s3: S3Client;
  const bucket = bucketName('ops');
  const token = 'scrape-token-123';

  beforeAll(async () => {
    server = await startTusk({ extraArgs: ['--metrics-token', token] });
    s3 = s3Client(server);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (const key of NASTY_KEYS.slice(0, 6)) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: randomBody(3000) }));
    await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: NASTY_KEYS[0] }))).Body!.transformToByteArray();
    await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: NASTY_KEYS[1] }));
    await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'missing' })).catch(() => undefined);
    // a presigned URL carries its signature in the query: it must not reach the log
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: NASTY_KEYS[0] }), { expiresIn: 60 });
    expect((await fetch(url)).status).toBe(200);
    // a wrong secret
    const wrong = s3Client(server, { credentials: { accessKeyId: server.root.accessKeyId, secretAccessKey: randomCredentials().secretAccessKey } });
    await wrong.send(new ListObjectsV2Command({ Bucket: bucket })).catch(() => undefined);
    wrong.destroy();
  });

  afterAll(async () => {
    s3?.destroy();
    await server?.dispose();
  });

  it('writes one JSON line per S3 request with id, operation, bucket, key, status, bytes, duration and key id', async () => {
    const requests = await eventually(async () => {
      const lines = logLines(server.output()).filter((l) => l.msg === 'request' && l.face === 's3');
      return lines.length >= 13 ? lines : undefined;
    });
    const puts = requests.filter((l) => l.op === 'PutObject');
    expect(puts.map((l) => l.key)).toEqual(NASTY_KEYS.slice(0, 6));
    for (const p of puts) {
      expect(p).toMatchObject({ bucket, status: 200, bytesOut: 0, accessKeyId: server.root.accessKeyId });
      expect(p.bytesIn).toBeGreaterThanOrEqual(3000);
      expect(p.reqId).toMatch(/^[0-9A-F]{16}$/);
      expect(p.ms).toBeGreaterThan(0);
    }
    const get = requests.find((l) => l.op === 'GetObject' && l.status === 200)!;
    expect(get.bytesOut).toBe(3000);
    expect(requests.find((l) => l.op === 'GetObject' && l.status === 404)).toBeDefined();
    expect(requests.filter((l) => l.status === 403).length).toBeGreaterThanOrEqual(1);
    expect(new Set(requests.map((l) => l.reqId)).size).toBe(requests.length);
    const text = requests.map((l) => JSON.stringify(l)).join('\n');
    expect(text).not.toContain(server.root.secretAccessKey);
    // SigV4 signatures are 64 hex digits; presigned URLs carry them as X-Amz-Signature
    expect(text).not.toMatch(/[0-9a-f]{64}/i);
    expect(text).not.toMatch(/X-Amz-(Signature|Credential)/i);
  });

  it('serves a Prometheus exposition promtool accepts, behind the bearer token', async () => {
    expect((await fetch(`${server.endpoint}/tusk/metrics`)).status).toBe(401);
    expect((await fetch(`${server.endpoint}/tusk/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const r = await fetch(`${server.endpoint}/tusk/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    // promtool exits non-zero on a parse error or a lint problem
    execFileSync('promtool', ['check', 'metrics'], { input: text, stdio: ['pipe', 'pipe', 'pipe'] });
    expect(metricSample(text, 'tusk_requests_total', { face: 's3', operation: 'PutObject', status: '200' })).toBe(6);
    expect(metricSample(text, 'tusk_requests_total', { face: 's3', operation: 'GetObject', status: '404' })).toBe(1);
    expect(metricSample(text, 'tusk_request_duration_seconds_count', { face: 's3', operation: 'PutObject', status: '200' })).toBe(6);
    expect(metricSample(text, 'tusk_received_bytes_total', { face: 's3', operation: 'PutObject' })).toBeGreaterThanOrEqual(6 * 3000);
    expect(metricSample(text, 'tusk_sent_bytes_total', { face: 's3', operation: 'GetObject' })).toBeGreaterThanOrEqual(2 * 3000);
    expect(metricSample(text, 'tusk_requests_in_flight', { face: 's3' })).toBe(0);
    expect(metricSample(text, 'tusk_store_live_bytes', {})).toBe(5 * 3000);
    expect(metricSample(text, 'tusk_store_segment_bytes', {})).toBeGreaterThanOrEqual(6 * 3000);
    expect(metricSample(text, 'tusk_store_dead_bytes', {})).toBeGreaterThanOrEqual(3000);
    expect(metricSample(text, 'tusk_store_index_bytes', {})).toBeGreaterThan(0);
    expect(metricSample(text, 'tusk_ready', {})).toBe(1);
    expect(metricSample(text, 'tusk_nodejs_eventloop_lag_seconds', {})).toBeGreaterThanOrEqual(0);
  });
});

describe('operator paths and the publisher face', () => {
  it('reserves the bucket name tusk, logs publisher requests without the endpoint key, and counts encodes', async () => {
    const server = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs: ['--n-shards', '10'] });
    const s3 = s3Client(server);
    try {
      await expect(s3.send(new CreateBucketCommand({ Bucket: 'tusk' }))).rejects.toMatchObject({ name: 'InvalidBucketName' });
      const { url: publisherUrl, key } = await publisherOf(server);
      const put = await fetch(`${publisherUrl}/${key}/v1/blobs?epochs=2`, { method: 'PUT', body: randomBody(5000) });
      expect(put.status).toBe(200);
      expect((await fetch(`${publisherUrl}/v1/blobs/not-a-blob-id`)).status).toBe(400);
      const lines = await eventually(async () => {
        const found = logLines(server.output()).filter((l) => l.msg === 'request' && l.face === 'publisher');
        return found.length >= 2 ? found : undefined;
      });
      expect(lines[0]).toMatchObject({ op: 'storeBlob', status: 200, bytesIn: 5000 });
      expect(lines[1]).toMatchObject({ op: 'readBlob', status: 400 });
      expect(lines.map((l) => JSON.stringify(l)).join('\n')).not.toContain(key);
      const text = await (await fetch(`${server.endpoint}/tusk/metrics`)).text();
      execFileSync('promtool', ['check', 'metrics'], { input: text, stdio: ['pipe', 'pipe', 'pipe'] });
      expect(metricSample(text, 'tusk_requests_total', { face: 'publisher', operation: 'storeBlob', status: '200' })).toBe(1);
      expect(metricSample(text, 'tusk_publisher_encode_duration_seconds_count', {})).toBe(1);
      expect(metricSample(text, 'tusk_publisher_blob_objects', {})).toBe(1);
      expect(metricSample(text, 'tusk_publisher_codec_queue', {})).toBe(0);
      expect(text.split('\n').filter((l) => l.startsWith('tusk_publisher_node_up{') && l.endsWith(' 1'))).toHaveLength(10);
      expect(metricSample(text, 'tusk_publisher_ledger_balance', {})).toBeGreaterThan(0);
    } finally {
      s3.destroy();
      await server.dispose();
    }
  });
});

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

/** The next answer on `s`, read up to the end of its JSON or XML body (or its head, when it has none). */
function readAnswer(s: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString();
      if (/\r\n\r\n[\s\S]*[}>]\s*$/.test(text) || (/\r\ncontent-length: 0\r\n/i.test(text) && text.endsWith('\r\n\r\n'))) {
        s.off('data', onData);
        resolve(text);
      }
    };
    s.on('data', onData);
  });
}

/** A PutObject of `size` bytes that stays in flight: its head and the first `sent` bytes of its body are sent; `send` sends more. */
async function halfUpload(server: TuskServer, size = 100, sent = 50): Promise<{ socket: Socket; send(bytes: number): void }> {
  const bucket = bucketName('drain');
  const s3 = s3Client(server);
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  s3.destroy();
  const host = `127.0.0.1:${server.port}`;
  const signed = signHeaders({
    method: 'PUT', path: `/${bucket}/k`, credentials: server.root, payloadHash: 'UNSIGNED-PAYLOAD',
    headers: [['host', host], ['content-length', String(size)]],
  });
  const socket = await openSocket(server.port);
  socket.on('error', () => undefined);
  socket.write(`PUT /${bucket}/k HTTP/1.1\r\n${signed.headers.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${'x'.repeat(sent)}`);
  return { socket, send: (bytes) => socket.write('y'.repeat(bytes)) };
}

/** Waits until the server's process has exited. */
async function exited(server: TuskServer, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (server.alive()) {
    if (Date.now() > deadline) throw new Error(`still running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const MIB = 1 << 20;
const CHUNK = 32 << 10;

describe('draining', () => {
  it('is not ready while in-flight requests drain after SIGTERM', async () => {
    const server = await startTusk();
    try {
      // a connection kept open for the probe, and an upload that stays in flight (half its body sent)
      const probe = await openSocket(server.port);
      probe.write(`GET /tusk/health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(await readAnswer(probe)).toMatch(/^HTTP\/1\.1 200/);
      const upload = await halfUpload(server);
      await new Promise((r) => setTimeout(r, 200));
      process.kill(server.pid, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      probe.write(`GET /tusk/health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      const answer = await readAnswer(probe);
      expect(answer).toMatch(/^HTTP\/1\.1 503/);
      expect(answer).toContain('"draining":true');
      upload.socket.destroy();
      probe.destroy();
    } finally {
      await server.dispose();
    }
  });

  it('lasts at most --shutdown-grace: a request still in flight then is cut', async () => {
    const server = await startTusk({ extraArgs: ['--shutdown-grace', '1s'] });
    try {
      const upload = await halfUpload(server, MIB, CHUNK);
      let answer = '';
      upload.socket.on('data', (d: Buffer) => (answer += d.toString()));
      await new Promise((r) => setTimeout(r, 200));
      const signalled = Date.now();
      process.kill(server.pid, 'SIGTERM');
      // the upload keeps going (as a slow client's would): the default grace (10 s) would wait for it
      const trickle = setInterval(() => upload.send(CHUNK), 500);
      try {
        await exited(server, 6_000);
      } finally {
        clearInterval(trickle);
      }
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(1_000);
      expect(answer).toBe('');
      expect(server.output()).toContain('SIGTERM: draining in-flight requests (at most 1 s)');
      upload.socket.destroy();
    } finally {
      await server.dispose();
    }
  });

  it('lets a request in flight finish within a longer --shutdown-grace, past the default 10 s', async () => {
    const server = await startTusk({ extraArgs: ['--shutdown-grace', '60s'] });
    try {
      const upload = await halfUpload(server, MIB, CHUNK);
      await new Promise((r) => setTimeout(r, 200));
      process.kill(server.pid, 'SIGTERM');
      // 32 KiB every 500 ms for 11 s: uWS cuts a body slower than 16 KiB/s over its 10 s timeout
      for (let i = 0; i < 22; i++) {
        await new Promise((r) => setTimeout(r, 500));
        upload.send(CHUNK);
      }
      expect(server.alive(), server.output().slice(-3000)).toBe(true);
      const answer = readAnswer(upload.socket);
      upload.send(MIB - 23 * CHUNK);
      expect(await answer).toMatch(/^HTTP\/1\.1 200/);
      await exited(server, 8_000);
      upload.socket.destroy();
    } finally {
      await server.dispose();
    }
  }, 40_000);
});
