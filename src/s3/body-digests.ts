// The fused digest pass of a request body (MD5 for the ETag plus whatever the request needs), on
// the native module: small chunks inline, large ones on the libuv thread pool.

import { checksumBytes, DIGEST, Hasher } from '../native/native.js';
import type { DigestName, DigestSet } from './checksums.js';

export interface BodyHasher {
  update(chunk: Buffer): Promise<void>;
  digest(): DigestSet;
}

export interface BodyDigester {
  create(need: ReadonlySet<DigestName>): BodyHasher;
}

const BITS: Record<DigestName, number> = {
  sha256: DIGEST.SHA256,
  sha1: DIGEST.SHA1,
  crc32: DIGEST.CRC32,
  crc32c: DIGEST.CRC32C,
  crc64nvme: DIGEST.CRC64NVME,
};

export function createBodyDigester(): BodyDigester {
  return {
    create(need) {
      let mask = DIGEST.MD5;
      for (const name of need) mask |= BITS[name];
      const hasher = new Hasher(mask);
      return {
        update: (chunk) => hasher.updateAsync(chunk),
        digest() {
          const d = hasher.digest();
          const out: DigestSet = { md5: d.md5! };
          if (d.sha256) out.sha256 = d.sha256;
          if (d.sha1) out.sha1 = d.sha1;
          if (d.crc32 !== undefined) out.crc32 = checksumBytes(d.crc32);
          if (d.crc32c !== undefined) out.crc32c = checksumBytes(d.crc32c);
          if (d.crc64nvme !== undefined) out.crc64nvme = checksumBytes(d.crc64nvme);
          return out;
        },
      };
    },
  };
}
