// TOTP codes (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 30-second steps, 6 digits — what
// authenticator apps and S3's MFA delete use (s3.md §2.14). Secrets travel as RFC 4648 base32.

import { createHmac, randomBytes } from 'node:crypto';

export const TOTP_STEP_MS = 30_000;
export const TOTP_DIGITS = 6;
/** Secret length of 160 bits, as RFC 4226 §4 recommends for HMAC-SHA1. */
const SECRET_BYTES = 20;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function newSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/=+$/, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of clean) {
    const v = BASE32.indexOf(c);
    if (v < 0) throw new Error(`not base32: '${c}'`);
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** HOTP (RFC 4226 §5.3): dynamic truncation of HMAC-SHA1(secret, counter). */
export function hotp(secret: Buffer, counter: number): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

export function stepAt(ms: number): number {
  return Math.floor(ms / TOTP_STEP_MS);
}

export function totp(secret: Buffer, ms: number): string {
  return hotp(secret, stepAt(ms));
}

/**
 * The step whose code `code` is, within ±`window` steps of `ms` (RFC 6238 §5.2 allows one step of
 * clock drift either way), or undefined.
 */
export function matchingStep(secret: Buffer, code: string, ms: number, window = 1): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = stepAt(ms);
  for (let step = now - window; step <= now + window; step++) if (hotp(secret, step) === code) return step;
  return undefined;
}
