// SigV4 signing key derivation with a small bounded cache, plus the digest helpers every signature
// step uses (s3.md §2.3, §2.8).

import { createHmac, hash } from 'node:crypto';
import { hmacSha256Hex } from '../../native/native.js';
import { SCOPE_TERMINATOR, SERVICE_S3, SIGNING_KEY_PREFIX } from './constants.js';

/** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request"). */
export function deriveSigningKey(secretKey: string, date: string, region: string, service = SERVICE_S3): Buffer {
  const kDate = createHmac('sha256', SIGNING_KEY_PREFIX + secretKey).update(date).digest();
  const kRegion = createHmac('sha256', kDate).update(region).digest();
  const kService = createHmac('sha256', kRegion).update(service).digest();
  return createHmac('sha256', kService).update(SCOPE_TERMINATOR).digest();
}

/**
 * Keys live for one UTC day per (access key, secret, region); a handful of keys is typical, so a
 * small map with oldest-first eviction is enough. The secret is part of the cache key so that a
 * rotated secret never reuses a stale key.
 */
export class SigningKeyCache {
  private readonly map = new Map<string, Buffer>();

  constructor(private readonly maxEntries = 256) {}

  get(accessKeyId: string, secretKey: string, date: string, region: string): Buffer {
    const id = `${accessKeyId}\n${secretKey}\n${date}\n${region}`;
    let key = this.map.get(id);
    if (key === undefined) {
      key = deriveSigningKey(secretKey, date, region);
      if (this.map.size >= this.maxEntries) {
        const oldest = this.map.keys().next().value;
        if (oldest !== undefined) this.map.delete(oldest);
      }
      this.map.set(id, key);
    }
    return key;
  }

  get size(): number {
    return this.map.size;
  }
}

export function sha256Hex(data: string | Buffer): string {
  return hash('sha256', data, 'hex'); // one-shot: half the cost of a Hash object per request
}

/** HMAC of `data`, followed when `hashed` is given by `sha256Hex(hashed)` (a string to sign's last line). */
export function hmacHex(key: Buffer, data: string, hashed?: string): string {
  return hmacSha256Hex(key, data, hashed); // native: a node:crypto Hmac object per request was ~9% of a 4 KiB GET's CPU
}

/**
 * Comparison of two hex signatures whose time does not depend on where they differ (no early exit;
 * only the length, which is public, short-circuits). Avoids timingSafeEqual's two Buffer copies.
 */
export function signaturesEqual(expectedHex: string, providedHex: string): boolean {
  const n = expectedHex.length;
  if (n !== providedHex.length) return false;
  let diff = 0;
  for (let i = 0; i < n; i++) diff |= expectedHex.charCodeAt(i) ^ providedHex.charCodeAt(i);
  return diff === 0;
}

/** True for exactly `length` hex digits (either case). */
export function isHex(s: string, length: number): boolean {
  if (s.length !== length) return false;
  for (let i = 0; i < length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46))) return false;
  }
  return true;
}
