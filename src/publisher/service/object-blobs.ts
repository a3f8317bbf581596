// The publisher's side of storage class WALRUS (base/walrus-blobs.ts): S3 objects' blobs are stored
// as a `PUT /v1/blobs` stores them (encode, register, upload, certify) and read as the aggregator
// reads them, a range only from the slivers it covers.

import { WalrusBlobGone, WalrusBlobUnavailable, type WalrusBlobReads, type WalrusBlobs } from '../../base/walrus-blobs.js';
import { maxBlobSize } from '../ledger/index.js';
import { openBlob } from './aggregator.js';
import type { BlobReadContext, PublisherContext } from './context.js';
import { PublisherError } from './errors.js';
import { storeBlob } from './store-blob.js';

/**
 * Blobs of at most `maxBodyBytes` (the publisher's --max-blob-size, within what the shards can
 * encode), permanent and bought for the longest the network sells: nothing renews them yet, and an
 * S3 object stays until deleted (README "S3 objects on Walrus").
 */
export function objectBlobs(ctx: PublisherContext, maxBodyBytes: number): WalrusBlobs {
  const query = { epochs: ctx.backend.maxEpochsAhead, deletable: false, force: false, share: false, reuseResources: false };
  return {
    ...blobReads(ctx),
    maxBlobSize: Math.min(maxBodyBytes, maxBlobSize(ctx.nShards)),
    async store(data) {
      const result = await storeBlob(ctx, data, query);
      return 'newlyCreated' in result ? result.newlyCreated.blobObject.blobId : result.alreadyCertified.blobId;
    },
  };
}

/** Reads as the aggregator's; `beforeRead` brings a front-end thread's view of the nodes up to date. */
export function blobReads(ctx: BlobReadContext, beforeRead?: () => void): WalrusBlobReads {
  return {
    async read(blobId, start, end) {
      beforeRead?.();
      try {
        return await (await openBlob(ctx, blobId)).range(start, end);
      } catch (e) {
        if (e instanceof PublisherError && e.code === 'BLOB_NOT_FOUND') throw new WalrusBlobGone(blobId);
        if (e instanceof PublisherError && e.code === 'BLOB_UNAVAILABLE') throw new WalrusBlobUnavailable(blobId, e.message);
        throw e;
      }
    },
  };
}
