// One blob store: size check, encode, then the backend's already-certified check, registration,
// upload and certification (walrus.md §10.6), one store per blob id at a time. The caller has
// validated the query.

import { maxBlobSize } from '../ledger/index.js';
import type { StoreResult } from './backend.js';
import type { PublisherContext } from './context.js';
import { PublisherError } from './errors.js';
import type { StoreQuery } from './store-query.js';

export type { StoreResult } from './backend.js';

/** Throws BLOB_TOO_LARGE when no symbol size fits the blob at this shard count (walrus.md §2). */
export function checkEncodable(size: number, nShards: number): void {
  const max = maxBlobSize(nShards);
  if (size > max) throw new PublisherError('BLOB_TOO_LARGE', `${size} bytes exceed the encodable maximum of ${max} bytes for ${nShards} shards`);
}

export async function storeBlob(ctx: PublisherContext, data: Buffer, query: StoreQuery): Promise<StoreResult> {
  checkEncodable(data.length, ctx.nShards);
  const encoded = await ctx.codec.encode(data, ctx.nShards);
  return ctx.blobLocks.run(encoded.blobIdText, () => ctx.backend.publish(encoded, query));
}
