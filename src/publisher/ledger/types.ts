// Public shapes of the ledger. Object field names follow walrus.md §10.3 so the publisher can embed
// them; amounts in FROST are bigint in the API and decimal strings inside transactions and events.

import type { JsonObject } from './canonical-json.js';

export interface StorageObject {
  id: string;
  startEpoch: number;
  /** exclusive (walrus.md §9.3) */
  endEpoch: number;
  storageSize: number;
}

export interface BlobObject {
  id: string;
  registeredEpoch: number;
  blobId: string;
  size: number;
  encodingType: 'RS2';
  certifiedEpoch: number | null;
  storage: StorageObject;
  deletable: boolean;
  /** the address that owns the object (`send_object_to`, else the publisher) */
  owner: string;
  /**
   * The blob's attributes: Walrus's `metadata` dynamic field of a Blob object (walrus contracts
   * `blob::add_or_replace_metadata` / `insert_or_update_metadata_pair`, the CLI's
   * `set-blob-attribute`), string keys to string values; absent until one is set.
   */
  attributes?: Record<string, string>;
}

/** `eventSeq` is the event's index in its transaction as a decimal string (walrus.md §9.4). */
export interface EventId {
  txDigest: string;
  eventSeq: string;
}

/** `registered` → `certified`; `expired` once the current epoch reaches endEpoch; `reclaimed` once its slivers are gone. */
export type BlobState = 'registered' | 'certified' | 'expired' | 'deleted' | 'reclaimed';

/** What the ledger knows of a Blob object beyond its fields: stored with it and shown with it. */
export interface BlobHistory {
  createdBy: string;
  previousTransaction: string;
  certifiedBy: EventId | null;
  deleted: boolean;
  reclaimedEpoch: number | null;
}

/** What the ledger knows of a Storage object beyond its fields. */
export interface StorageHistory {
  owner: string;
  /** the Blob object this storage is attached to, null once released by a deletion */
  wrappedIn: string | null;
  createdBy: string;
  previousTransaction: string;
}

export interface BlobObjectView extends BlobHistory {
  type: 'Blob';
  object: BlobObject;
  state: BlobState;
}

export interface StorageObjectView extends StorageHistory {
  type: 'Storage';
  object: StorageObject;
}

/** A certified Blob object wrapped into a shared object (walrus.md §10.2 `share`; Walrus's `shared_blob::SharedBlob`). */
export interface SharedBlobObject {
  id: string;
  /** the wrapped Blob object */
  blobObjectId: string;
}

export interface SharedBlobObjectView {
  type: 'SharedBlob';
  object: SharedBlobObject;
  createdBy: string;
  previousTransaction: string;
}

export type LedgerObjectView = BlobObjectView | StorageObjectView | SharedBlobObjectView;

export type TransactionKind = 'Genesis' | 'Configure' | 'Fund' | 'RegisterBlob' | 'CertifyBlob' | 'ExtendBlob' | 'TransferBlob' | 'SetBlobAttributes' | 'ShareBlob' | 'DeleteBlob' | 'ReclaimBlobs';

export type LedgerEventBody =
  | { type: 'LedgerCreated'; data: JsonObject }
  | { type: 'ParametersChanged'; data: JsonObject }
  | { type: 'WalletFunded'; data: { amount: string; balance: string } }
  | {
      type: 'BlobRegistered';
      data: {
        epoch: number;
        blobId: string;
        size: number;
        encodingType: 'RS2';
        endEpoch: number;
        deletable: boolean;
        objectId: string;
        storageId: string;
        owner: string;
        cost: string;
      };
    }
  | {
      type: 'BlobCertified';
      data:
        | { epoch: number; blobId: string; endEpoch: number; deletable: boolean; objectId: string; shardsCovered: number; nShards: number }
        /** an extension (`extend_blob`): `epoch` is the certification's, `endEpoch` the new one */
        | { epoch: number; blobId: string; endEpoch: number; deletable: boolean; objectId: string; isExtension: true };
    }
  | { type: 'BlobDeleted'; data: { epoch: number; blobId: string; endEpoch: number; objectId: string; wasCertified: boolean } }
  | { type: 'BlobReclaimed'; data: { epoch: number; blobId: string; endEpoch: number; objectId: string; reason: 'expired' | 'deleted' } };

export type LedgerEventType = LedgerEventBody['type'];

export type LedgerEvent = LedgerEventBody & { id: EventId; sender: string; timestampMs: number };

/** What a transaction did; its digest links it into the chain through the next transaction. */
export interface TransactionEffects {
  created: string[];
  mutated: string[];
  /** signed decimal FROST */
  balanceChange: string;
  balanceAfter: string;
  events: LedgerEventBody[];
}

/** The hashed part of a transaction: `digest` = SHA-256 over its canonical serialization. */
export interface TransactionBody {
  seq: number;
  kind: TransactionKind;
  timestampMs: number;
  epoch: number;
  sender: string;
  inputs: JsonObject;
  prevDigest: string;
  prevEffectsDigest: string;
}

export interface TransactionRecord extends TransactionBody {
  digest: string;
  effects: Omit<TransactionEffects, 'events'> & { events: LedgerEvent[] };
  effectsDigest: string;
}

export interface LedgerStatus {
  epoch: number;
  epochLengthMs: number;
  epochStartMs: number;
  nextEpochMs: number;
  maxEpochsAhead: number;
  genesisMs: number;
  publisherAddress: string;
  balance: string;
  storagePricePerUnit: string;
  writePricePerUnit: string;
  transactions: number;
  headDigest: string;
}

export type ChainReport = { ok: true; transactions: number; headDigest: string } | { ok: false; seq: number; reason: string };
