// RFC 6238 Appendix B test vectors (SHA-1 seed "12345678901234567890"), last 6 digits of the
// 8-digit values, and base32 round trips.

import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchingStep, newSecret, totp } from '../../src/identity/totp.js';

const SEED = Buffer.from('12345678901234567890');

describe('TOTP (RFC 6238)', () => {
  it.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1111111111, '050471'],
    [1234567890, '005924'],
    [2000000000, '279037'],
    [20000000000, '353130'],
  ])('at %i s the code is %s', (seconds, code) => {
    expect(totp(SEED, seconds * 1000)).toBe(code);
  });
  it('HOTP counter 0 and 1 (RFC 4226 Appendix D)', () => {
    expect(hotp(SEED, 0)).toBe('755224');
    expect(hotp(SEED, 1)).toBe('287082');
  });
  it('accepts one step of drift either way, not two', () => {
    const t = 1_700_000_000_000;
    expect(matchingStep(SEED, totp(SEED, t - 30_000), t)).toBe(Math.floor(t / 30_000) - 1);
    expect(matchingStep(SEED, totp(SEED, t + 30_000), t)).toBe(Math.floor(t / 30_000) + 1);
    expect(matchingStep(SEED, totp(SEED, t - 60_000), t)).toBeUndefined();
    expect(matchingStep(SEED, '12345', t)).toBeUndefined();
  });
  it('base32 round-trips (RFC 4648 §10 vector)', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI').toString()).toBe('foobar');
    const s = newSecret();
    expect(base32Decode(base32Encode(s))).toEqual(s);
  });
});
