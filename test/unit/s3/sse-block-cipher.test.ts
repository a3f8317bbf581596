import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockAuthenticationError, BlockSealer, GCM_TAG, openBlock, sealedLength, sealedSpan, SSE_BLOCK } from '../../../src/s3/sse/block-cipher.js';
import { unwrapKey, wrapKey } from '../../../src/s3/sse/keys.js';

function seal(key: Buffer, prefix: Buffer, plain: Buffer, chunk: number): Buffer[] {
  const sealer = new BlockSealer(key, prefix, plain.length);
  const out: Buffer[] = [];
  for (let at = 0; at < plain.length; at += chunk) out.push(...sealer.push(plain.subarray(at, at + chunk)));
  out.push(...sealer.end());
  return out;
}

describe('SSE block cipher', () => {
  const key = randomBytes(32);
  const prefix = randomBytes(8);

  it('seals any chunking into the same blocks of the documented length, and opens them', () => {
    for (const size of [0, 1, SSE_BLOCK - 1, SSE_BLOCK, SSE_BLOCK + 1, 3 * SSE_BLOCK + 17]) {
      const plain = randomBytes(size);
      const a = seal(key, prefix, plain, 1000);
      const b = seal(key, prefix, plain, 65_537);
      expect(Buffer.concat(a)).toEqual(Buffer.concat(b));
      expect(Buffer.concat(a).length).toBe(sealedLength(size));
      expect(Buffer.concat(a.map((s, i) => openBlock(key, prefix, size, i, s)))).toEqual(plain);
    }
  });

  it('refuses an altered, moved or re-sized block', () => {
    const plain = randomBytes(2 * SSE_BLOCK);
    const [first, second] = seal(key, prefix, plain, SSE_BLOCK);
    const altered = Buffer.from(first!);
    altered[100]! ^= 1;
    expect(() => openBlock(key, prefix, plain.length, 0, altered)).toThrow(BlockAuthenticationError);
    expect(() => openBlock(key, prefix, plain.length, 0, second!)).toThrow(BlockAuthenticationError);
    expect(() => openBlock(key, prefix, plain.length + 1, 0, first!)).toThrow(BlockAuthenticationError);
    expect(() => openBlock(randomBytes(32), prefix, plain.length, 0, first!)).toThrow(BlockAuthenticationError);
  });

  it('maps a plaintext range to the sealed blocks that cover it', () => {
    const size = 3 * SSE_BLOCK + 10;
    const sealedBlock = SSE_BLOCK + GCM_TAG;
    expect(sealedSpan(size, 0, 1)).toEqual({ firstBlock: 0, from: 0, to: sealedBlock });
    expect(sealedSpan(size, SSE_BLOCK - 1, SSE_BLOCK + 1)).toEqual({ firstBlock: 0, from: 0, to: 2 * sealedBlock });
    expect(sealedSpan(size, 3 * SSE_BLOCK, size)).toEqual({ firstBlock: 3, from: 3 * sealedBlock, to: sealedLength(size) });
  });

  it('wraps data keys so that only the wrapping key unwraps them', () => {
    const wrapping = randomBytes(32);
    const dataKey = randomBytes(32);
    const wrapped = wrapKey(wrapping, dataKey);
    expect(unwrapKey(wrapping, wrapped)).toEqual(dataKey);
    expect(unwrapKey(randomBytes(32), wrapped)).toBeUndefined();
  });
});
