import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockAuthenticationError, BlockOpener, BlockSealer, GCM_TAG, sealedLength, sealedSpan, SSE_BLOCK } from '../../../src/s3/sse/block-cipher.js';
import { unwrapKey, wrapKey } from '../../../src/s3/sse/keys.js';
import { gcmOpenBlocks, gcmSealBlocks } from '../../../src/native/aes-gcm.js';

function seal(key: Buffer, prefix: Buffer, plain: Buffer, chunk: number): Buffer[] {
  const sealer = new BlockSealer(key, prefix, plain.length);
  const out: Buffer[] = [];
  for (let at = 0; at < plain.length; at += chunk) out.push(sealer.push(plain.subarray(at, at + chunk)));
  out.push(sealer.end());
  return out;
}

function sealedSizeAad(size: number): Buffer {
  const aad = Buffer.alloc(8);
  aad.writeBigUInt64BE(BigInt(size));
  return aad;
}

/** Opens `sealed` (starting at block `first`) fed in pieces of `chunk` bytes. */
function open(key: Buffer, prefix: Buffer, size: number, sealed: Buffer, chunk: number, first = 0): Buffer {
  const opener = new BlockOpener(key, prefix, size, SSE_BLOCK, first);
  const out: Buffer[] = [];
  const into = Buffer.alloc(BlockOpener.room(chunk, SSE_BLOCK));
  for (let at = 0; at < sealed.length; at += chunk) out.push(Buffer.from(into.subarray(0, opener.push(sealed.subarray(at, at + chunk), into, 0))));
  return Buffer.concat(out);
}

/** The format, block by block with node:crypto: ciphertext ‖ tag, nonce = prefix ‖ block (BE), AAD = size (BE). */
function referenceSeal(key: Buffer, prefix: Buffer, plain: Buffer): Buffer {
  const aad = sealedSizeAad(plain.length);
  const out: Buffer[] = [];
  for (let block = 0; block * SSE_BLOCK < plain.length; block++) {
    const nonce = Buffer.alloc(12);
    prefix.copy(nonce);
    nonce.writeUInt32BE(block, 8);
    const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(aad);
    out.push(cipher.update(plain.subarray(block * SSE_BLOCK, (block + 1) * SSE_BLOCK)), cipher.final(), cipher.getAuthTag());
  }
  return Buffer.concat(out);
}

describe('SSE block cipher', () => {
  const key = randomBytes(32);
  const prefix = randomBytes(8);

  it('seals exactly the documented format (objects sealed through node:crypto stay readable)', () => {
    const plain = randomBytes(3 * SSE_BLOCK + 1234);
    const reference = referenceSeal(key, prefix, plain);
    expect(Buffer.concat(seal(key, prefix, plain, 300_001))).toEqual(reference);
    expect(open(key, prefix, plain.length, reference, 100_000)).toEqual(plain);
  });

  it('names the altered block of a run opened in one call, and releases none of its bytes', () => {
    const plain = randomBytes(4 * SSE_BLOCK);
    const sealed = referenceSeal(key, prefix, plain);
    sealed[2 * (SSE_BLOCK + GCM_TAG) + 5]! ^= 0x80;
    const into = Buffer.alloc(plain.length);
    const opener = new BlockOpener(key, prefix, plain.length, SSE_BLOCK, 0);
    expect(() => opener.push(sealed, into, 0)).toThrow(/stored block 2 failed authentication/);
    const k = { key, noncePrefix: prefix, aad: sealedSizeAad(plain.length), blockSize: SSE_BLOCK };
    into.fill(0xff);
    expect(gcmOpenBlocks(k, 0, sealed, into)).toBe(2);
    expect(into.subarray(0, 2 * SSE_BLOCK)).toEqual(plain.subarray(0, 2 * SSE_BLOCK));
    expect(into.subarray(2 * SSE_BLOCK, 3 * SSE_BLOCK).every((b) => b === 0)).toBe(true);
  });

  it('refuses malformed native calls with a clear error', () => {
    const k = { key, noncePrefix: prefix, aad: Buffer.alloc(8), blockSize: 16 };
    const plain = randomBytes(40);
    expect(() => gcmSealBlocks({ ...k, key: randomBytes(16) }, 0, plain, Buffer.alloc(88))).toThrow(RangeError);
    expect(() => gcmSealBlocks({ ...k, noncePrefix: randomBytes(12) }, 0, plain, Buffer.alloc(88))).toThrow(RangeError);
    expect(() => gcmSealBlocks(k, 0, plain, Buffer.alloc(87))).toThrow(/sealed must be 88 bytes/);
    expect(() => gcmSealBlocks(k, 2 ** 32 - 2, plain, Buffer.alloc(88))).toThrow(/2\^32/);
    const both = Buffer.alloc(200);
    expect(() => gcmSealBlocks(k, 0, both.subarray(0, 40), both.subarray(30, 118))).toThrow(/overlap/);
    const sealed = Buffer.alloc(88);
    gcmSealBlocks(k, 0, plain, sealed);
    expect(() => gcmOpenBlocks(k, 0, sealed.subarray(0, 32 + 10), Buffer.alloc(40))).toThrow(/whole block/);
    expect(() => gcmOpenBlocks(k, 0, sealed, Buffer.alloc(39))).toThrow(/too short/);
    const opened = Buffer.alloc(40);
    expect(gcmOpenBlocks(k, 0, sealed, opened)).toBe(3);
    expect(opened).toEqual(plain);
  });

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
