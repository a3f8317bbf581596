import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockAuthenticationError, BlockOpener, BlockSealer, GCM_TAG, sealedLength, sealedSpan, SSE_BLOCK } from '../../../src/s3/sse/block-cipher.js';
import { unwrapKey, wrapKey } from '../../../src/s3/sse/keys.js';

function seal(key: Buffer, prefix: Buffer, plain: Buffer, chunk: number): Buffer[] {
  const sealer = new BlockSealer(key, prefix, plain.length);
  const out: Buffer[] = [];
  for (let at = 0; at < plain.length; at += chunk) out.push(sealer.push(plain.subarray(at, at + chunk)));
  out.push(sealer.end());
  return out;
}

/** Opens `sealed` (starting at block `first`) fed in pieces of `chunk` bytes. */
function open(key: Buffer, prefix: Buffer, size: number, sealed: Buffer, chunk: number, first = 0): Buffer {
  const opener = new BlockOpener(key, prefix, size, SSE_BLOCK, first);
  const out: Buffer[] = [];
  const into = Buffer.alloc(BlockOpener.room(chunk, SSE_BLOCK));
  for (let at = 0; at < sealed.length; at += chunk) out.push(Buffer.from(into.subarray(0, opener.push(sealed.subarray(at, at + chunk), into, 0))));
  return Buffer.concat(out);
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
      for (const chunk of [777, 4099, SSE_BLOCK + GCM_TAG, 1 << 20]) expect(open(key, prefix, size, Buffer.concat(a), chunk)).toEqual(plain);
    }
  });

  it('opens from any block, and refuses an altered, moved or re-sized block before releasing a byte of it', () => {
    const plain = randomBytes(2 * SSE_BLOCK);
    const sealed = Buffer.concat(seal(key, prefix, plain, SSE_BLOCK));
    const [first, second] = [sealed.subarray(0, SSE_BLOCK + GCM_TAG), sealed.subarray(SSE_BLOCK + GCM_TAG)];
    expect(open(key, prefix, plain.length, second, 999, 1)).toEqual(plain.subarray(SSE_BLOCK));
    const altered = Buffer.from(first);
    altered[100]! ^= 1;
    const opener = new BlockOpener(key, prefix, plain.length, SSE_BLOCK, 0);
    const into = Buffer.alloc(BlockOpener.room(SSE_BLOCK + GCM_TAG, SSE_BLOCK));
    expect(opener.push(altered.subarray(0, SSE_BLOCK), into, 0)).toBe(0); // nothing before the tag
    expect(() => opener.push(altered.subarray(SSE_BLOCK), into, 0)).toThrow(BlockAuthenticationError);
    expect(() => open(key, prefix, plain.length, second, 4096)).toThrow(BlockAuthenticationError);
    expect(() => open(key, prefix, plain.length + 1, first, 4096)).toThrow(BlockAuthenticationError);
    expect(() => open(randomBytes(32), prefix, plain.length, first, 4096)).toThrow(BlockAuthenticationError);
    // bytes past the last block
    expect(() => open(key, prefix, plain.length, Buffer.concat([sealed, Buffer.alloc(1)]), 1 << 20)).toThrow(BlockAuthenticationError);
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
