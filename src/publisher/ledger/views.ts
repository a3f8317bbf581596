// Stored records → the public shapes of types.ts.

import type { LedgerDb, StoredBlob, StoredSharedBlob, StoredStorage, StoredTransaction } from './ledger-db.js';
import type { BlobObject, BlobObjectView, BlobState, LedgerEvent, SharedBlobObjectView, StorageObject, StorageObjectView, TransactionRecord } from './types.js';

export function storageObjectOf(storage: StoredStorage): StorageObject {
  return { id: storage.id, startEpoch: storage.startEpoch, endEpoch: storage.endEpoch, storageSize: storage.storageSize };
}

export function blobObjectOf(blob: StoredBlob, storage: StoredStorage): BlobObject {
  return {
    id: blob.id,
    registeredEpoch: blob.registeredEpoch,
    blobId: blob.blobId,
    size: blob.size,
    encodingType: blob.encodingType,
    certifiedEpoch: blob.certifiedEpoch,
    storage: storageObjectOf(storage),
    deletable: blob.deletable,
    owner: blob.owner,
    // older ledgers have no attributes on their Blob records (docs/FORMAT.md)
    ...(blob.attributes ? { attributes: blob.attributes } : {}),
  };
}

export function blobStateOf(blob: StoredBlob, storage: StoredStorage, currentEpoch: number): BlobState {
  if (blob.reclaimedEpoch !== null) return 'reclaimed';
  if (blob.deleted) return 'deleted';
  if (currentEpoch >= storage.endEpoch) return 'expired';
  return blob.certifiedEpoch === null ? 'registered' : 'certified';
}

export function blobViewOf(blob: StoredBlob, storage: StoredStorage, currentEpoch: number): BlobObjectView {
  return {
    type: 'Blob',
    object: blobObjectOf(blob, storage),
    state: blobStateOf(blob, storage, currentEpoch),
    createdBy: blob.createdBy,
    previousTransaction: blob.previousTransaction,
    certifiedBy: blob.certifiedBy,
    deleted: blob.deleted,
    reclaimedEpoch: blob.reclaimedEpoch,
  };
}

export function storageViewOf(storage: StoredStorage): StorageObjectView {
  return {
    type: 'Storage',
    object: storageObjectOf(storage),
    owner: storage.owner,
    wrappedIn: storage.wrappedIn,
    createdBy: storage.createdBy,
    previousTransaction: storage.previousTransaction,
  };
}

export function sharedBlobViewOf(shared: StoredSharedBlob): SharedBlobObjectView {
  return { type: 'SharedBlob', object: { id: shared.id, blobObjectId: shared.blobObjectId }, createdBy: shared.createdBy, previousTransaction: shared.previousTransaction };
}

export function eventsOf(tx: StoredTransaction): LedgerEvent[] {
  return tx.effects.events.map(
    (event, i) =>
      ({
        ...event,
        id: { txDigest: tx.digest, eventSeq: String(i) },
        sender: tx.body.sender,
        timestampMs: tx.body.timestampMs,
      }) as LedgerEvent,
  );
}

export function transactionRecordOf(tx: StoredTransaction): TransactionRecord {
  return { digest: tx.digest, ...tx.body, effects: { ...tx.effects, events: eventsOf(tx) }, effectsDigest: tx.effectsDigest };
}

/** Reads a Blob object and the Storage object it wraps; undefined if `id` is not a Blob. */
export function readBlob(db: LedgerDb, id: string): { blob: StoredBlob; storage: StoredStorage } | undefined {
  const blob = db.objects.get(id);
  if (blob?.type !== 'Blob') return undefined;
  const storage = db.objects.get(blob.storageId);
  if (storage?.type !== 'Storage') throw new Error(`ledger: blob ${id} has no storage object ${blob.storageId}`);
  return { blob, storage };
}
