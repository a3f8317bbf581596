// Encryption at rest, block by block (issue 13 §5): AES-256-GCM over 64 KiB plaintext blocks, each
// stored as its ciphertext followed by its 16-byte tag, so that a range decrypts only the blocks
// it covers. Nonce = the object's 8-byte random prefix ‖ block index (32-bit BE): blocks cannot be
// reordered; the AAD is the object's plaintext size: a truncated or extended object fails.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

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

/** Encrypts a plaintext stream of known size into sealed blocks. */
export class BlockSealer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
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

  /** Sealed blocks completed by `chunk` (possibly none). */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(SSE_BLOCK - this.pendingBytes, chunk.length - at);
      this.pending.push(chunk.subarray(at, at + take));
      this.pendingBytes += take;
      at += take;
      if (this.pendingBytes === SSE_BLOCK) out.push(this.seal());
    }
    return out;
  }

  /** The last, short block (if any). */
  end(): Buffer[] {
    return this.pendingBytes > 0 ? [this.seal()] : [];
  }

  private seal(): Buffer {
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce(this.prefix, this.block++));
    cipher.setAAD(this.aad);
    const parts = this.pending.map((p) => cipher.update(p));
    parts.push(cipher.final(), cipher.getAuthTag());
    this.pending = [];
    this.pendingBytes = 0;
    return Buffer.concat(parts);
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

/** Decrypts one sealed block (ciphertext ‖ tag); throws BlockAuthenticationError when it was altered. */
export function openBlock(key: Buffer, prefix: Buffer, size: number, block: number, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce(prefix, block));
  decipher.setAAD(aad(size));
  decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - GCM_TAG)), decipher.final()]);
  } catch {
    throw new BlockAuthenticationError(block);
  }
}
