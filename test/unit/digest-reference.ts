// What the native digest tests compare against: every digest from node:crypto, zlib and the AWS
// SDK's CRC libraries, and a seeded PRNG so that a failing chunking can be reproduced.

import { createHash } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32c as awsCrc32c } from '@aws-crypto/crc32c';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import type { Digests } from '../../src/native/native.js';

export async function reference(data: Uint8Array): Promise<Required<Digests>> {
  const crc64 = new Crc64Nvme();
  crc64.update(data);
  return {
    md5: createHash('md5').update(data).digest(),
    sha256: createHash('sha256').update(data).digest(),
    sha1: createHash('sha1').update(data).digest(),
    crc32: zlibCrc32(data),
    crc32c: awsCrc32c(data),
    crc64nvme: Buffer.from(await crc64.digest()).readBigUInt64BE(),
  };
}

/** Deterministic PRNG (mulberry32) so a failing case can be reproduced. */
export function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
