// Inputs and files of the Walrus RS2 vectors (shared/vectors/walrus-rs2/README.md): the SplitMix64
// byte stream, and the path of the vectors beside the repository (CI checks shared/ out there).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const VECTOR_DIR = join(REPO_ROOT, '..', 'shared', 'vectors', 'walrus-rs2');

/** Parses a vector file; a missing file throws, so the suite fails rather than skips. */
export function loadVectors<T>(file: string): T {
  return JSON.parse(readFileSync(join(VECTOR_DIR, file), 'utf8')) as T;
}

const MASK = (1n << 64n) - 1n;

/** The first `size` bytes of the SplitMix64 stream seeded with `seed`, each word little-endian. */
export function splitMix64(seed: bigint, size: number): Buffer {
  const out = Buffer.alloc(Math.ceil(size / 8) * 8);
  let state = seed & MASK;
  for (let at = 0; at < out.length; at += 8) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    out.writeBigUInt64LE(z ^ (z >> 31n), at);
  }
  return out.subarray(0, size);
}

/** A fast deterministic generator for property tests (xorshift32). */
export function randomBytes(seed: number, size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed | 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Deterministic small integers for choosing sizes, shard counts and losses. */
export function rng(seed: number): (below: number) => number {
  let x = seed | 0 || 1;
  return (below) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % below;
  };
}
