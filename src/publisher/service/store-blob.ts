// One blob store, in the order of the Walrus client flow (walrus.md §10.6): encode → blob id →
// already certified? → register and pay → upload to the nodes and collect a quorum of signed
// confirmations → certify → `newlyCreated`. The caller has validated the query and the size.

import type { EncodedBlob } from '../codec-types.js';
import {
  alreadyCertifiedJson,
  isQuorum,
  LedgerError,
  maxBlobSize,
  newlyCreatedJson,
  type AlreadyCertifiedJson,
  type CertifyBlobResult,
  type NewlyCreatedJson,
  type RegisterBlobResult,
} from '../ledger/index.js';
import { InsufficientConfirmationsError } from '../nodes/network.js';
import type { BlobType } from '../nodes/types.js';
import type { PublisherContext } from './context.js';
import { PublisherError } from './errors.js';
import type { StoreQuery } from './store-query.js';

/** Confirmations are signed for one epoch; an epoch turning between upload and certify needs new ones. */
const CERTIFY_ATTEMPTS = 3;

export type StoreResult = NewlyCreatedJson | AlreadyCertifiedJson;

/** Throws BLOB_TOO_LARGE when no symbol size fits the blob at this shard count (walrus.md §2). */
export function checkEncodable(size: number, nShards: number): void {
  const max = maxBlobSize(nShards);
  if (size > max) throw new PublisherError('BLOB_TOO_LARGE', `${size} bytes exceed the encodable maximum of ${max} bytes for ${nShards} shards`);
}

export async function storeBlob(ctx: PublisherContext, data: Buffer, query: StoreQuery): Promise<StoreResult> {
  checkEncodable(data.length, ctx.nShards);
  const encoded = await ctx.codec.encode(data, ctx.nShards);
  return ctx.blobLocks.run(encoded.blobIdText, async () => {
    // walrus.md §10.3 event variant: permanent requests only, unless `force`.
    if (!query.deletable && !query.force) {
      const match = ctx.ledger.findCertifiedPermanent(encoded.blobIdText, ctx.ledger.currentEpoch() + query.epochs);
      if (match) return alreadyCertifiedJson(encoded.blobIdText, match);
    }
    const registration = await ctx.ledger.registerBlob({
      blobId: encoded.blobIdText,
      size: data.length,
      encodedLength: encoded.encodedLength,
      epochs: query.epochs,
      deletable: query.deletable,
      owner: query.sendObjectTo,
    });
    // From here on a failure leaves the paid registration on the ledger, as on Walrus (walrus.md §15).
    const certified = await uploadAndCertify(ctx, encoded, registration);
    if (!query.share) return newlyCreatedJson({ ...registration, blobObject: certified.blobObject });
    const shared = await ctx.ledger.shareBlob(certified.blobObject.id);
    return newlyCreatedJson({ ...registration, blobObject: shared.blobObject, sharedBlobObject: shared.sharedBlobObjectId });
  });
}

async function uploadAndCertify(ctx: PublisherContext, encoded: EncodedBlob, registration: RegisterBlobResult): Promise<CertifyBlobResult> {
  const blobObject = registration.blobObject;
  const blobType: BlobType = blobObject.deletable ? { kind: 'deletable', objectId: blobObject.id } : { kind: 'permanent' };
  for (let attempt = 1; ; attempt++) {
    const epoch = ctx.ledger.currentEpoch();
    let stored;
    try {
      stored = await ctx.network.storeBlob(encoded.blobId, encoded.metadataBcs, (pair) => encoded.sliverPair(pair), blobType, epoch);
    } catch (e) {
      if (!(e instanceof InsufficientConfirmationsError)) throw e;
      ctx.log(`publisher: blob ${encoded.blobIdText} (object ${blobObject.id}): ${e.message}`);
      throw insufficient(e.confirmedShards, e.neededShards);
    }
    if (!isQuorum(stored.confirmedShards, ctx.nShards)) throw insufficient(stored.confirmedShards, ctx.network.quorumShards);
    for (const failure of stored.failures) {
      ctx.log(`publisher: blob ${encoded.blobIdText}: ${failure.nodeId} (${failure.shards.length} shards) failed: ${failure.error.message}`);
    }
    try {
      return await ctx.ledger.certifyBlob(blobObject.id, {
        epoch,
        signers: stored.confirmations.map((c) => c.nodeId),
        shardsCovered: stored.confirmedShards,
        nShards: ctx.nShards,
        signatures: stored.confirmations.map((c) => c.confirmation.signature),
      });
    } catch (e) {
      const epochTurned = e instanceof LedgerError && e.code === 'InvalidCertificate' && ctx.ledger.currentEpoch() !== epoch;
      if (!epochTurned || attempt >= CERTIFY_ATTEMPTS) throw e;
    }
  }
}

function insufficient(confirmed: number, needed: number): PublisherError {
  return new PublisherError('INSUFFICIENT_CONFIRMATIONS', `storage nodes holding ${confirmed} shards confirmed, a quorum needs ${needed}`, {
    confirmedShards: String(confirmed),
    quorumShards: String(needed),
  });
}
