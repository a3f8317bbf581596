// The publisher's side of storage class WALRUS (base/walrus-blobs.ts): S3 objects' blobs are stored
// as a `PUT /v1/blobs` stores them (encode, register, upload, certify), small ones batched into
// quilts as `PUT /v1/quilts` stores one (quilt-batcher.ts), and read as the aggregator reads them,
// a range only from the slivers it covers (a patch from its whole quilt).

import { WalrusBlobGone, WalrusBlobUnavailable, type WalrusBlobReads, type WalrusBlobs, type WalrusStoredPatch } from '../../base/walrus-blobs.js';
import type { Ledger } from '../ledger/ledger.js';
import { encodeQuiltPatchId } from '../quilt/patch-id.js';
import { QuiltFormatError, readQuiltIndex, readQuiltPatch, type QuiltPatch } from '../quilt/quilt-format.js';
import { maxBlobSize, registrationCost, type BlobObject } from '../ledger/index.js';
import { openBlob } from './aggregator.js';
import { longestLivedPermanent, oncePerBlobId } from './owned-blob.js';
import type { BlobReadContext, PublisherContext } from './context.js';
import { PublisherError } from './errors.js';
import { encodingParams } from '../nodes/encoding-params.js';
import { PATCH_MAX_SIZE, QuiltBatcher } from './quilt-batcher.js';
import { readPatchById, storeQuiltFiles } from './quilt-service.js';
import { storeBlob, type StoreResult } from './store-blob.js';

/**
 * Blobs of at most `maxBodyBytes` (the publisher's --max-blob-size, within what the shards can
 * encode), permanent and bought for the longest the network sells; the renewal worker
 * (s3/walrus-renewal.ts) extends those S3 objects still use, on the embedded ledger or on chain
 * (a Walrus backend's renewalView), README "S3 objects on Walrus".
 */
export function objectBlobs(ctx: PublisherContext, maxBodyBytes: number): WalrusBlobs {
  const query = { epochs: ctx.backend.maxEpochsAhead, deletable: false, force: false, share: false, reuseResources: false };
  const maxSize = Math.min(maxBodyBytes, maxBlobSize(ctx.nShards));
  // small objects share quilts (quilt-batcher.ts); the index takes a quilt's first column at least
  const quilts = new QuiltBatcher(async (files) => {
    const stored = await storeQuiltFiles(ctx, files, query);
    const quiltId = blobIdOf(stored.blobStoreResult);
    return { quiltId, patchIds: new Map(stored.storedQuiltBlobs.map((p) => [p.identifier, p.quiltPatchId])) };
  }, encodingParams(ctx.nShards).nSecondary - 1);
  return {
    ...blobReads(ctx),
    maxBlobSize: maxSize,
    patchMaxSize: Math.min(PATCH_MAX_SIZE, maxSize),
    async store(data) {
      return blobIdOf(await storeBlob(ctx, data, query));
    },
    storePatch: (identifier, contents, tags) => quilts.add({ identifier, contents, tags }),
    quiltPatches: (blobIds) => quiltPatches(ctx, blobIds),
    ...(ctx.backend.ledger ? { ...renewal(ctx.backend.ledger), ...attributes(ctx.backend.ledger) } : {}),
    ...(ctx.backend.setBlobAttributes ? { setAttributes: ctx.backend.setBlobAttributes.bind(ctx.backend) } : {}),
    ...(ctx.backend.ownedBlobs ? { ownedBlobs: ctx.backend.ownedBlobs.bind(ctx.backend) } : {}),
    ...(ctx.backend.renewalView ? { renewalView: ctx.backend.renewalView.bind(ctx.backend) } : {}),
  };
}

/** The longest-lived certified permanent Blob object of a blob id the publisher owns on the embedded ledger. */
function ownedBlobObject(ledger: Ledger, blobId: string): BlobObject | undefined {
  const certified = [...ledger.blobsById(blobId)].filter((v) => v.state === 'certified' && v.object.owner === ledger.publisherAddress).map((v) => v.object);
  return longestLivedPermanent(certified, blobId);
}

/** Blob attributes on the embedded ledger: set on the Blob object renewal extends, listed for the import. */
function attributes(ledger: Ledger): Pick<WalrusBlobs, 'setAttributes' | 'ownedBlobs'> {
  return {
    async setAttributes(blobId, pairs) {
      const o = ownedBlobObject(ledger, blobId);
      if (!o) throw new WalrusBlobGone(blobId);
      await ledger.setBlobAttributes(o.id, pairs);
    },
    async ownedBlobs() {
      return oncePerBlobId(ledger.ownedLiveBlobs().map(({ object: o }) => ({ blobId: o.blobId, size: o.size, attributes: o.attributes ?? {} })));
    },
  };
}

/** Extending blobs on the embedded ledger: the Blob object ownedBlobObject names, read as the pass asks. */
function renewal(ledger: Ledger): Pick<WalrusBlobs, 'renewalView'> {
  const owned = (blobId: string): BlobObject | undefined => ownedBlobObject(ledger, blobId);
  // an extension pays the storage price only (planExtendBlob)
  const costPerEpoch = (o: BlobObject): bigint => registrationCost(o.storage.storageSize, 1, { ...ledger.prices(), writePricePerUnit: 0n });
  return {
    async renewalView() {
      return {
        current: ledger.currentEpoch(),
        maxAhead: ledger.maxEpochsAhead,
        term(blobId) {
          const o = owned(blobId);
          return o && { endEpoch: o.storage.endEpoch, costPerEpoch: costPerEpoch(o) };
        },
        async extend(blobId, epochs) {
          const o = owned(blobId);
          if (!o) throw new WalrusBlobGone(blobId);
          const out = await ledger.extendBlob(o.id, epochs);
          return { endEpoch: out.blobObject.storage.endEpoch, costPerEpoch: costPerEpoch(o), cost: out.cost };
        },
      };
    },
  };
}

/** Every patch of those of `blobIds` that are quilts, each read whole; other blobs, and blobs gone, are skipped. */
async function* quiltPatches(ctx: PublisherContext, blobIds: Iterable<string>): AsyncIterable<WalrusStoredPatch> {
  for (const quiltId of blobIds) {
    let blob: Buffer;
    try {
      blob = await (await openBlob(ctx, quiltId)).whole();
    } catch (e) {
      if (e instanceof PublisherError && e.code === 'BLOB_NOT_FOUND') continue;
      throw e;
    }
    let patches: QuiltPatch[];
    try {
      patches = readQuiltIndex(blob, ctx.nShards);
    } catch (e) {
      if (e instanceof QuiltFormatError || e instanceof RangeError) continue; // not a quilt
      throw e;
    }
    for (const p of patches) {
      const file = readQuiltPatch(blob, ctx.nShards, p.start, p.end);
      yield { quiltId, patchId: encodeQuiltPatchId({ quiltId, start: p.start, end: p.end }), tags: p.tags, size: file.contents.length };
    }
  }
}

function blobIdOf(result: StoreResult): string {
  return 'newlyCreated' in result ? result.newlyCreated.blobObject.blobId : result.alreadyCertified.blobId;
}

/** Reads as the aggregator's; `beforeRead` brings a front-end thread's view of the nodes up to date. */
export function blobReads(ctx: BlobReadContext, beforeRead?: () => void): WalrusBlobReads {
  return {
    async read(blobId, start, end) {
      beforeRead?.();
      return readAs(blobId, async () => (await openBlob(ctx, blobId)).range(start, end));
    },
    // a patch is read out of its whole quilt, as the aggregator's patch route reads it
    async readPatch(patchId, start, end) {
      beforeRead?.();
      return readAs(patchId, async () => (await readPatchById(ctx, patchId)).contents.subarray(start, end));
    },
  };
}

/** The publisher's read failures as the port's: a blob (or patch) gone, or the network short of nodes. */
async function readAs(id: string, read: () => Promise<Buffer>): Promise<Buffer> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof PublisherError && (e.code === 'BLOB_NOT_FOUND' || e.code === 'QUILT_PATCH_NOT_FOUND')) throw new WalrusBlobGone(id);
    if (e instanceof PublisherError && e.code === 'BLOB_UNAVAILABLE') throw new WalrusBlobUnavailable(id, e.message);
    throw e;
  }
}
