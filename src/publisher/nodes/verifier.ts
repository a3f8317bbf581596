// What a node checks before it stores metadata or a sliver. The full check (blob id recomputed from
// the hashes, sliver re-encoded and compared with its Merkle root, walrus.md §7–8) needs BLAKE2b-256
// and RS2 from the native module; it plugs in through this interface. structuralOnlyVerifier checks
// only shapes and sizes.

import type { BlobMetadata } from './bcs.js';
import { parseSliverData } from './bcs.js';
import { encodingParams, sliverDataLength, symbolSize } from './encoding-params.js';
import { StorageNodeError } from './errors.js';
import type { SliverAxis } from './types.js';

export interface BlobVerifier {
  /** Throws INVALID_METADATA unless `metadataBcs` (already structurally parsed as `metadata`) is the metadata of `blobId`. */
  verifyMetadata(blobId: Buffer, metadataBcs: Buffer, metadata: BlobMetadata): void | Promise<void>;
  /** Throws INVALID_SLIVER unless `sliverBcs` is sliver `axis` of pair `pairIndex` of the blob described by `metadata`. */
  verifySliver(metadata: BlobMetadata, pairIndex: number, axis: SliverAxis, sliverBcs: Buffer): void | Promise<void>;
}

/**
 * Checks BCS structure and every size that follows from the metadata (walrus.md §2, §8): blob id,
 * n hashes, encodable length, symbol size, sliver length and sliver index. It does NOT check
 * hashes, so a node using it will accept wrong bytes of the right shape.
 */
export const structuralOnlyVerifier: BlobVerifier = {
  verifyMetadata(blobId, _metadataBcs, metadata) {
    if (!metadata.blobId.equals(blobId)) throw new StorageNodeError('INVALID_METADATA', 'blob id differs from the one addressed');
    const params = encodingParams(metadata.pairCount);
    if (metadata.unencodedLength > params.maxBlobSize) {
      throw new StorageNodeError('INVALID_METADATA', `unencoded length ${metadata.unencodedLength} exceeds ${params.maxBlobSize}`);
    }
  },

  verifySliver(metadata, pairIndex, axis, sliverBcs) {
    const params = encodingParams(metadata.pairCount);
    const sliver = parseSliverData(sliverBcs);
    const expectedSymbol = symbolSize(metadata.unencodedLength, params)!;
    if (sliver.symbolSize !== expectedSymbol) {
      throw new StorageNodeError('INVALID_SLIVER', `symbol size ${sliver.symbolSize}, expected ${expectedSymbol}`);
    }
    const expectedLength = sliverDataLength(axis, expectedSymbol, params);
    if (sliver.data.length !== expectedLength) {
      throw new StorageNodeError('INVALID_SLIVER', `${sliver.data.length} data bytes, expected ${expectedLength}`);
    }
    // Pair p holds primary sliver p and secondary sliver n − 1 − p (walrus.md §4).
    const expectedIndex = axis === 'primary' ? pairIndex : params.nShards - 1 - pairIndex;
    if (sliver.index !== expectedIndex) {
      throw new StorageNodeError('INVALID_SLIVER', `sliver index ${sliver.index}, expected ${expectedIndex}`);
    }
  },
};

/** A verifier that runs the structural checks first, then `content` (e.g. the native BLAKE2b/RS2 checks). */
export function withStructuralChecks(content: BlobVerifier): BlobVerifier {
  return {
    async verifyMetadata(blobId, metadataBcs, metadata) {
      await structuralOnlyVerifier.verifyMetadata(blobId, metadataBcs, metadata);
      await content.verifyMetadata(blobId, metadataBcs, metadata);
    },
    async verifySliver(metadata, pairIndex, axis, sliverBcs) {
      await structuralOnlyVerifier.verifySliver(metadata, pairIndex, axis, sliverBcs);
      await content.verifySliver(metadata, pairIndex, axis, sliverBcs);
    },
  };
}
