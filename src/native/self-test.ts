// The native module's start-up self-test (style.md §9): golden vectors of every digest, the SIMD
// kernels against the portable ones, HMAC and AES-GCM against node:crypto.

import { createCipheriv, createHash, createHmac } from 'node:crypto';
import { gcmOpenBlocks, gcmSealBlocks, type GcmBlockKey } from './aes-gcm.js';
import { binding, DIGEST_ALL, type Binding, type Digests } from './native.js';

interface GoldenVector {
  name: string;
  input: () => Buffer;
  md5: string;
  sha256: string;
  sha1: string;
  crc32: number;
  crc32c: number;
  crc64nvme: bigint;
}

/** 1 MiB + 13 bytes of xorshift32 output: crosses every block and lane boundary of the kernels. */
function selfTestInput(): Buffer {
  return xorshiftBytes((1 << 20) + 13);
}

/** The first `length` bytes of the self-test's xorshift32 stream. */
function xorshiftBytes(length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

// Expected values computed with node:crypto, zlib.crc32, @aws-crypto/crc32c and @aws-sdk/crc64-nvme.
const GOLDEN: GoldenVector[] = [
  {
    name: 'empty',
    input: () => Buffer.alloc(0),
    md5: 'd41d8cd98f00b204e9800998ecf8427e',
    sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    crc32: 0,
    crc32c: 0,
    crc64nvme: 0n,
  },
  {
    name: '"123456789" (CRC check values)',
    input: () => Buffer.from('123456789'),
    md5: '25f9e794323b453885f5181f1b624d0b',
    sha256: '15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225',
    sha1: 'f7c3bc1d808e04732adf679965ccc34ca7ae3441',
    crc32: 0xcbf43926,
    crc32c: 0xe3069283,
    crc64nvme: 0xae8b14860a799888n,
  },
  {
    name: '1 MiB + 13 bytes of xorshift32',
    input: selfTestInput,
    md5: 'e01edceb2cc2fba3d4c0e9346c7f2625',
    sha256: '9c2a6bf52aea3d2f32e15f4c50a7b563232258db2bd97d01442466df0d129215',
    sha1: '39b6440117ac95e0d1f16aa2f2710c4d08719ad6',
    crc32: 0x1ac6f9d5,
    crc32c: 0x88dea3a3,
    crc64nvme: 0xf65abb4a5da024c8n,
  },
];

function mismatch(what: string, got: unknown, want: unknown): never {
  throw new Error(`native self-test failed: ${what}: got ${String(got)}, want ${String(want)}`);
}

function checkDigests(what: string, d: Digests, v: GoldenVector): void {
  if (d.md5?.toString('hex') !== v.md5) mismatch(`${what} md5`, d.md5?.toString('hex'), v.md5);
  if (d.sha256?.toString('hex') !== v.sha256) mismatch(`${what} sha256`, d.sha256?.toString('hex'), v.sha256);
  if (d.sha1?.toString('hex') !== v.sha1) mismatch(`${what} sha1`, d.sha1?.toString('hex'), v.sha1);
  if (d.crc32 !== v.crc32) mismatch(`${what} crc32`, d.crc32, v.crc32);
  if (d.crc32c !== v.crc32c) mismatch(`${what} crc32c`, d.crc32c, v.crc32c);
  if (d.crc64nvme !== v.crc64nvme) mismatch(`${what} crc64nvme`, d.crc64nvme, v.crc64nvme);
}

/**
 * Golden-vector self-test of every algorithm, one-shot and streamed in uneven chunks, plus the
 * SIMD CRC kernels against their portable twins and the multi-lane MD5/SHA-256 against
 * stream-by-stream hashing. Throws on any mismatch; the server refuses to start then. Takes a
 * few milliseconds.
 */
export function selfTest(): void {
  const native = binding();
  for (const v of GOLDEN) {
    const input = v.input();
    checkDigests(`${v.name} one-shot`, native.digestSync(input, DIGEST_ALL), v);
    const h = native.createHasher(DIGEST_ALL);
    for (let at = 0, step = 1; at < input.length; at += step, step = step * 3 + 1) {
      native.hasherUpdate(h, input.subarray(at, at + step));
    }
    checkDigests(`${v.name} streamed`, native.hasherDigest(h), v);
    if (native.crc32c(input.subarray(7), native.crc32c(input.subarray(0, 7))) !== v.crc32c) {
      mismatch(`${v.name} crc32c with seed`, '', v.crc32c);
    }
    for (const offset of [0, 1, 5, 13]) {
      const k = native.compareKernels(input.subarray(offset));
      if (k.crc32Simd !== k.crc32Portable) mismatch(`crc32 kernel at +${offset}`, k.crc32Simd, k.crc32Portable);
      if (k.crc32cSimd !== k.crc32cPortable) mismatch(`crc32c kernel at +${offset}`, k.crc32cSimd, k.crc32cPortable);
      if (k.crc64nvmeSimd !== k.crc64nvmePortable) {
        mismatch(`crc64nvme kernel at +${offset}`, k.crc64nvmeSimd, k.crc64nvmePortable);
      }
    }
  }
  const lanes = native.checkLanes();
  if (lanes !== undefined) throw new Error(`native self-test failed: multi-buffer hashing: ${lanes}`);
  checkHmac(native);
  checkGcmBlocks();
}

/** The native HMAC against node:crypto: keys shorter than, as long as and longer than a block, and non-ASCII data. */
function checkHmac(native: Binding): void {
  for (const [keyLength, data] of [[32, 'AWS4-HMAC-SHA256\n20261125T000000Z'], [64, ''], [100, 'ü€ '.repeat(50)]] as const) {
    const key = Buffer.alloc(keyLength, keyLength);
    const want = createHmac('sha256', key).update(data).digest('hex');
    const got = native.hmacSha256Hex(key, data);
    if (got !== want) mismatch(`hmac-sha256 with a ${keyLength}-byte key`, got, want);
    const hashed = `${data}\n€`;
    const wantHashed = createHmac('sha256', key).update(data + createHash('sha256').update(hashed).digest('hex')).digest('hex');
    const gotHashed = native.hmacSha256Hex(key, data, hashed);
    if (gotHashed !== wantHashed) mismatch(`hmac-sha256 of a string ending in a hash, ${keyLength}-byte key`, gotHashed, wantHashed);
  }
}

/**
 * The native GCM blocks against node:crypto block by block (2½ blocks, starting at block 7), opened
 * back, and a flipped bit in the second block failing it and only it.
 */
function checkGcmBlocks(): void {
  // the stream's first bytes only: generating the 1 MiB input again would cost start-up ~4 ms
  const input = xorshiftBytes(180);
  const k: GcmBlockKey = {
    key: input.subarray(0, 32),
    noncePrefix: Buffer.from('tusk-gcm'),
    aad: Buffer.from([0, 0, 0, 0, 0, 0, 0, 80]),
    blockSize: 32,
  };
  const plain = input.subarray(100, 180);
  const expected: Buffer[] = [];
  for (let i = 0; i * 32 < plain.length; i++) {
    const nonce = Buffer.concat([k.noncePrefix, Buffer.from([0, 0, 0, 7 + i])]);
    const c = createCipheriv('aes-256-gcm', k.key, nonce).setAAD(k.aad);
    expected.push(c.update(plain.subarray(i * 32, i * 32 + 32)), c.final(), c.getAuthTag());
  }
  const want = Buffer.concat(expected);
  const sealed = Buffer.alloc(want.length);
  gcmSealBlocks(k, 7, plain, sealed);
  if (!sealed.equals(want)) mismatch('AES-256-GCM blocks', sealed.toString('hex'), want.toString('hex'));
  const opened = Buffer.alloc(plain.length);
  const authentic = gcmOpenBlocks(k, 7, sealed, opened);
  if (authentic !== 3 || !opened.equals(plain)) mismatch('AES-256-GCM open', authentic, 3);
  sealed[48 + 3] ^= 1;
  const failed = gcmOpenBlocks(k, 7, sealed, opened);
  if (failed !== 1 || !opened.subarray(32, 64).equals(Buffer.alloc(32))) mismatch('AES-256-GCM altered block', failed, 1);
}
