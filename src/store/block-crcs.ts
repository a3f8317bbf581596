// Per-block CRC32C of a body (index format 2): every BLOCK_SIZE bytes from the body's start get
// their own checksum, so that a read of any range checks only the blocks it touches before a byte
// leaves the server.

import type { Crc32c } from './crc32c.js';

/** 1 MiB: 4 bytes of index per MiB stored, and a 1 MiB read at most to check any byte. */
export const BLOCK_SIZE = 1 << 20;

export function blockCount(size: number): number {
  return Math.ceil(size / BLOCK_SIZE);
}

/** Accumulates the block CRCs of a body written front to back in chunks of any size. */
export class BlockCrcs {
  private readonly out: Buffer;
  private block = 0;
  private filled = 0;
  private crc = 0;

  constructor(
    private readonly size: number,
    private readonly crc32c: Crc32c,
  ) {
    this.out = Buffer.alloc(blockCount(size) * 4);
  }

  update(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(chunk.length - at, BLOCK_SIZE - this.filled);
      this.crc = this.crc32c(take === chunk.length ? chunk : chunk.subarray(at, at + take), this.crc);
      this.filled += take;
      at += take;
      if (this.filled === BLOCK_SIZE) this.close();
    }
  }

  finish(): Uint8Array {
    if (this.filled > 0) this.close();
    if (this.block * 4 !== this.out.length) throw new Error(`block CRCs of ${this.size} bytes: ${this.block} blocks written`);
    // a plain Uint8Array, as it reads back from the index
    return new Uint8Array(this.out.buffer, this.out.byteOffset, this.out.length);
  }

  private close(): void {
    this.out.writeUInt32LE(this.crc >>> 0, this.block * 4);
    this.block++;
    this.filled = 0;
    this.crc = 0;
  }
}
