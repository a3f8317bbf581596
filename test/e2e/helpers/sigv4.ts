// An independent SigV4 signer for raw requests (s3.md §2.2–2.9): header auth, presigned URLs and the
// aws-chunked encodings the JS SDK never sends (signed chunks, signed trailer). Built on node:crypto only,
// so it shares no code with the server it tests; checked against @smithy/signature-v4 in signer.test.ts.

import { createHash, createHmac } from 'node:crypto';
import type { Credentials } from './server.js';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
export const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';

export type HeaderList = Array<[string, string]>;

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function md5Hex(data: Buffer | string): string {
  return createHash('md5').update(data).digest('hex');
}

export function md5Base64(data: Buffer | string): string {
  return createHash('md5').update(data).digest('base64');
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** RFC 3986 percent-encoding of UTF-8 bytes; `/` kept when `keepSlash` (S3 canonical URI rule, §2.3). */
export function uriEncode(input: string, keepSlash = false): string {
  let out = '';
  for (const byte of Buffer.from(input, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Path-style request target for a bucket/key, each key byte encoded once. */
export function objectPath(bucket: string, key?: string): string {
  if (key === undefined) return `/${bucket}`;
  return `/${bucket}/${uriEncode(key, true)}`;
}

/** Raw query string from ordered pairs (strictly encoded, so it is also canonical once sorted). */
export function buildQuery(params: Array<[string, string]> | Record<string, string>): string {
  const pairs = Array.isArray(params) ? params : Object.entries(params);
  return pairs.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&');
}

function decodeComponent(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

/** CanonicalQueryString per §2.3, from a raw query string. */
export function canonicalQuery(rawQuery: string, drop: string[] = []): string {
  const items: Array<[string, string]> = [];
  for (const item of rawQuery.split('&')) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = decodeComponent(eq < 0 ? item : item.slice(0, eq));
    const value = eq < 0 ? '' : decodeComponent(item.slice(eq + 1));
    if (drop.includes(name)) continue;
    items.push([uriEncode(name), uriEncode(value)]);
  }
  items.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return items.map(([k, v]) => `${k}=${v}`).join('&');
}

/** CanonicalURI per §2.3: split on `/`, decode each segment, re-encode byte-wise. */
export function canonicalUri(rawPath: string): string {
  if (rawPath === '') return '/';
  return rawPath
    .split('/')
    .map((seg) => uriEncode(decodeURIComponent(seg)))
    .join('/');
}

export function amzDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

export function signingKey(secret: string, date8: string, region: string, service = 's3'): Buffer {
  const kDate = hmac('AWS4' + secret, date8);
  return hmac(hmac(hmac(kDate, region), service), 'aws4_request');
}

function canonicalHeaders(headers: HeaderList, signed: string[]): string {
  let out = '';
  for (const name of signed) {
    const values = headers
      .filter(([n]) => n.toLowerCase() === name)
      .map(([, v]) => v.trim().replace(/ +/g, ' '));
    out += `${name}:${values.join(',')}\n`;
  }
  return out;
}

export interface SignInput {
  method: string;
  /** raw request-target path (already percent-encoded) */
  path: string;
  /** raw query string without `?` */
  query?: string;
  /** must include `host` */
  headers: HeaderList;
  credentials: Credentials;
  region?: string;
  service?: string;
  date?: Date;
  /** value of x-amz-content-sha256 (hex, UNSIGNED-PAYLOAD or STREAMING-…) */
  payloadHash: string;
  /** lower-case header names to sign; default: host, content-md5, content-type and every x-amz-* */
  signedHeaders?: string[];
  /** skip adding x-amz-content-sha256 (to provoke its absence) */
  omitContentSha256?: boolean;
}

export interface Signed {
  headers: HeaderList;
  signature: string;
  amzDate: string;
  scope: string;
  key: Buffer;
  canonicalRequest: string;
}

function defaultSigned(headers: HeaderList): string[] {
  const names = new Set<string>();
  for (const [n] of headers) {
    const l = n.toLowerCase();
    if (l === 'host' || l === 'content-md5' || l === 'content-type' || l.startsWith('x-amz-')) names.add(l);
  }
  return [...names].sort();
}

/** Adds x-amz-date, x-amz-content-sha256 and Authorization to a header list (header auth, §2.2). */
export function signHeaders(input: SignInput): Signed {
  const date = input.date ?? new Date();
  const region = input.region ?? 'us-east-1';
  const service = input.service ?? 's3';
  const time = amzDate(date);
  const date8 = time.slice(0, 8);
  const headers: HeaderList = [...input.headers, ['x-amz-date', time]];
  if (!input.omitContentSha256) headers.push(['x-amz-content-sha256', input.payloadHash]);
  const signed = (input.signedHeaders ?? defaultSigned(headers)).slice().sort();
  const canonicalRequest = [
    input.method,
    canonicalUri(input.path),
    canonicalQuery(input.query ?? ''),
    canonicalHeaders(headers, signed),
    signed.join(';'),
    input.payloadHash,
  ].join('\n');
  const scope = `${date8}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, time, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = signingKey(input.credentials.secretAccessKey, date8, region, service);
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
  headers.push([
    'authorization',
    `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${signature}`,
  ]);
  return { headers, signature, amzDate: time, scope, key, canonicalRequest };
}

export interface PresignInput {
  method: string;
  path: string;
  host: string;
  credentials: Credentials;
  region?: string;
  date?: Date;
  /** a string sends a malformed value as it is */
  expiresSeconds: number | string;
  /** extra query parameters (e.g. list-type, hoisted x-amz-* values) */
  params?: Array<[string, string]>;
  /** omit one auth parameter (to provoke AuthorizationQueryParametersError) */
  omit?: string;
}

/** Presigned URL query string (§2.9): returns the full raw query including X-Amz-Signature. */
export function presignQuery(input: PresignInput): string {
  const date = input.date ?? new Date();
  const region = input.region ?? 'us-east-1';
  const time = amzDate(date);
  const scope = `${time.slice(0, 8)}/${region}/s3/aws4_request`;
  const params: Array<[string, string]> = [
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Credential', `${input.credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', time],
    ['X-Amz-Expires', String(input.expiresSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
    ...(input.params ?? []),
  ].filter(([k]) => k !== input.omit) as Array<[string, string]>;
  const query = buildQuery(params);
  const canonicalRequest = [
    input.method,
    canonicalUri(input.path),
    canonicalQuery(query),
    `host:${input.host}\n`,
    'host',
    UNSIGNED_PAYLOAD,
  ].join('\n');
  const stringToSign = [ALGORITHM, time, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = signingKey(input.credentials.secretAccessKey, time.slice(0, 8), region);
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
  if (input.omit === 'X-Amz-Signature') return query;
  return `${query}&X-Amz-Signature=${signature}`;
}

export interface ChunkedInput {
  data: Buffer;
  chunkSize: number;
  /** signed modes need the header signature as the chain's seed (§2.8) */
  signing?: { seedSignature: string; key: Buffer; amzDate: string; scope: string };
  trailer?: { name: string; value: string };
  /** sign the trailer (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER) */
  signTrailer?: boolean;
  /** corrupt the signature of chunk #n (0-based; the final 0-chunk is index = number of data chunks) */
  badChunkSignatureAt?: number;
  /** corrupt the trailer signature */
  badTrailerSignature?: boolean;
}

/** Encodes an aws-chunked body (§2.8) in one buffer; fine for the small bodies of the error tests. */
export function encodeAwsChunked(input: ChunkedInput): Buffer {
  const parts: Buffer[] = [];
  let previous = input.signing?.seedSignature ?? '';
  const chunks: Buffer[] = [];
  for (let off = 0; off < input.data.length; off += input.chunkSize) {
    chunks.push(input.data.subarray(off, off + input.chunkSize));
  }
  chunks.push(Buffer.alloc(0));
  chunks.forEach((chunk, i) => {
    const size = chunk.length.toString(16);
    if (input.signing) {
      const sts = [
        'AWS4-HMAC-SHA256-PAYLOAD',
        input.signing.amzDate,
        input.signing.scope,
        previous,
        EMPTY_SHA256,
        sha256Hex(chunk),
      ].join('\n');
      let sig = createHmac('sha256', input.signing.key).update(sts).digest('hex');
      previous = sig;
      if (input.badChunkSignatureAt === i) sig = sig.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      parts.push(Buffer.from(`${size};chunk-signature=${sig}\r\n`));
    } else {
      parts.push(Buffer.from(`${size}\r\n`));
    }
    if (chunk.length > 0) parts.push(chunk, Buffer.from('\r\n'));
  });
  if (input.trailer) {
    const line = `${input.trailer.name}:${input.trailer.value}`;
    parts.push(Buffer.from(line + '\r\n'));
    if (input.signTrailer && input.signing) {
      const sts = [
        'AWS4-HMAC-SHA256-TRAILER',
        input.signing.amzDate,
        input.signing.scope,
        previous,
        sha256Hex(`${input.trailer.name.toLowerCase()}:${input.trailer.value.trim()}\n`),
      ].join('\n');
      let sig = createHmac('sha256', input.signing.key).update(sts).digest('hex');
      if (input.badTrailerSignature) sig = sig.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      parts.push(Buffer.from(`x-amz-trailer-signature:${sig}\r\n`));
    }
  }
  parts.push(Buffer.from('\r\n'));
  return Buffer.concat(parts);
}
