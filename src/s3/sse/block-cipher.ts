// Encryption at rest, block by block (issue 13 §5): AES-256-GCM over 64 KiB plaintext blocks, each
// stored as its ciphertext followed by its 16-byte tag, so that a range decrypts only the blocks
// it covers. Nonce = the object's 8-byte random prefix ‖ block index (32-bit BE): blocks cannot be
// reordered; the AAD is the object's plaintext size: a truncated or extended object fails.

// The cipher is Node's own OpenSSL called natively (src/native/aes-gcm.ts gcmSealBlocks/gcmOpenBlocks), a
// run of whole blocks per call: node:crypto would cost a cipher object, a zero-filled output buffer
// and a copy per block, twice the cipher's own work. A block split across chunks is gathered first.

import { randomBytes } from 'node:crypto';
import { BufferShelf } from '../../base/buffer-shelf.js';
import { gcmOpenBlocks, gcmSealBlocks, type GcmBlockKey } from '../../native/aes-gcm.js';

export const SSE_BLOCK = 64 * 1024;
export const GCM_TAG = 16;
const NONCE_PREFIX = 8;
const MAX_BLOCKS = 2 ** 32;
const EMPTY = Buffer.alloc(0);

/** Stored bytes of a plaintext of `size` bytes. */
export function sealedLength(size: number, blockSize = SSE_BLOCK): number {
  return size + Math.ceil(size / blockSize) * GCM_TAG;
}

export function newNoncePrefix(): Buffer {
  return randomBytes(NONCE_PREFIX);
}

function blockKey(key: Buffer, prefix: Buffer, size: number, blockSize: number): GcmBlockKey {
  if (Math.ceil(size / blockSize) > MAX_BLOCKS) throw new RangeError('object too large for SSE block numbering');
  const aad = Buffer.allocUnsafe(8);
  aad.writeBigUInt64BE(BigInt(size));
  return { key, noncePrefix: prefix, aad, blockSize };
}

/** Buffers that gather a block split across chunks, sealed or not. */
const partials = new BufferShelf(SSE_BLOCK + GCM_TAG, 16);

/**
 * Encrypts a plaintext stream of known size into sealed blocks, as it comes: each chunk gives the
 * sealed bytes of the blocks it completes (maybe none); `end` gives the last, short one.
 */
export class BlockSealer {
  private readonly k: GcmBlockKey;
  /** the plaintext of the block being gathered: partial[0, inBlock) */
  private partial: Buffer | undefined;
  private inBlock = 0;
  private block = 0;

  constructor(key: Buffer, prefix: Buffer, readonly size: number) {
    this.k = blockKey(key, prefix, size, SSE_BLOCK);
  }

  /** The sealed bytes of the blocks `chunk` completes, in a buffer of their own. */
  push(chunk: Buffer): Buffer {
    const completed = Math.floor((this.inBlock + chunk.length) / SSE_BLOCK);
    let at = 0;
    const out = completed > 0 ? Buffer.allocUnsafe(completed * (SSE_BLOCK + GCM_TAG)) : EMPTY;
    let pos = 0;
    if (this.inBlock > 0 && completed > 0) {
      at = SSE_BLOCK - this.inBlock;
      chunk.copy(this.partial!, this.inBlock, 0, at);
      pos = this.seal(this.partial!.subarray(0, SSE_BLOCK), out, pos);
      this.inBlock = 0;
    }
    const whole = Math.floor((chunk.length - at) / SSE_BLOCK) * SSE_BLOCK;
    if (whole > 0) pos = this.seal(chunk.subarray(at, at + whole), out, pos);
    at += whole;
    if (at < chunk.length) {
      this.partial ??= partials.take();
      this.inBlock += chunk.copy(this.partial, this.inBlock, at);
    }
    return out;
  }

  /** The sealed last, short block (empty when the size is a whole number of blocks). */
  end(): Buffer {
    if (this.inBlock === 0) return EMPTY;
    const out = Buffer.allocUnsafe(this.inBlock + GCM_TAG);
    this.seal(this.partial!.subarray(0, this.inBlock), out, 0);
    this.inBlock = 0;
    partials.giveBack(this.partial!);
    this.partial = undefined;
    return out;
  }

  private seal(plain: Buffer, out: Buffer, pos: number): number {
    const length = sealedLength(plain.length);
    gcmSealBlocks(this.k, this.block, plain, out.subarray(pos, pos + length));
    this.block += Math.ceil(plain.length / SSE_BLOCK);
    return pos + length;
  }
}

/**
 * Decrypts a stream of sealed blocks starting at block `block`, as it comes. A block's plaintext
 * is released only once its tag has verified: never a byte of an altered block.
 */
export class BlockOpener {
  private readonly k: GcmBlockKey;
  /** the sealed bytes of the block being gathered: partial[0, inBlock) */
  private partial: Buffer | undefined;
  private inBlock = 0;

  constructor(
    key: Buffer,
    prefix: Buffer,
    private readonly size: number,
    private readonly blockSize: number,
    private block: number,
  ) {
    this.k = blockKey(key, prefix, size, blockSize);
  }

  /** Plaintext bytes `sealed` can release at most, with what is held: room `into` must have. */
  static room(sealedBytes: number, blockSize: number): number {
    return sealedBytes + blockSize;
  }

  /**
   * Feeds `sealed`; the plaintext of the blocks it completes goes into `into` from `at` on.
   * Returns where it ends; throws BlockAuthenticationError for an altered block.
   */
  push(sealed: Buffer, into: Buffer, at: number): number {
    let from = 0;
    if (this.inBlock > 0) {
      const length = this.sealedBlockLength(this.block);
      from = Math.min(length - this.inBlock, sealed.length);
      this.inBlock += sealed.copy(this.partial!, this.inBlock, 0, from);
      if (this.inBlock < length) return at;
      at = this.open(this.partial!.subarray(0, length), 1, into, at);
      this.inBlock = 0;
    }
    let to = from;
    let blocks = 0;
    for (let length; to < sealed.length && to + (length = this.sealedBlockLength(this.block + blocks)) <= sealed.length; blocks++) {
      to += length;
    }
    if (blocks > 0) at = this.open(sealed.subarray(from, to), blocks, into, at);
    if (to < sealed.length) {
      this.partial ??= this.blockSize === SSE_BLOCK ? partials.take() : Buffer.allocUnsafe(this.blockSize + GCM_TAG);
      this.inBlock = sealed.copy(this.partial, 0, to);
    }
    return at;
  }

  /** Gives back what the opener holds; it is not used after. */
  close(): void {
    if (this.partial) partials.giveBack(this.partial);
    this.partial = undefined;
  }

  /** Sealed length of block `b`; a block past the last is an altered object. */
  private sealedBlockLength(b: number): number {
    const text = Math.min(this.blockSize, this.size - b * this.blockSize);
    if (text <= 0) throw new BlockAuthenticationError(b);
    return text + GCM_TAG;
  }

  private open(sealed: Buffer, blocks: number, into: Buffer, at: number): number {
    const length = sealed.length - blocks * GCM_TAG;
    const authentic = gcmOpenBlocks(this.k, this.block, sealed, into.subarray(at, at + length));
    if (authentic < blocks) throw new BlockAuthenticationError(this.block + authentic);
    this.block += blocks;
    return at + length;
  }
}

/** Where the sealed blocks covering plaintext bytes [start, end) lie in the stored body. */
export function sealedSpan(size: number, start: number, end: number, blockSize = SSE_BLOCK): { firstBlock: number; from: number; to: number } {
  const firstBlock = Math.floor(start / blockSize);
  const lastBlock = end > start ? Math.floor((end - 1) / blockSize) : firstBlock;
  return {
    firstBlock,
    from: firstBlock * (blockSize + GCM_TAG),
    to: Math.min(sealedLength(size, blockSize), (lastBlock + 1) * (blockSize + GCM_TAG)),
  };
}

export class BlockAuthenticationError extends Error {
  constructor(block: number) {
    super(`stored block ${block} failed authentication`);
  }
}
