// The publisher's success bodies (walrus.md §10.3, seed §4): exactly these fields in this order,
// integers as JSON numbers, ids as strings. `owner` stays out: the seed shape has no such field.

import type { CertifiedPermanentMatch } from './ledger.js';
import type { BlobObject } from './types.js';

/** walrus-sdk resource.rs RegisterBlobOp: a fresh registration, or a Blob object of the publisher's reused (and extended). */
export type ResourceOperationJson =
  | { registerFromScratch: { encodedLength: number; epochsAhead: number } }
  | { reuseRegistration: { encodedLength: number } }
  | { reuseAndExtend: { encodedLength: number; epochsExtended: number } }
  | { reuseAndExtendNonCertified: { encodedLength: number; epochsExtended: number } };

/** The operation that reused `owned` (certified or not) for a blob of `encodedLength`, extended by `epochsExtended` (0: not). */
export function reuseOperation(owned: BlobObject, encodedLength: number, epochsExtended: number): ResourceOperationJson {
  if (epochsExtended === 0) return { reuseRegistration: { encodedLength } };
  return owned.certifiedEpoch === null ? { reuseAndExtendNonCertified: { encodedLength, epochsExtended } } : { reuseAndExtend: { encodedLength, epochsExtended } };
}

export interface NewlyCreatedJson {
  newlyCreated: {
    blobObject: Omit<BlobObject, 'owner'>;
    resourceOperation: ResourceOperationJson;
    cost: number;
    /** walrus-sdk responses.rs: the SharedBlob object, after `cost`, only when `share=true` */
    sharedBlobObject?: string;
  };
}

/** walrus-sdk responses.rs: the certifying event, or (`#[serde(flatten)]` EventOrObjectId) the publisher's own certified Blob object. */
export interface AlreadyCertifiedJson {
  alreadyCertified:
    | { blobId: string; event: { txDigest: string; eventSeq: string }; endEpoch: number }
    | { blobId: string; object: string; endEpoch: number };
}

/**
 * `blobObject` is the certified object (`certifyBlob(...).blobObject`); the rest comes from
 * `registerBlob`, or `resourceOperation` says what was done instead of a fresh registration.
 */
export function newlyCreatedJson(result: {
  blobObject: BlobObject;
  encodedLength: number;
  epochsAhead: number;
  cost: bigint;
  sharedBlobObject?: string;
  resourceOperation?: ResourceOperationJson;
}): NewlyCreatedJson {
  const b = result.blobObject;
  return {
    newlyCreated: {
      blobObject: {
        id: b.id,
        registeredEpoch: b.registeredEpoch,
        blobId: b.blobId,
        size: b.size,
        encodingType: b.encodingType,
        certifiedEpoch: b.certifiedEpoch,
        storage: { id: b.storage.id, startEpoch: b.storage.startEpoch, endEpoch: b.storage.endEpoch, storageSize: b.storage.storageSize },
        deletable: b.deletable,
      },
      resourceOperation: result.resourceOperation ?? { registerFromScratch: { encodedLength: result.encodedLength, epochsAhead: result.epochsAhead } },
      cost: jsonInteger(result.cost),
      ...(result.sharedBlobObject === undefined ? {} : { sharedBlobObject: result.sharedBlobObject }),
    },
  };
}

export function alreadyCertifiedJson(blobId: string, match: CertifiedPermanentMatch): AlreadyCertifiedJson {
  return {
    alreadyCertified: {
      blobId,
      event: { txDigest: match.event.txDigest, eventSeq: match.event.eventSeq },
      endEpoch: match.endEpoch,
    },
  };
}

/** walrus.md §10.3 object variant: the publisher already owns this certified Blob object, stored long enough. */
export function alreadyCertifiedObjectJson(blob: BlobObject): AlreadyCertifiedJson {
  return { alreadyCertified: { blobId: blob.blobId, object: blob.id, endEpoch: blob.storage.endEpoch } };
}

/** FROST amounts are bigint; a JSON number is exact only up to 2^53 - 1. */
function jsonInteger(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < 0n) throw new RangeError(`cost ${value} does not fit an exact JSON number`);
  return Number(value);
}
