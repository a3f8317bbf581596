// The ledger's LMDB environment (its own directory): one named database per concern, values in
// lmdb-js's default msgpack encoding, amounts as decimal strings (msgpack has no portable bigint).
//
//   meta                  'format' → LEDGER_FORMAT_VERSION, 'state' → LedgerState, 'head' → ChainHead
//   transactions          seq (number) → StoredTransaction {body, digest, effects, effectsDigest}
//   digests               Base58 tx digest → seq
//   objects               0x… object id → StoredBlob | StoredStorage | StoredSharedBlob
//   blob-index            [blobId, objectId] → 1
//   reclaim-index         [due epoch, objectId] → 1 (endEpoch; 0 once deleted) until reclaimed
//   certified-permanent-index  [blobId, endEpoch, objectId] → 1 until reclaimed
//
// Every write to these happens inside the one LMDB transaction that appends a transaction record.

import { open, type Database, type RootDatabase } from 'lmdb';
import { observeLmdbCommitFailures } from '../../base/storage-failures.js';
import type { EpochClock } from './epoch-clock.js';
import type { BlobHistory, BlobObject, SharedBlobObject, StorageHistory, StorageObject, TransactionBody, TransactionEffects } from './types.js';

/** Version of the ledger layout, stored under `meta`/`format`; a layout change bumps it. */
export const LEDGER_FORMAT_VERSION = 1;

export const LEDGER_DB_NAMES = {
  meta: 'meta',
  transactions: 'transactions',
  digests: 'digests',
  objects: 'objects',
  blobIndex: 'blob-index',
  reclaimIndex: 'reclaim-index',
  certifiedIndex: 'certified-permanent-index',
} as const;

export interface LedgerState {
  publisherAddress: string;
  balance: string;
  storagePricePerUnit: string;
  writePricePerUnit: string;
  maxEpochsAhead: number;
  genesisMs: number;
  clock: EpochClock;
}

export interface ChainHead {
  seq: number;
  digest: string;
  effectsDigest: string;
  epoch: number;
}

export interface StoredTransaction {
  body: TransactionBody;
  digest: string;
  effects: TransactionEffects;
  effectsDigest: string;
}

/** A Blob object as stored: its fields with the storage by id, and its history. */
export interface StoredBlob extends Omit<BlobObject, 'storage'>, BlobHistory {
  type: 'Blob';
  storageId: string;
}

export interface StoredStorage extends StorageObject, StorageHistory {
  type: 'Storage';
}

/** A shared object wrapping a Blob object; the Blob's `owner` is then this object's id. */
export interface StoredSharedBlob extends SharedBlobObject {
  type: 'SharedBlob';
  createdBy: string;
  previousTransaction: string;
}

export type StoredObject = StoredBlob | StoredStorage | StoredSharedBlob;

export interface LedgerDb {
  env: RootDatabase;
  meta: Database<unknown, string>;
  /** seq → transaction */
  transactions: Database<StoredTransaction, number>;
  /** Base58 digest → seq */
  digests: Database<number, string>;
  /** object id → Blob, Storage or SharedBlob object */
  objects: Database<StoredObject, string>;
  /** [blobId, objectId] → 1: every Blob object of one blob id is one range */
  blobIndex: Database<number, [string, string]>;
  /** [epoch from which the slivers may go, objectId] → 1, until reclaimed; 0 for deleted blobs */
  reclaimIndex: Database<number, [number, string]>;
  /** [blobId, endEpoch, objectId] → 1 for certified permanent blobs until reclaimed (walrus.md §10.3 look-up) */
  certifiedIndex: Database<number, [string, number, string]>;
}

export function openLedgerDb(dir: string, readOnly = false): LedgerDb {
  observeLmdbCommitFailures();
  const env = open({ path: dir, compression: false, readOnly });
  return {
    env,
    meta: env.openDB<unknown, string>(LEDGER_DB_NAMES.meta, {}),
    transactions: env.openDB<StoredTransaction, number>(LEDGER_DB_NAMES.transactions, {}),
    digests: env.openDB<number, string>(LEDGER_DB_NAMES.digests, {}),
    objects: env.openDB<StoredObject, string>(LEDGER_DB_NAMES.objects, {}),
    blobIndex: env.openDB<number, [string, string]>(LEDGER_DB_NAMES.blobIndex, {}),
    reclaimIndex: env.openDB<number, [number, string]>(LEDGER_DB_NAMES.reclaimIndex, {}),
    certifiedIndex: env.openDB<number, [string, number, string]>(LEDGER_DB_NAMES.certifiedIndex, {}),
  };
}
