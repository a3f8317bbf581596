import { createHmac, hash } from 'node:crypto';

/** Client-side AWS Signature V4 (header auth) for the load generator; canonical form per spec/s3.md §2.3. */
export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const X_AMZ_DATE = 'x-amz-date';
export const X_AMZ_CONTENT_SHA256 = 'x-amz-content-sha256';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const ALL_UNRESERVED = /^[A-Za-z0-9\-._~]*$/;
const ALL_UNRESERVED_OR_SLASH = /^[A-Za-z0-9\-._~/]*$/;

/** S3 URI encoding (§2.3): unreserved bytes literal, every other UTF-8 byte %XX upper-case; `/` kept when asked. */
export function uriEncode(text: string, keepSlash: boolean): string {
  if ((keepSlash ? ALL_UNRESERVED_OR_SLASH : ALL_UNRESERVED).test(text)) return text;
  let out = '';
  for (const ch of text) {
    if (UNRESERVED.test(ch) || (keepSlash && ch === '/')) {
      out += ch;
    } else {
      for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/** Encoded, sorted query string; send exactly this string so the canonical query equals the request's (§2.3). */
export function canonicalQuery(params: readonly (readonly [string, string])[]): string {
  return params
    .map(([name, value]) => [uriEncode(name, false), uriEncode(value, false)] as const)
    .sort((a, b) => (a[0] === b[0] ? compareBytes(a[1], b[1]) : compareBytes(a[0], b[0])))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0; // encoded strings are ASCII, so code-unit order is byte order
}

/** `20130524T000000Z` */
export function amzDate(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

export interface SignInput {
  method: string;
  /** Path already encoded with uriEncode(…, true): it is used verbatim as the CanonicalURI. */
  path: string;
  /** Output of canonicalQuery (or ''). */
  query: string;
  /** Lower-case names, all signed; must include `host`. Gains x-amz-date, x-amz-content-sha256, authorization. */
  headers: Record<string, string>;
  payloadHash: string;
}

export class SigV4Signer {
  private cachedDay = '';
  private cachedKey: Buffer = Buffer.alloc(0);

  constructor(private readonly credentials: Credentials) {}

  sign(input: SignInput, now: Date = new Date()): void {
    const { headers } = input;
    const time = amzDate(now);
    const day = time.slice(0, 8);
    headers[X_AMZ_DATE] = time;
    headers[X_AMZ_CONTENT_SHA256] = input.payloadHash;
    // Every header the generator sends is signed (a superset of what §2.4 requires).
    const names = Object.keys(headers).filter((name) => name !== 'authorization').sort();
    const canonicalHeaders = names.map((name) => `${name}:${normalizeValue(headers[name]!)}\n`).join('');
    const signedHeaders = names.join(';');
    const canonicalRequest = [
      input.method, input.path || '/', input.query, canonicalHeaders, signedHeaders, input.payloadHash,
    ].join('\n');
    const scope = `${day}/${this.credentials.region}/s3/aws4_request`;
    const stringToSign = [ALGORITHM, time, scope, sha256Hex(canonicalRequest)].join('\n');
    const signature = createHmac('sha256', this.signingKey(day)).update(stringToSign).digest('hex');
    headers['authorization'] =
      `${ALGORITHM} Credential=${this.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  }

  /** kSigning changes once a day per (key, region): cache it (§2.3). */
  private signingKey(day: string): Buffer {
    if (day !== this.cachedDay) {
      const kDate = hmac(`AWS4${this.credentials.secretAccessKey}`, day);
      const kRegion = hmac(kDate, this.credentials.region);
      const kService = hmac(kRegion, 's3');
      this.cachedKey = hmac(kService, 'aws4_request');
      this.cachedDay = day;
    }
    return this.cachedKey;
  }
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

function normalizeValue(value: string): string {
  return value.trim().replace(/ +/g, ' ');
}
