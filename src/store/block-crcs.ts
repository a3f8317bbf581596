// Per-block CRC32C of a body (index format 2): every BLOCK_SIZE bytes from the body's start get
// their own checksum, so that a read of any range checks only the blocks it touches before a byte
// leaves the server.

import { CRC32C_MODEL, crcCombine } from '../base/crc-combine.js';
import type { Crc32c } from './crc32c.js';

/** 1 MiB: 4 bytes of index per MiB stored, and a 1 MiB read at most to check any byte. */
export const BLOCK_SIZE = 1 << 20;

export function blockCount(size: number): number {
  return Math.ceil(size / BLOCK_SIZE);
}

/**
 * Accumulates the block CRCs of a body written front to back in chunks of any size, and the CRC of
 * the whole body from them (combined, not computed again over the bytes).
 */
export class BlockCrcs {
  private readonly out: Buffer;
  private block = 0;
  private filled = 0;
  private crc = 0;
  private whole = 0;
  private finished: Uint8Array | undefined;

  constructor(
    private readonly size: number,
    private readonly crc32c: Crc32c,
  ) {
    this.out = Buffer.alloc(blockCount(size) * 4);
  }

  update(chunk: Buffer): void {
    if (this.finished) throw new Error('block CRCs updated after finish');
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(chunk.length - at, BLOCK_SIZE - this.filled);
      this.crc = this.crc32c(take === chunk.length ? chunk : chunk.subarray(at, at + take), this.crc);
      this.filled += take;
      at += take;
      if (this.filled === BLOCK_SIZE) this.close();
    }
  }

  /** The block CRCs, little-endian uint32s; ends the body (a shorter last block closes here). */
  finish(): Uint8Array {
    if (this.finished) return this.finished;
    if (this.filled > 0) this.close();
    if (this.block * 4 !== this.out.length) throw new Error(`block CRCs of ${this.size} bytes: ${this.block} blocks written`);
    // a plain Uint8Array, as it reads back from the index
    return (this.finished = new Uint8Array(this.out.buffer, this.out.byteOffset, this.out.length));
  }

  /** CRC32C of the whole body; ends it as finish() does. */
  bodyCrc(): number {
    this.finish();
    return this.whole;
  }

  private close(): void {
    const crc = this.crc >>> 0;
    this.out.writeUInt32LE(crc, this.block * 4);
    // the first block's CRC is the body's so far: no combining (and no BigInt) for bodies of one block
    this.whole = this.block === 0 ? crc : Number(crcCombine(CRC32C_MODEL, BigInt(this.whole), BigInt(crc), this.filled));
    this.block++;
    this.filled = 0;
    this.crc = 0;
  }
}
