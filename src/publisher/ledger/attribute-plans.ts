// Blob attributes (Walrus's `metadata` dynamic field of a Blob object, README "S3 objects on
// Walrus"): a transaction that inserts or updates key/value pairs on a Blob object the publisher
// owns, as the contracts' `blob::insert_or_update_metadata_pair` (the CLI's `set-blob-attribute`)
// does; like those, it emits no event. Validation happens while planning; `apply` never throws.

import { LedgerError } from './errors.js';
import type { StoredBlob } from './ledger-db.js';
import { liveBlob } from './blob-plans.js';
import type { Plan, PlanContext } from './transaction-log.js';
import type { BlobObject } from './types.js';
import { blobObjectOf } from './views.js';

/** The most bytes (UTF-8, keys and values) one Blob object's attributes may take: well below Sui's object size limit. */
export const MAX_ATTRIBUTE_BYTES = 64 * 1024;

export interface SetBlobAttributesResult {
  txDigest: string;
  blobObject: BlobObject;
}

/** Inserts or updates `pairs` on a live Blob object the publisher owns; other pairs stay. */
export function planSetBlobAttributes(blobObjectId: string, pairs: Record<string, string>, ctx: PlanContext): Plan<SetBlobAttributesResult> {
  const { blob, storage } = liveBlob(ctx.db, blobObjectId);
  if (blob.owner !== ctx.state.publisherAddress) throw new LedgerError('InvalidArgument', { blobObjectId, owner: blob.owner }, 'only a blob the publisher owns can carry attributes');
  const entries = Object.entries(pairs);
  if (entries.length === 0 || entries.some(([k, v]) => typeof k !== 'string' || k === '' || typeof v !== 'string')) {
    throw new LedgerError('InvalidArgument', { blobObjectId }, 'attributes are one or more pairs of a non-empty string key and a string value');
  }
  const attributes = { ...blob.attributes, ...pairs };
  const bytes = Object.entries(attributes).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (bytes > MAX_ATTRIBUTE_BYTES) throw new LedgerError('InvalidArgument', { blobObjectId, bytes }, `a blob's attributes may take at most ${MAX_ATTRIBUTE_BYTES} bytes`);

  return {
    kind: 'SetBlobAttributes',
    inputs: { blobObjectId: blob.id, attributes: pairs },
    balanceChange: 0n,
    apply(tx) {
      const next: StoredBlob = { ...blob, attributes, previousTransaction: tx.digest };
      return {
        created: [],
        mutated: [blob.id],
        events: [],
        write() {
          tx.db.objects.put(blob.id, next);
        },
        result: { txDigest: tx.digest, blobObject: blobObjectOf(next, storage) },
      };
    },
  };
}
