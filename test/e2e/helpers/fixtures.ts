// Shared test data: the nasty keys of style.md §11, collision-free bucket names, bodies and their digests.

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

/** Keys every object test must survive (style.md §11, s3.md §1.2 and §1.4). */
export const NASTY_KEYS: readonly string[] = [
  'with space.txt',
  'plus+sign+key',
  'percent%20literal%',
  'double//slash',
  '/leading-slash',
  'trailing/',
  'emoji-\u{1F418}-\u{10348}.bin',
  'ütf8/ñame/中文',
  'query?and&amp=1#hash',
  'tilde~star*paren()',
  'k'.repeat(1024),
  '\u{1F418}'.repeat(256), // 1024 bytes of 4-byte UTF-8
];

let counter = 0;
/** A valid, unique bucket name (s3.md §1.3). */
export function bucketName(label = 'b'): string {
  counter += 1;
  return `${label}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}`.toLowerCase().slice(0, 63);
}

export function randomBody(size: number): Buffer {
  return randomBytes(size);
}

export function md5Hex(data: Buffer | string): string {
  return createHash('md5').update(data).digest('hex');
}

/** The `x-amz-checksum-crc32` value of `data`: big-endian CRC-32, base64. */
export function crc32Base64(data: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data) >>> 0);
  return out.toString('base64');
}

/**
 * A deterministic pseudo-random stream of `size` bytes, produced in `chunk`-sized pieces so that
 * multi-GiB bodies never sit in the test's memory; `digest()` gives the MD5 of what was emitted.
 */
export function generatedStream(size: number, chunk = 1 << 20): { stream: Readable; md5: () => string } {
  const hash = createHash('md5');
  const block = randomBytes(chunk);
  let sent = 0;
  let round = 0;
  const stream = new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const n = Math.min(chunk, size - sent);
      // vary each block cheaply so the content is not periodic
      const piece = Buffer.from(block.subarray(0, n));
      if (n >= 4) piece.writeUInt32LE(round >>> 0, 0);
      round += 1;
      hash.update(piece);
      sent += n;
      this.push(piece);
    },
  });
  let digest: string | undefined;
  return { stream, md5: () => (digest ??= hash.digest('hex')) };
}

/** A temp dir the test owns (for restarts on the same data dir). */
export function makeTempDirFixture(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'tusk-e2e-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
