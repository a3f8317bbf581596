// `reuse_resources=true` (walrus-sdk StoreOptimizations::should_check_existing_resources): which of
// the Blob objects the publisher owns a store uses instead of registering anew, and how far it must
// be extended. One choice for both backends (walrus-sdk owned_registration.rs).

import type { WalrusOwnedBlob } from '../../base/walrus-blobs.js';
import type { BlobObject } from '../ledger/index.js';
import type { StoreQuery } from './store-query.js';

/**
 * Of the publisher's Blob objects, one of blob `blobId` still stored (end epoch after the current
 * one) with the query's persistence, and not a certified one when `force` asks for a new
 * certification (find_blob_owned_by_wallet). Of several, the cheapest to use: certified and long
 * enough (nothing to do), registered and long enough (upload and certify), certified (extend),
 * registered (all three).
 */
export function ownedBlobToReuse(owned: readonly BlobObject[], blobId: string, query: StoreQuery, currentEpoch: number): BlobObject | undefined {
  const targetEpoch = currentEpoch + query.epochs;
  const rank = (b: BlobObject) => (b.storage.endEpoch >= targetEpoch ? 0 : 2) + (b.certifiedEpoch !== null ? 0 : 1);
  return owned
    .filter((b) => b.blobId === blobId && b.storage.endEpoch > currentEpoch && b.deletable === query.deletable && !(query.force && b.certifiedEpoch !== null))
    .sort((a, b) => rank(a) - rank(b))[0];
}

/**
 * Of `certified` (Blob objects the publisher owns whose blob is certified), the permanent one of blob
 * `blobId` that lasts longest: the one renewal extends and blob attributes go on, on both backends.
 */
export function longestLivedPermanent(certified: Iterable<BlobObject>, blobId: string): BlobObject | undefined {
  let best: BlobObject | undefined;
  for (const o of certified) if (o.blobId === blobId && outlives(o, best)) best = o;
  return best;
}

/** `longestLivedPermanent` for every blob id of `certified` at once, by blob id. */
export function longestLivedPermanentById(certified: Iterable<BlobObject>): Map<string, BlobObject> {
  const byId = new Map<string, BlobObject>();
  for (const o of certified) if (outlives(o, byId.get(o.blobId))) byId.set(o.blobId, o);
  return byId;
}

/** `o` is permanent and lasts longer than `best` (of the same blob id), if any. */
function outlives(o: BlobObject, best: BlobObject | undefined): boolean {
  return !o.deletable && (!best || o.storage.endEpoch > best.storage.endEpoch);
}

/** Epochs `owned` must be extended by to last the epochs the query asks for (0: long enough). */
export function epochsToExtend(owned: BlobObject, query: StoreQuery, currentEpoch: number): number {
  return Math.max(0, currentEpoch + query.epochs - owned.storage.endEpoch);
}

/** Each blob id of `blobs` once: of its Blob objects, one that carries attributes where one does (a blob stored again has the same). */
export function oncePerBlobId(blobs: Iterable<WalrusOwnedBlob>): WalrusOwnedBlob[] {
  const byId = new Map<string, WalrusOwnedBlob>();
  for (const b of blobs) {
    const seen = byId.get(b.blobId);
    if (!seen || (Object.keys(seen.attributes).length === 0 && Object.keys(b.attributes).length > 0)) byId.set(b.blobId, b);
  }
  return [...byId.values()];
}
