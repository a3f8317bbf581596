// The codec's results built over what the native module returns: blob-id info, and an
// EncodedBlob whose metadata and sliver BCS are views into the one buffer of the encoding.
import type { BlobIdInfo, EncodedBlob } from './codec-types.js';
import type { NativeBlobIdInfo, NativeEncoding } from './rs2-native.js';

/** A Buffer over the same memory (results from a worker arrive as plain Uint8Arrays). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function blobIdInfo(native: NativeBlobIdInfo): BlobIdInfo {
  const blobId = asBuffer(native.blobId);
  return {
    blobId,
    blobIdText: blobId.toString('base64url'),
    rootHash: asBuffer(native.rootHash),
    unencodedLength: native.unencodedLength,
    encodedLength: native.encodedLength,
    symbolSize: native.symbolSize,
    nShards: native.nShards,
  };
}

/**
 * Layout of NativeEncoding.bytes: metadata, primary slivers 0..n−1, secondary slivers 0..n−1.
 * `release` hands the memory back for reuse (EncodedBlob.release). The metadata is copied out of
 * it, since nodes keep parsed metadata (views of it) past the store; only sliver views share it.
 */
export function encodedBlob(native: NativeEncoding, release?: () => void): EncodedBlob {
  const all = Buffer.from(native.bytes, 0, native.byteLength);
  const n = native.nShards;
  const { metadataLength, primaryBcsLength, secondaryBcsLength } = native;
  const secondaryStart = metadataLength + n * primaryBcsLength;
  if (all.length !== secondaryStart + n * secondaryBcsLength) throw new Error('native encoding has an unexpected length');
  let released = false;
  return {
    ...blobIdInfo(native),
    metadataBcs: release ? Buffer.from(all.subarray(0, metadataLength)) : all.subarray(0, metadataLength),
    release() {
      if (released) return;
      released = true;
      release?.();
    },
    sliverPair(pair: number) {
      if (released) throw new Error('the encoding was released');
      if (!Number.isInteger(pair) || pair < 0 || pair >= n) throw new RangeError(`sliver pair ${pair} out of range 0..${n - 1}`);
      // Pair p holds primary sliver p and secondary sliver n − 1 − p (walrus.md §4).
      const p = metadataLength + pair * primaryBcsLength;
      const s = secondaryStart + (n - 1 - pair) * secondaryBcsLength;
      return { primary: all.subarray(p, p + primaryBcsLength), secondary: all.subarray(s, s + secondaryBcsLength) };
    },
  };
}
