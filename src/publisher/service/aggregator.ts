// The aggregator's read path (walrus.md §11 "Reading = decoding"): metadata from the first node
// whose copy verifies, n_primary verified primary slivers (systematic ones first), RS2 decode,
// and the codec's check of the rebuilt blob against its blob id.

import { encodingParams } from '../nodes/encoding-params.js';
import { isStorageNodeError } from '../nodes/errors.js';
import { NotEnoughSliversError } from '../nodes/network.js';
import type { PublisherContext } from './context.js';
import { PublisherError } from './errors.js';

const BLOB_ID_TEXT = /^[A-Za-z0-9_-]{43}$/;

/** 43 characters of unpadded base64url whose last one carries no stray bits → 32 bytes. */
export function parseBlobId(text: string): Buffer {
  const bytes = BLOB_ID_TEXT.test(text) ? Buffer.from(text, 'base64url') : undefined;
  if (!bytes || bytes.length !== 32 || bytes.toString('base64url') !== text) throw new PublisherError('INVALID_BLOB_ID', `got '${text.slice(0, 64)}'`);
  return bytes;
}

export async function readBlob(ctx: PublisherContext, blobIdText: string): Promise<Buffer> {
  const blobId = parseBlobId(blobIdText);
  const { nShards } = ctx;
  let metadata: Buffer | undefined;
  try {
    // BlobMetadataWithId starts with the blob id (walrus.md §8.2); the codec checks the rest.
    metadata = await ctx.network.getMetadata(blobId, (m) => m.subarray(0, 32).equals(blobId) && ctx.codec.verifyMetadata(m, nShards));
  } catch (e) {
    if (isStorageNodeError(e, 'NODE_UNAVAILABLE')) throw new PublisherError('BLOB_UNAVAILABLE', 'no storage node answered');
    throw e;
  }
  if (!metadata) throw new PublisherError('BLOB_NOT_FOUND');
  const verifiedMetadata = metadata;
  let slivers: Map<number, Buffer>;
  try {
    slivers = await ctx.network.readPrimarySlivers(blobId, encodingParams(nShards).nPrimary, (pair, sliver) =>
      ctx.codec.verifySliver(verifiedMetadata, pair, 'primary', sliver),
    );
  } catch (e) {
    if (e instanceof NotEnoughSliversError) throw new PublisherError('BLOB_UNAVAILABLE', e.message);
    throw e;
  }
  return ctx.codec.decode(verifiedMetadata, slivers, nShards);
}
