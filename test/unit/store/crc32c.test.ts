import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { AwsCrc32c } from '@aws-crypto/crc32c';
import { crc32cJs, fastestCrc32c } from '../../../src/store/crc32c.js';

async function reference(buf: Uint8Array): Promise<number> {
  const h = new AwsCrc32c();
  h.update(buf);
  return Buffer.from(await h.digest()).readUInt32BE(0);
}

describe('crc32cJs', () => {
  it('matches the standard check value', () => {
    expect(crc32cJs(Buffer.from('123456789'), 0)).toBe(0xe3069283);
    expect(crc32cJs(Buffer.alloc(0), 0)).toBe(0);
  });

  it('matches @aws-crypto/crc32c on random data of every tail length', async () => {
    for (const n of [1, 7, 8, 9, 63, 64, 1000, 65_537]) {
      const b = randomBytes(n);
      expect(crc32cJs(b, 0)).toBe(await reference(b));
    }
  });

  it('continues from a seed across chunk boundaries', async () => {
    const b = randomBytes(10_000);
    const whole = await reference(b);
    let crc = 0;
    for (let i = 0; i < b.length; i += 333) crc = crc32cJs(b.subarray(i, i + 333), crc);
    expect(crc).toBe(whole);
  });

  it('the implementation the store picks (native when built) agrees with the TypeScript one', async () => {
    const fastest = await fastestCrc32c();
    const b = randomBytes(100_003);
    expect(fastest(b, 0)).toBe(crc32cJs(b, 0));
    expect(fastest(b.subarray(50), fastest(b.subarray(0, 50), 0))).toBe(crc32cJs(b, 0));
  });
});
