// Encryption at rest, block by block (issue 13 §5): AES-256-GCM over 64 KiB plaintext blocks, each
// stored as its ciphertext followed by its 16-byte tag, so that a range decrypts only the blocks
// it covers. Nonce = the object's 8-byte random prefix ‖ block index (32-bit BE): blocks cannot be
// reordered; the AAD is the object's plaintext size: a truncated or extended object fails.

import { createCipheriv, createDecipheriv, randomBytes, type CipherGCM, type DecipherGCM } from 'node:crypto';

export const SSE_BLOCK = 64 * 1024;
export const GCM_TAG = 16;
const NONCE_PREFIX = 8;
const MAX_BLOCKS = 2 ** 32;

/** Stored bytes of a plaintext of `size` bytes. */
export function sealedLength(size: number): number {
  return size + Math.ceil(size / SSE_BLOCK) * GCM_TAG;
}

export function newNoncePrefix(): Buffer {
  return randomBytes(NONCE_PREFIX);
}

function nonce(prefix: Buffer, block: number): Buffer {
  const n = Buffer.allocUnsafe(12);
  prefix.copy(n, 0);
  n.writeUInt32BE(block, NONCE_PREFIX);
  return n;
}

function aad(size: number): Buffer {
  const a = Buffer.allocUnsafe(8);
  a.writeBigUInt64BE(BigInt(size));
  return a;
}

/**
 * Encrypts a plaintext stream of known size into sealed blocks, as it comes: each chunk becomes one
 * buffer of its ciphertext with the tags of the blocks it completes in their places.
 */
export class BlockSealer {
  private cipher: CipherGCM | undefined;
  private inBlock = 0;
  private block = 0;
  private readonly aad: Buffer;

  constructor(
    private readonly key: Buffer,
    private readonly prefix: Buffer,
    readonly size: number,
  ) {
    if (Math.ceil(size / SSE_BLOCK) > MAX_BLOCKS) throw new RangeError('object too large for SSE block numbering');
    this.aad = aad(size);
  }

  /** The sealed bytes `chunk` makes: its ciphertext, and the tags of the blocks it completes. */
  push(chunk: Buffer): Buffer {
    const tags = Math.floor((this.inBlock + chunk.length) / SSE_BLOCK);
    const out = Buffer.allocUnsafe(chunk.length + tags * GCM_TAG);
    let pos = 0;
    for (let at = 0; at < chunk.length; ) {
      const take = Math.min(SSE_BLOCK - this.inBlock, chunk.length - at);
      this.cipher ??= this.begin();
      pos += this.cipher.update(chunk.subarray(at, at + take)).copy(out, pos);
      this.inBlock += take;
      at += take;
      if (this.inBlock === SSE_BLOCK) pos += this.finish().copy(out, pos);
    }
    return out;
  }

  /** The tag of the last, short block (empty when the size is a whole number of blocks). */
  end(): Buffer {
    return this.inBlock > 0 ? this.finish() : Buffer.alloc(0);
  }

  private begin(): CipherGCM {
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce(this.prefix, this.block++));
    cipher.setAAD(this.aad);
    return cipher;
  }

  /** The finished block's tag (GCM's final() adds no bytes). */
  private finish(): Buffer {
    this.cipher!.final();
    const tag = this.cipher!.getAuthTag();
    this.cipher = undefined;
    this.inBlock = 0;
    return tag;
  }
}

/**
 * Decrypts a stream of sealed blocks starting at block `block`, as it comes. A block's plaintext
 * is released only once its tag has verified: never a byte of an altered block.
 */
export class BlockOpener {
  private decipher: DecipherGCM | undefined;
  /** sealed bytes of the current block taken so far */
  private inBlock = 0;
  /** the current block's plaintext, held until its tag verifies */
  private held: Buffer[] = [];
  private readonly tag = Buffer.alloc(GCM_TAG);
  private readonly aad: Buffer;

  constructor(
    private readonly key: Buffer,
    private readonly prefix: Buffer,
    private readonly size: number,
    private readonly blockSize: number,
    private block: number,
  ) {
    this.aad = aad(size);
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
    for (let from = 0; from < sealed.length; ) {
      const text = Math.min(this.blockSize, this.size - this.block * this.blockSize);
      if (text <= 0) throw new BlockAuthenticationError(this.block); // sealed bytes past the last block
      this.decipher ??= this.begin();
      if (this.inBlock < text) {
        const take = Math.min(text - this.inBlock, sealed.length - from);
        this.held.push(this.decipher.update(sealed.subarray(from, from + take)));
        this.inBlock += take;
        from += take;
        continue;
      }
      const take = Math.min(text + GCM_TAG - this.inBlock, sealed.length - from);
      sealed.copy(this.tag, this.inBlock - text, from, from + take);
      this.inBlock += take;
      from += take;
      if (this.inBlock === text + GCM_TAG) at = this.finish(into, at);
    }
    return at;
  }

  private begin(): DecipherGCM {
    const decipher = createDecipheriv('aes-256-gcm', this.key, nonce(this.prefix, this.block));
    decipher.setAAD(this.aad);
    return decipher;
  }

  private finish(into: Buffer, at: number): number {
    const decipher = this.decipher!;
    decipher.setAuthTag(this.tag);
    try {
      decipher.final();
    } catch {
      throw new BlockAuthenticationError(this.block);
    }
    for (const piece of this.held) at += piece.copy(into, at);
    this.held = [];
    this.decipher = undefined;
    this.inBlock = 0;
    this.block++;
    return at;
  }
}

/** Where the sealed blocks covering plaintext bytes [start, end) lie in the stored body. */
export function sealedSpan(size: number, start: number, end: number): { firstBlock: number; from: number; to: number } {
  const firstBlock = Math.floor(start / SSE_BLOCK);
  const lastBlock = end > start ? Math.floor((end - 1) / SSE_BLOCK) : firstBlock;
  return {
    firstBlock,
    from: firstBlock * (SSE_BLOCK + GCM_TAG),
    to: Math.min(sealedLength(size), (lastBlock + 1) * (SSE_BLOCK + GCM_TAG)),
  };
}

export class BlockAuthenticationError extends Error {
  constructor(block: number) {
    super(`stored block ${block} failed authentication`);
  }
}
