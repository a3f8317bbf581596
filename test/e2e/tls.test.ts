// HTTPS on both listeners (issue 13 §4): awscli with --ca-bundle and the AWS SDK over a
// certificate made here with openssl, the publisher over TLS, and a SIGHUP certificate reload.

import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Agent, get as httpsGet } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand, PutObjectCommand, S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { ensureAwsCli, runAws, s3Client } from './helpers/clients.js';
import { bucketName, makeTempDirFixture, randomBody } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

/** A self-signed certificate for 127.0.0.1 (its own CA bundle). */
function makeCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
    '-subj', `/CN=${name}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { stdio: 'ignore' });
  return { cert, key };
}

function httpsText(url: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** The fingerprint of the certificate the listener presents now to a client naming `servername` (SNI). */
function presentedFingerprint(port: number, servername = 'localhost'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

function fingerprintOf(certFile: string): string {
  const out = execFileSync('openssl', ['x509', '-in', certFile, '-noout', '-fingerprint', '-sha256']).toString();
  return out.trim().split('=')[1]!;
}

/** What `openssl s_client` negotiates over TLS 1.2 offering `ciphers` (in that order), and what it printed. */
function opensslHandshake(port: number, ciphers: string, extra: string[] = []): { cipher?: string; output: string } {
  const r = spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_2', '-cipher', ciphers, ...extra], { input: '', encoding: 'utf8', timeout: 15_000 });
  const output = `${r.stdout}${r.stderr}`;
  const cipher = /Cipher is (\S+)/.exec(output)?.[1];
  return { cipher: cipher === '(NONE)' ? undefined : cipher, output };
}

const TLS_RSA_WITH_3DES_EDE_CBC_SHA = 0x000a;

/**
 * The suite the server picks from a TLS 1.2 ClientHello (RFC 5246 §7.4.1.2) offering only `suite`,
 * or 'refused' when it answers with an alert: for suites this machine's openssl no longer offers
 * (3DES is built out of it).
 */
function serverHelloSuite(port: number, suite: number): Promise<number | 'refused'> {
  const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
  const extension = (type: number, list: number[]) => Buffer.concat([u16(type), u16(list.length * 2 + 2), u16(list.length * 2), ...list.map(u16)]);
  const extensions = Buffer.concat([
    extension(0x000d, [0x0804, 0x0401]), // signature_algorithms: rsa_pss_rsae_sha256, rsa_pkcs1_sha256
    extension(0x000a, [0x001d, 0x0017]), // supported_groups: x25519, secp256r1
  ]);
  const body = Buffer.concat([
    Buffer.from([0x03, 0x03]), randomBytes(32), Buffer.from([0]), // version, random, no session id
    u16(2), u16(suite), Buffer.from([1, 0]), // the one suite; null compression
    u16(extensions.length), extensions,
  ]);
  const handshake = Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 0xff]), body]);
  const record = Buffer.concat([Buffer.from([0x16, 0x03, 0x01]), u16(handshake.length), handshake]);
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1', () => socket.write(record));
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 1 && got[0] === 0x15) {
        socket.destroy();
        resolve('refused');
      } else if (got.length >= 5 + 4 + 2 + 32 + 1) {
        const sessionIdLength = got[5 + 4 + 2 + 32]!;
        const at = 5 + 4 + 2 + 32 + 1 + sessionIdLength;
        if (got.length < at + 2) return;
        socket.destroy();
        resolve(got.readUInt16BE(at));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${got.length} bytes`)));
  });
}

describe('TLS', () => {
  const dir = makeTempDirFixture();
  let first: { cert: string; key: string };
  let server: TuskServer;
  let ca: Buffer;

  beforeAll(async () => {
    first = makeCertificate(dir.path, 'first');
    ca = readFileSync(first.cert);
    // the files are re-read on SIGHUP: the server gets paths it can be given new content at
    execFileSync('cp', [first.cert, join(dir.path, 'live.crt')]);
    execFileSync('cp', [first.key, join(dir.path, 'live.key')]);
    server = await startTusk({
      publisherListen: '127.0.0.1:0',
      extraArgs: ['--n-shards', '10', '--tls-cert', join(dir.path, 'live.crt'), '--tls-key', join(dir.path, 'live.key')],
    });
  });

  afterAll(async () => {
    await server?.dispose();
    dir.remove();
  });

  it('serves S3 over HTTPS to the AWS SDK and to awscli with --ca-bundle', async () => {
    expect(server.endpoint).toMatch(/^https:\/\//);
    const s3: S3Client = s3Client(server, { requestHandler: new NodeHttpHandler({ httpsAgent: new Agent({ ca }) }) });
    const bucket = bucketName('tls');
    const body = randomBody(200_000);
    try {
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'over tls', Body: body }));
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'over tls', Range: 'bytes=1000-1999' }));
      expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(body.subarray(1000, 2000));
      // SSE-C needs no setting over TLS
      const sseC = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: randomBytes(32).toString('base64') } as const;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'sse-c', Body: body, ...sseC }));
      const sealed = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'sse-c', Range: 'bytes=70000-70009', ...sseC }));
      expect(Buffer.from(await sealed.Body!.transformToByteArray())).toEqual(body.subarray(70_000, 70_010));
      // a large body reaches the client whole: a TLS socket takes each chunk in several pieces
      const large = randomBody(20 << 20);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'large', Body: large }));
      for (let i = 0; i < 3; i++) {
        const whole = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'large' }));
        expect(Buffer.from(await whole.Body!.transformToByteArray()).equals(large)).toBe(true);
      }
      // a Location names the scheme the request came by
      const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'parts' }));
      const part = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'parts', UploadId: upload.UploadId, PartNumber: 1, Body: 'one part' }));
      const done = await s3.send(new CompleteMultipartUploadCommand({
        Bucket: bucket, Key: 'parts', UploadId: upload.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }));
      expect(done.Location).toBe(`${server.endpoint}/${bucket}/parts`);
    } finally {
      s3.destroy();
    }
    ensureAwsCli();
    const caBundle = ['--ca-bundle', first.cert];
    const put = await runAws(server, ['s3', 'cp', '-', `s3://${bucket}/cli key`, ...caBundle], { input: Buffer.from('from awscli') });
    expect(put.code, put.stderr).toBe(0);
    const got = await runAws(server, ['s3', 'cp', `s3://${bucket}/over tls`, '-', ...caBundle]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.equals(body)).toBe(true);
    const ls = await runAws(server, ['s3api', 'list-objects-v2', '--bucket', bucket, ...caBundle]);
    expect(JSON.parse(ls.stdout.toString()).Contents.map((c: { Key: string }) => c.Key)).toEqual(['cli key', 'large', 'over tls', 'parts', 'sse-c']);
    // without the CA, the certificate is refused
    const untrusted = await runAws(server, ['s3api', 'list-buckets']);
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toMatch(/SSL|certificate/i);
  });

  it('serves health and the publisher over HTTPS', async () => {
    expect(await httpsText(`${server.endpoint}/tusk/health/ready`, ca)).toMatchObject({ status: 200 });
    // a client naming the server (SNI) is served too
    expect(await httpsText(`https://localhost:${server.port}/tusk/health/live`, ca)).toMatchObject({ status: 200 });
    const publisherUrl = /publisher listening on (https:\/\/[^\s"]+)/.exec(server.output())![1]!;
    expect(await httpsText(`${publisherUrl}/status`, ca)).toEqual({ status: 200, body: 'OK' });
  });

  // Mozilla's "intermediate" profile for TLS 1.2: ECDHE with AES-GCM or ChaCha20 only (src/http/uws.ts)
  it('offers only forward-secret AEAD suites over TLS 1.2, on both listeners, with and without a server name', async () => {
    const publisherPort = Number(/publisher listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(server.output())![1]);
    for (const [port, sni] of [[server.port, []], [server.port, ['-servername', 'localhost']], [publisherPort, []]] as const) {
      const where = `port ${port} ${sni.join(' ')}`;
      expect(opensslHandshake(port, 'ECDHE-RSA-AES256-GCM-SHA384', [...sni]).cipher, where).toBe('ECDHE-RSA-AES256-GCM-SHA384');
      expect(opensslHandshake(port, 'ECDHE-RSA-CHACHA20-POLY1305', [...sni]).cipher, where).toBe('ECDHE-RSA-CHACHA20-POLY1305');
      // static RSA key exchange (no forward secrecy), and CBC even with ECDHE: the server refuses
      for (const weak of ['AES128-GCM-SHA256', 'AES256-SHA', 'ECDHE-RSA-AES128-SHA']) {
        const refused = opensslHandshake(port, weak, [...sni]);
        expect(refused.cipher, `${where} ${weak}`).toBeUndefined();
        expect(refused.output, `${where} ${weak}`).toMatch(/alert handshake failure/);
      }
      // a client listing weak suites first still gets a strong one
      expect(opensslHandshake(port, 'AES128-SHA:AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256', [...sni]).cipher, where).toBe('ECDHE-RSA-AES128-GCM-SHA256');
    }
    // 3DES (SWEET32), which this machine's openssl cannot offer any more: a hand-made ClientHello
    expect(await serverHelloSuite(server.port, TLS_RSA_WITH_3DES_EDE_CBC_SHA)).toBe('refused');
    expect(await serverHelloSuite(server.port, 0xc02f), 'the hand-made ClientHello can succeed (ECDHE-RSA-AES128-GCM-SHA256)').toBe(0xc02f);
    // TLS 1.3 stays on
    const r = spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${server.port}`, '-tls1_3'], { input: '', encoding: 'utf8', timeout: 15_000 });
    expect(`${r.stdout}`).toMatch(/New, TLSv1\.3, Cipher is TLS_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305_SHA256)/);
  });

  // clients that connect to an IP address send no server name and keep the start-up certificate (README)
  it('reloads the certificate on SIGHUP for clients that name the server, keeps the old one when the new files are bad', async () => {
    const second = makeCertificate(dir.path, "second");
    expect(await presentedFingerprint(server.port)).toBe(fingerprintOf(first.cert));
    execFileSync('cp', [second.cert, join(dir.path, 'live.crt')]);
    execFileSync('cp', [second.key, join(dir.path, 'live.key')]);
    process.kill(server.pid, 'SIGHUP');
    const deadline = Date.now() + 10_000;
    while (!server.output().includes('TLS certificate and key reloaded') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await presentedFingerprint(server.port)).toBe(fingerprintOf(second.cert));
    expect(await httpsText(`https://localhost:${server.port}/tusk/health/live`, readFileSync(second.cert))).toMatchObject({ status: 200 });

    execFileSync('sh', ['-c', `echo broken > '${join(dir.path, 'live.key')}'`]);
    process.kill(server.pid, 'SIGHUP');
    const until = Date.now() + 10_000;
    while (!server.output().includes('TLS reload failed') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(server.output()).toContain('keeping the old certificate');
    // every thread, and a server name no thread has seen yet (its context is loaded now, while the
    // files on disk are broken), gets the last certificate that loaded
    for (let i = 0; i < 16; i++) {
      expect(await presentedFingerprint(server.port, i % 2 ? 'localhost' : `new-${i}.example`)).toBe(fingerprintOf(second.cert));
    }
    // the copies the listeners load are the process's own
    expect(statSync(join(server.dataDir, 'tls')).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(server.dataDir, 'tls'))) expect(statSync(join(server.dataDir, 'tls', f)).mode & 0o777).toBe(0o600);
  });

  // issue 30: uWS printed "finding <name>" and "Browsed to SNI: <name>" into the JSON log for each
  // server name a client sent, and for every known one again at each reload
  it('keeps stdout pure JSON lines while clients name servers (SNI) and the certificate reloads', async () => {
    for (const name of ['sni-a.example', 'sni-b.example', 'localhost']) await presentedFingerprint(server.port, name);
    const reloads = server.output().split('TLS certificate and key reloaded').length;
    execFileSync('cp', [first.cert, join(dir.path, 'live.crt')]);
    execFileSync('cp', [first.key, join(dir.path, 'live.key')]);
    process.kill(server.pid, 'SIGHUP');
    const deadline = Date.now() + 10_000;
    while (server.output().split('TLS certificate and key reloaded').length === reloads && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await presentedFingerprint(server.port, 'sni-a.example')).toBe(fingerprintOf(first.cert));
    // uWS's lines go to stderr: the check can fail (node:http prints no such lines)
    if (server.engine === 'uws') expect(server.output()).toContain('Browsed to SNI: sni-a.example');
    const lines = server.stdout().split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });
});

// Server preference (issue 30): node:https takes the server's order (honorCipherOrder); uWS has no
// such setting (README TLS), so this runs on the node engine
describe('TLS on the node engine', () => {
  const dir = makeTempDirFixture();
  let server: TuskServer;

  beforeAll(async () => {
    const { cert, key } = makeCertificate(dir.path, 'node');
    server = await startTusk({ env: { TUSK_HTTP_ENGINE: 'node' }, extraArgs: ['--tls-cert', cert, '--tls-key', key] });
  });

  afterAll(async () => {
    await server?.dispose();
    dir.remove();
  });

  it("chooses by the server's order of TLS 1.2 suites, not the client's", () => {
    // TLS12_CIPHERS lists AES128-GCM before AES256-GCM before CHACHA20-POLY1305
    expect(opensslHandshake(server.port, 'ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256').cipher).toBe('ECDHE-RSA-AES128-GCM-SHA256');
    expect(opensslHandshake(server.port, 'ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES256-GCM-SHA384').cipher).toBe('ECDHE-RSA-AES256-GCM-SHA384');
    // the check can pass: a client offering one suite gets it
    expect(opensslHandshake(server.port, 'ECDHE-RSA-CHACHA20-POLY1305').cipher).toBe('ECDHE-RSA-CHACHA20-POLY1305');
  });
});
