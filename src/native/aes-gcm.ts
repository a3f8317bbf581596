// AES-256-GCM blocks of encryption at rest (SSE, s3/sse/block-cipher.ts), sealed and opened by the
// native module with Node's own OpenSSL (native/src/aes_gcm_binding.rs).

import { binding } from './native.js';

/** What an SSE object's blocks are sealed with (the format is in src/s3/sse/block-cipher.ts). */
export interface GcmBlockKey {
  key: Uint8Array;
  noncePrefix: Uint8Array;
  aad: Uint8Array;
  blockSize: number;
}

/**
 * AES-256-GCM-seals `plain` as blocks `firstBlock`, … (each `blockSize` bytes but a shorter last)
 * into `sealed`, exactly their ciphertexts and tags long, with Node's own OpenSSL
 * (native/src/aes_gcm_binding.rs).
 */
export function gcmSealBlocks(k: GcmBlockKey, firstBlock: number, plain: Uint8Array, sealed: Uint8Array): void {
  binding().gcmSealBlocks(k.key, k.noncePrefix, firstBlock, k.aad, k.blockSize, plain, sealed);
}

/**
 * Opens whole sealed blocks `firstBlock`, … into `plain`; returns how many were authentic (fewer
 * than all: the next failed its tag, and its bytes in `plain` are zeroed).
 */
export function gcmOpenBlocks(k: GcmBlockKey, firstBlock: number, sealed: Uint8Array, plain: Uint8Array): number {
  return binding().gcmOpenBlocks(k.key, k.noncePrefix, firstBlock, k.aad, k.blockSize, sealed, plain);
}
