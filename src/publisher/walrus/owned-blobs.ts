// The wallet's Blob objects on a Walrus network, for storage class WALRUS (base/walrus-blobs.ts):
// listed for `tusk admin buckets walrus-import` with their attributes, and extended by the renewal
// worker (s3/walrus-renewal.ts), each signed by the wallet (main or sub-wallet) that owns it.

import type { Signer } from '@mysten/sui/cryptography';
import type { WalrusClient } from '@mysten/walrus';
import type { WalrusBlobTerm, WalrusOwnedBlob, WalrusRenewalView } from '../../base/walrus-blobs.js';
import { WalrusBlobGone } from '../../base/walrus-blobs.js';
import type { BlobObject } from '../ledger/index.js';
import { runBounded } from '../nodes/run-bounded.js';
import { longestLivedPermanentById, oncePerBlobId } from '../service/owned-blob.js';

/** What the backend hands these: its client, a listing of its wallets' Blob objects as of now, and signing by an owner. */
export interface OwnedChain {
  walrus: WalrusClient;
  epoch: number;
  maxEpochsAhead: number;
  /** every Blob object the wallet and its sub-wallets own */
  owned: BlobObject[];
  /** runs `work` signed by `owner` (the main wallet or a sub-wallet), which must hold `wal` FROST */
  signedBy<T>(owner: string, wal: bigint, work: (signer: Signer) => Promise<T>): Promise<T>;
  /** the Blob object as it is on chain now */
  blobObject(objectId: string, owner: string): Promise<BlobObject>;
}

/** The certified live Blob objects, of which renewal extends and attributes go on the longest-lived permanent one. */
function live(chain: OwnedChain): BlobObject[] {
  return chain.owned.filter((o) => o.certifiedEpoch != null && o.storage.endEpoch > chain.epoch);
}

/** Attribute reads in flight at once: each is a round trip to the Sui node. */
const ATTRIBUTE_READS = 16;

/** The certified live blobs with the attributes of their Blob objects (the SDK's readBlobAttributes: the `metadata` dynamic field). */
export async function ownedBlobsOf(chain: OwnedChain): Promise<WalrusOwnedBlob[]> {
  const blobs = live(chain);
  const out = new Array<WalrusOwnedBlob>(blobs.length);
  await runBounded([...blobs.keys()], ATTRIBUTE_READS, async (i) => {
    const o = blobs[i]!;
    out[i] = { blobId: o.blobId, size: o.size, attributes: await attributesOf(chain.walrus, o.id) };
  });
  return oncePerBlobId(out);
}

/** A Blob object's attributes; `{}` when it has none (no `metadata` field: the SDK's read throws). */
async function attributesOf(walrus: WalrusClient, objectId: string): Promise<Record<string, string>> {
  try {
    return (await walrus.readBlobAttributes({ blobObjectId: objectId })) ?? {};
  } catch (e) {
    if (/not found/i.test((e as Error).message)) return {};
    throw e;
  }
}

/** One renewal pass's view: the epochs and each blob's longest-lived certified permanent Blob object, as listed once. */
export async function renewalViewOf(chain: OwnedChain): Promise<WalrusRenewalView> {
  const byId = longestLivedPermanentById(live(chain));
  // what one more epoch costs, by unencoded size (the SDK's storageCost: the storage price only, as an extension pays)
  const perEpoch = new Map<number, bigint>();
  for (const o of byId.values()) {
    if (!perEpoch.has(o.size)) perEpoch.set(o.size, (await chain.walrus.storageCost(o.size, 1)).storageCost);
  }
  const termOf = (o: BlobObject): WalrusBlobTerm => ({ endEpoch: o.storage.endEpoch, costPerEpoch: perEpoch.get(o.size)! });
  return {
    current: chain.epoch,
    maxAhead: chain.maxEpochsAhead,
    term: (blobId) => {
      const o = byId.get(blobId);
      return o && termOf(o);
    },
    async extend(blobId, epochs) {
      const o = byId.get(blobId);
      if (!o) throw new WalrusBlobGone(blobId);
      const cost = perEpoch.get(o.size)! * BigInt(epochs);
      const after = await chain.signedBy(o.owner, cost, async (signer) => {
        await chain.walrus.executeExtendBlobTransaction({ signer, blobObjectId: o.id, epochs });
        return chain.blobObject(o.id, o.owner);
      });
      byId.set(blobId, after);
      return { ...termOf(after), cost };
    },
  };
}
