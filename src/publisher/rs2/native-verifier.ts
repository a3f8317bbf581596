// The storage nodes' content checks (nodes/verifier.ts BlobVerifier) done by the RS2 codec: the
// blob id recomputed from the metadata's hashes (walrus.md §7.4–7.5, §8.2) and each sliver
// re-encoded with the other code and compared with its Merkle root (§7.2).
import type { NativeBlobCodec } from './codec.js';
import { StorageNodeError } from '../nodes/errors.js';
import { withStructuralChecks, type BlobVerifier } from '../nodes/verifier.js';

/** A full verifier: the structural checks, then the codec's hash checks. */
export function nativeBlobVerifier(codec: Pick<NativeBlobCodec, 'metadataProblem' | 'sliverProblem'>): BlobVerifier {
  return withStructuralChecks({
    async verifyMetadata(blobId, metadataBcs, metadata) {
      if (!metadataBcs.subarray(0, blobId.length).equals(blobId)) {
        throw new StorageNodeError('INVALID_METADATA', 'blob id differs from the one addressed');
      }
      const problem = await codec.metadataProblem(metadataBcs, metadata.pairCount);
      if (problem) throw new StorageNodeError('INVALID_METADATA', problem);
    },
    async verifySliver(metadata, pairIndex, axis, sliverBcs) {
      const problem = await codec.sliverProblem(metadata.bcs, pairIndex, axis, sliverBcs);
      if (problem) throw new StorageNodeError('INVALID_SLIVER', problem);
    },
  });
}
