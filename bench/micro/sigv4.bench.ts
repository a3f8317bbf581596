// Micro benchmark: SigV4 authenticate() per request (header auth, presigned, anonymous) and the
// aws-chunked decoder's throughput (signed chunks and unsigned + trailer). Every task is verified
// against an independent signer/encoder before it is timed.
// Run: npx vitest bench --run bench/micro/sigv4.bench.ts   (SIGV4_BENCH_TIME_MS per task, default 500)
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Bench } from 'tinybench';
import { joinHeaders, type RequestHead } from '../../src/http/request-head.js';
import { AwsChunkedDecoder } from '../../src/s3/sigv4/aws-chunked.js';
import { authenticate } from '../../src/s3/sigv4/authenticate.js';
import { deriveSigningKey } from '../../src/s3/sigv4/signing-key.js';
import type { AuthContext } from '../../src/s3/sigv4/types.js';

const TIME_MS = Number(process.env.SIGV4_BENCH_TIME_MS ?? 500);
const AK = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const TIME = '20250115T120000Z';
const SCOPE = '20250115/us-east-1/s3/aws4_request';
const KEY = deriveSigningKey(SECRET, '20250115', 'us-east-1');
const EMPTY = createHash('sha256').digest('hex');

const ctx: AuthContext = {
  region: 'us-east-1',
  acceptAnyRegion: false,
  clockSkewMs: 900_000,
  now: NOW,
  lookupKey: (ak) => (ak === AK ? { secretKey: SECRET } : undefined),
};

// Independent reference signing over a literal canonical request.
function sign(canonical: string): string {
  const sts = `AWS4-HMAC-SHA256\n${TIME}\n${SCOPE}\n${createHash('sha256').update(canonical).digest('hex')}`;
  return createHmac('sha256', KEY).update(sts).digest('hex');
}

function mkHead(method: string, target: string, list: Array<[string, string]>): RequestHead {
  const q = target.indexOf('?');
  return {
    method,
    rawPath: q < 0 ? target : target.slice(0, q),
    rawQuery: q < 0 ? '' : target.slice(q + 1),
    headerList: list,
    headers: joinHeaders(list),
    remoteAddress: '127.0.0.1',
  };
}

// A typical aws-sdk-js v3 GetObject: virtual-hosted, x-id query, 8 headers, 6 signed.
const signedNames = 'amz-sdk-invocation-id;amz-sdk-request;host;x-amz-checksum-mode;x-amz-content-sha256;x-amz-date';
const getCanonical = [
  'GET',
  '/photos/2024/img%20001.jpg',
  'x-id=GetObject',
  'amz-sdk-invocation-id:5f1c6f2e-3a5b-4c1d-9e8f-0a1b2c3d4e5f',
  'amz-sdk-request:attempt=1; max=3',
  'host:bucket.s3.example.com',
  'x-amz-checksum-mode:ENABLED',
  `x-amz-content-sha256:${EMPTY}`,
  `x-amz-date:${TIME}`,
  '',
  signedNames,
  EMPTY,
].join('\n');
const headerGet = mkHead('GET', '/photos/2024/img%20001.jpg?x-id=GetObject', [
  ['host', 'bucket.s3.example.com'],
  ['user-agent', 'aws-sdk-js/3.1169.0 ua/2.1 os/linux#6.1 lang/js md/nodejs#20.20.2 api/s3#3.1169.0 m/E,N'],
  ['amz-sdk-invocation-id', '5f1c6f2e-3a5b-4c1d-9e8f-0a1b2c3d4e5f'],
  ['amz-sdk-request', 'attempt=1; max=3'],
  ['x-amz-checksum-mode', 'ENABLED'],
  ['x-amz-content-sha256', EMPTY],
  ['x-amz-date', TIME],
  ['authorization', `AWS4-HMAC-SHA256 Credential=${AK}/${SCOPE}, SignedHeaders=${signedNames}, Signature=${sign(getCanonical)}`],
]);

const presignQuery =
  `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=${AK}%2F20250115%2Fus-east-1%2Fs3%2Faws4_request` +
  `&X-Amz-Date=${TIME}&X-Amz-Expires=900&X-Amz-SignedHeaders=host&x-id=GetObject`;
const presignCanonical = ['GET', '/photos/2024/img%20001.jpg', presignQuery, 'host:bucket.s3.example.com', '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
const presigned = mkHead('GET', `/photos/2024/img%20001.jpg?${presignQuery}&X-Amz-Signature=${sign(presignCanonical)}`, [
  ['host', 'bucket.s3.example.com'],
  ['user-agent', 'curl/8'],
]);

const anonymous = mkHead('GET', '/photos/2024/img%20001.jpg', [
  ['host', 'bucket.s3.example.com'],
  ['user-agent', 'curl/8'],
]);

// aws-chunked bodies: 4 MiB in 64 KiB chunks, fed in 64 KiB network reads.
const BODY = randomBytes(4 << 20);
function encode(signed: boolean): Buffer {
  const parts: Buffer[] = [];
  let prev = 'a'.repeat(64);
  for (let off = 0; off <= BODY.length; off += 65536) {
    const piece = BODY.subarray(off, off + 65536);
    let line = piece.length.toString(16);
    if (signed) {
      const hash = createHash('sha256').update(piece).digest('hex');
      prev = createHmac('sha256', KEY).update(`AWS4-HMAC-SHA256-PAYLOAD\n${TIME}\n${SCOPE}\n${prev}\n${EMPTY}\n${hash}`).digest('hex');
      line += `;chunk-signature=${prev}`;
    }
    parts.push(Buffer.from(`${line}\r\n`), piece, Buffer.from(piece.length ? '\r\n' : ''));
  }
  parts.push(Buffer.from(signed ? '\r\n' : 'x-amz-checksum-crc32:AAAAAA==\r\n\r\n'));
  return Buffer.concat(parts);
}
const signedBody = encode(true);
const trailerBody = encode(false);

function decode(body: Buffer, signed: boolean): number {
  const d = new AwsChunkedDecoder({
    decodedLength: BODY.length,
    signed: signed ? { signingKey: KEY, requestTime: TIME, scope: SCOPE, seedSignature: 'a'.repeat(64) } : undefined,
    trailer: signed ? undefined : 'x-amz-checksum-crc32',
  });
  let n = 0;
  for (let off = 0; off < body.length; off += 65536) d.push(body.subarray(off, off + 65536), (s) => (n += s.length));
  d.end();
  return n;
}

function verify(): void {
  for (const [name, h, kind] of [['header', headerGet, 'signed'], ['presigned', presigned, 'signed'], ['anonymous', anonymous, 'anonymous']] as const) {
    const r = authenticate(h, ctx);
    if (r.kind !== kind) throw new Error(`${name}: expected ${kind}, got ${r.kind}`);
  }
  if (decode(signedBody, true) !== BODY.length || decode(trailerBody, false) !== BODY.length) throw new Error('decoder mismatch');
}

async function main(): Promise<void> {
  verify();
  const b = new Bench({ time: TIME_MS, warmupIterations: 200 });
  b.add('authenticate: header auth (SDK GetObject)', () => void authenticate(headerGet, ctx));
  b.add('authenticate: presigned GET', () => void authenticate(presigned, ctx));
  b.add('authenticate: anonymous', () => void authenticate(anonymous, ctx));
  const b2 = new Bench({ time: TIME_MS, iterations: 8, warmupIterations: 2 });
  b2.add('aws-chunked decode 4 MiB: signed chunks', () => void decode(signedBody, true));
  b2.add('aws-chunked decode 4 MiB: unsigned + trailer', () => void decode(trailerBody, false));
  b2.add('reference: node:crypto sha256 of 4 MiB', () => void createHash('sha256').update(BODY).digest());
  await b.run();
  await b2.run();
  const rows = [...b.tasks, ...b2.tasks].map((t) => {
    const r = t.result;
    const meanMs = 'latency' in r ? r.latency.mean : NaN;
    const isBody = t.name.includes('4 MiB');
    return {
      task: t.name,
      'mean µs': Number((meanMs * 1000).toFixed(2)),
      'ops/s': Math.round(1000 / meanMs),
      'MiB/s': isBody ? Number((4 / (meanMs / 1000)).toFixed(0)) : '',
    };
  });
  console.table(rows);
}

await main();
