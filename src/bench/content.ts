import { createCipheriv, createHash, type Hash } from 'node:crypto';

/**
 * Deterministic object content, so a GET can be verified without storing what was PUT.
 *
 * A body of `size` bytes for `key` is `pattern[0 .. size-k) ++ stamp(key, size)[0 .. k)` with
 * k = min(STAMP_BYTES, size). The pattern is one incompressible AES-256-CTR stream per seed, shared by
 * every object (so memory is one buffer of the largest size, allocated once); the stamp ties the bytes to
 * the key, so an endpoint answering with another object of the same size fails verification too.
 * The stamp is at the end so the SHA-256 of the shared prefix can be cached per size (sha256 payload mode).
 */
export const STAMP_BYTES = 32;

const KEY_SIZE_SUFFIX = /-(\d+)$/;

/** Object keys carry their size (`<prefix><index>-<size>`) so any reader (e.g. bench/trivial-server.mjs) can rebuild the body. */
export function objectKey(prefix: string, index: number, size: number): string {
  return `${prefix}${String(index).padStart(9, '0')}-${size}`;
}

export function sizeFromKey(key: string): number | undefined {
  const m = KEY_SIZE_SUFFIX.exec(key);
  return m ? Number(m[1]) : undefined;
}

export type VerifyOutcome = 'ok' | 'verify:length' | 'verify:content';

export class ContentSource {
  private pattern: Buffer = Buffer.alloc(0);
  private readonly prefixHashes = new Map<number, Hash>();

  constructor(readonly seed: number) {}

  /** Grows the shared pattern to at least `bytes` (CTR mode: a longer stream has the same prefix). */
  ensure(bytes: number): void {
    if (this.pattern.length >= bytes) return;
    const key = createHash('sha256').update(`tusk-bench-pattern:${this.seed}`).digest();
    const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
    this.pattern = Buffer.concat([cipher.update(Buffer.alloc(bytes)), cipher.final()]);
    this.prefixHashes.clear();
  }

  stamp(key: string, size: number): Buffer {
    return createHash('sha256').update(`${this.seed}\0${size}\0${key}`).digest();
  }

  /** The body as two slices of existing memory (nothing proportional to `size` is allocated). */
  body(key: string, size: number): [Buffer, Buffer] {
    this.ensure(size);
    const k = Math.min(STAMP_BYTES, size);
    return [this.pattern.subarray(0, size - k), this.stamp(key, size).subarray(0, k)];
  }

  /** Hex SHA-256 of the body; the hash of the shared prefix is cached for up to 64 sizes. */
  sha256Hex(key: string, size: number): string {
    const [prefix, stamp] = this.body(key, size);
    let hash = this.prefixHashes.get(size);
    if (!hash) {
      hash = createHash('sha256').update(prefix);
      if (this.prefixHashes.size >= 64) this.prefixHashes.clear();
      this.prefixHashes.set(size, hash);
    }
    return hash.copy().update(stamp).digest('hex');
  }

  verifier(key: string, size: number): BodyVerifier {
    const [prefix, stamp] = this.body(key, size);
    return new BodyVerifier(prefix, stamp);
  }
}

/** Compares a streamed body, chunk by chunk, with the expected bytes (memcmp: cheaper and stricter than a checksum). */
export class BodyVerifier {
  private offset = 0;
  private mismatch = false;

  constructor(private readonly prefix: Buffer, private readonly stamp: Buffer) {}

  get expectedLength(): number {
    return this.prefix.length + this.stamp.length;
  }

  get received(): number {
    return this.offset;
  }

  update(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length && !this.mismatch) {
      const at = this.offset + pos;
      if (at >= this.expectedLength) {
        break; // too long: reported by finish() as a length error
      }
      const [source, sourceAt] = at < this.prefix.length ? [this.prefix, at] : [this.stamp, at - this.prefix.length];
      const n = Math.min(chunk.length - pos, source.length - sourceAt);
      if (chunk.compare(source, sourceAt, sourceAt + n, pos, pos + n) !== 0) this.mismatch = true;
      pos += n;
    }
    this.offset += chunk.length;
  }

  finish(): VerifyOutcome {
    if (this.offset !== this.expectedLength) return 'verify:length';
    return this.mismatch ? 'verify:content' : 'ok';
  }
}
