// The blob transactions as plans (transaction-log.ts): register (reserve storage + create the
// Blob object + pay), certify, delete, and reclaim. Validation happens while planning; `apply`
// never throws.

import type { JsonObject } from './canonical-json.js';
import { registrationCost } from './costs.js';
import { LedgerError } from './errors.js';
import { assertBlobId, isObjectId, normalizeAddress } from './ids.js';
import type { LedgerDb, StoredBlob, StoredSharedBlob, StoredStorage } from './ledger-db.js';
import type { Plan, PlanContext } from './transaction-log.js';
import type { BlobObject, StorageObject } from './types.js';
import { blobObjectOf, readBlob, storageObjectOf } from './views.js';

export interface RegisterBlobInput {
  /** base64url blob id (walrus.md §1) */
  blobId: string;
  size: number;
  /** walrus.md §9.1; reserved as the Storage object's `storageSize` */
  encodedLength: number;
  /** epochs ahead of the current one (walrus.md §9.3) */
  epochs: number;
  deletable: boolean;
  /** `send_object_to`; the publisher's address when absent */
  owner?: string;
}

export interface RegisterBlobResult {
  blobObject: BlobObject;
  storage: StorageObject;
  cost: bigint;
  txDigest: string;
  eventSeq: string;
  encodedLength: number;
  epochsAhead: number;
}

/** The aggregated storage confirmations (walrus.md §12.2) the publisher collected. */
export interface BlobCertificate {
  /** epoch the confirmations were signed for; must be the current epoch when given */
  epoch?: number;
  /** node ids that signed */
  signers: string[];
  /** shards held by the signers */
  shardsCovered: number;
  nShards: number;
  /** signatures as the nodes returned them (base64), kept as evidence in the log */
  signatures?: string[];
}

export interface CertifyBlobResult {
  txDigest: string;
  eventSeq: string;
  certifiedEpoch: number;
  blobObject: BlobObject;
}

export interface ShareBlobResult {
  txDigest: string;
  /** the new SharedBlob object (`sharedBlobObject` in the store answer) */
  sharedBlobObjectId: string;
  blobObject: BlobObject;
}

export interface ExtendBlobResult {
  txDigest: string;
  eventSeq: string;
  /** FROST paid: the storage fee of the added epochs (no write fee) */
  cost: bigint;
  blobObject: BlobObject;
}

export interface DeleteBlobResult {
  txDigest: string;
  eventSeq: string;
  blobObject: BlobObject;
}

export interface ReclaimResult {
  txDigest: string;
  reclaimed: string[];
}

/** Reclaim-index epoch of a deleted blob: due at once. */
const DUE_NOW = 0;

export function planRegisterBlob(input: RegisterBlobInput, ctx: PlanContext): Plan<RegisterBlobResult> {
  const { state, epoch } = ctx;
  assertBlobId(input.blobId);
  assertCount('size', input.size, 0);
  assertCount('encodedLength', input.encodedLength, 1);
  if (typeof input.deletable !== 'boolean') throw new LedgerError('InvalidArgument', { deletable: input.deletable });
  if (!Number.isInteger(input.epochs) || input.epochs < 1 || input.epochs > state.maxEpochsAhead) {
    throw new LedgerError('InvalidEpochsAhead', { epochs: input.epochs, maxEpochsAhead: state.maxEpochsAhead });
  }
  const owner = input.owner === undefined ? state.publisherAddress : normalizeAddress(input.owner);
  const prices = { storagePricePerUnit: BigInt(state.storagePricePerUnit), writePricePerUnit: BigInt(state.writePricePerUnit) };
  const cost = registrationCost(input.encodedLength, input.epochs, prices);
  const endEpoch = epoch + input.epochs;

  return {
    kind: 'RegisterBlob',
    inputs: {
      blobId: input.blobId,
      size: input.size,
      encodedLength: input.encodedLength,
      epochsAhead: input.epochs,
      deletable: input.deletable,
      owner,
    },
    balanceChange: -cost,
    apply(tx) {
      const storage: StoredStorage = {
        type: 'Storage',
        id: tx.newObjectId(),
        startEpoch: epoch,
        endEpoch,
        storageSize: input.encodedLength,
        owner,
        wrappedIn: null,
        createdBy: tx.digest,
        previousTransaction: tx.digest,
      };
      const blob: StoredBlob = {
        type: 'Blob',
        id: tx.newObjectId(),
        registeredEpoch: epoch,
        blobId: input.blobId,
        size: input.size,
        encodingType: 'RS2',
        certifiedEpoch: null,
        storageId: storage.id,
        deletable: input.deletable,
        owner,
        createdBy: tx.digest,
        previousTransaction: tx.digest,
        certifiedBy: null,
        deleted: false,
        reclaimedEpoch: null,
      };
      storage.wrappedIn = blob.id;
      return {
        created: [storage.id, blob.id],
        mutated: [],
        events: [
          {
            type: 'BlobRegistered',
            data: {
              epoch,
              blobId: input.blobId,
              size: input.size,
              encodingType: 'RS2',
              endEpoch,
              deletable: input.deletable,
              objectId: blob.id,
              storageId: storage.id,
              owner,
              cost: String(cost),
            },
          },
        ],
        write() {
          tx.db.objects.put(storage.id, storage);
          tx.db.objects.put(blob.id, blob);
          tx.db.blobIndex.put([blob.blobId, blob.id], 1);
          tx.db.reclaimIndex.put([endEpoch, blob.id], 1);
        },
        result: {
          blobObject: blobObjectOf(blob, storage),
          storage: storageObjectOf(storage),
          cost,
          txDigest: tx.digest,
          eventSeq: '0',
          encodedLength: input.encodedLength,
          epochsAhead: input.epochs,
        },
      };
    },
  };
}

export function planCertifyBlob(blobObjectId: string, cert: BlobCertificate, ctx: PlanContext): Plan<CertifyBlobResult> {
  const { blob, storage } = liveBlob(ctx.db, blobObjectId);
  const { epoch } = ctx;
  if (blob.certifiedEpoch !== null) throw new LedgerError('BlobAlreadyCertified', { blobObjectId, certifiedEpoch: blob.certifiedEpoch });
  if (epoch >= storage.endEpoch) throw new LedgerError('BlobExpired', { blobObjectId, endEpoch: storage.endEpoch, epoch });
  const certificate = checkCertificate(cert, epoch);

  return {
    kind: 'CertifyBlob',
    inputs: { blobObjectId: blob.id, certificate },
    balanceChange: 0n,
    apply(tx) {
      const certifiedBy = { txDigest: tx.digest, eventSeq: '0' };
      const next: StoredBlob = { ...blob, certifiedEpoch: epoch, certifiedBy, previousTransaction: tx.digest };
      return {
        created: [],
        mutated: [blob.id],
        events: [
          {
            type: 'BlobCertified',
            data: {
              epoch,
              blobId: blob.blobId,
              endEpoch: storage.endEpoch,
              deletable: blob.deletable,
              objectId: blob.id,
              shardsCovered: cert.shardsCovered,
              nShards: cert.nShards,
            },
          },
        ],
        write() {
          tx.db.objects.put(blob.id, next);
          if (!blob.deletable) tx.db.certifiedIndex.put([blob.blobId, storage.endEpoch, blob.id], 1);
        },
        result: { ...certifiedBy, certifiedEpoch: epoch, blobObject: blobObjectOf(next, storage) },
      };
    },
  };
}

/**
 * Walrus's `system::extend_blob`: a certified, unexpired Blob object the publisher owns keeps its
 * storage `epochsExtended` epochs longer (at most max epochs ahead of now), paying the storage fee
 * of those epochs; a `BlobCertified` event with `isExtension` says so, as the contract emits it
 * (its `epoch` stays the certification's).
 */
export function planExtendBlob(blobObjectId: string, epochsExtended: number, ctx: PlanContext): Plan<ExtendBlobResult> {
  const { blob, storage } = liveBlob(ctx.db, blobObjectId);
  const { state, epoch } = ctx;
  if (blob.certifiedEpoch === null) throw new LedgerError('InvalidArgument', { blobObjectId }, 'only a certified blob can be extended');
  if (epoch >= storage.endEpoch) throw new LedgerError('BlobExpired', { blobObjectId, endEpoch: storage.endEpoch, epoch });
  if (blob.owner !== state.publisherAddress) throw new LedgerError('InvalidArgument', { blobObjectId, owner: blob.owner }, 'only a blob the publisher owns can be extended');
  const endEpoch = storage.endEpoch + epochsExtended;
  if (!Number.isInteger(epochsExtended) || epochsExtended < 1 || endEpoch - epoch > state.maxEpochsAhead) {
    throw new LedgerError('InvalidEpochsAhead', { epochs: endEpoch - epoch, maxEpochsAhead: state.maxEpochsAhead });
  }
  const prices = { storagePricePerUnit: BigInt(state.storagePricePerUnit), writePricePerUnit: 0n };
  const cost = registrationCost(storage.storageSize, epochsExtended, prices);

  return {
    kind: 'ExtendBlob',
    inputs: { blobObjectId: blob.id, epochsExtended },
    balanceChange: -cost,
    apply(tx) {
      const nextStorage: StoredStorage = { ...storage, endEpoch, previousTransaction: tx.digest };
      const certifiedBy = { txDigest: tx.digest, eventSeq: '0' };
      const next: StoredBlob = { ...blob, certifiedBy, previousTransaction: tx.digest };
      return {
        created: [],
        mutated: [blob.id, storage.id],
        events: [
          {
            type: 'BlobCertified',
            data: { epoch: blob.certifiedEpoch!, blobId: blob.blobId, endEpoch, deletable: blob.deletable, objectId: blob.id, isExtension: true },
          },
        ],
        write() {
          tx.db.objects.put(storage.id, nextStorage);
          tx.db.objects.put(blob.id, next);
          tx.db.reclaimIndex.remove([storage.endEpoch, blob.id]);
          tx.db.reclaimIndex.put([endEpoch, blob.id], 1);
          if (!blob.deletable) {
            tx.db.certifiedIndex.remove([blob.blobId, storage.endEpoch, blob.id]);
            tx.db.certifiedIndex.put([blob.blobId, endEpoch, blob.id], 1);
          }
        },
        result: { ...certifiedBy, cost, blobObject: blobObjectOf(next, nextStorage) },
      };
    },
  };
}

export interface TransferBlobResult {
  txDigest: string;
  blobObject: BlobObject;
}

/** A Sui transfer of a Blob object the publisher owns (with its Storage inside) to `to` (`send_object_to` after a reuse). */
export function planTransferBlob(blobObjectId: string, to: string, ctx: PlanContext): Plan<TransferBlobResult> {
  const { blob, storage } = liveBlob(ctx.db, blobObjectId);
  if (blob.owner !== ctx.state.publisherAddress) throw new LedgerError('InvalidArgument', { blobObjectId, owner: blob.owner }, 'only a blob the publisher owns can be sent');
  const owner = normalizeAddress(to);

  return {
    kind: 'TransferBlob',
    inputs: { blobObjectId: blob.id, to: owner },
    balanceChange: 0n,
    apply(tx) {
      const next: StoredBlob = { ...blob, owner, previousTransaction: tx.digest };
      const nextStorage: StoredStorage = { ...storage, owner, previousTransaction: tx.digest };
      return {
        created: [],
        mutated: [blob.id, storage.id],
        events: [],
        write() {
          tx.db.objects.put(blob.id, next);
          tx.db.objects.put(storage.id, nextStorage);
        },
        result: { txDigest: tx.digest, blobObject: blobObjectOf(next, nextStorage) },
      };
    },
  };
}

/**
 * Walrus's `shared_blob::new`: the certified Blob object moves into a new shared object, which
 * anyone may fund or extend; the Blob's owner becomes that object. Only a certified, unshared blob.
 */
export function planShareBlob(blobObjectId: string, ctx: PlanContext): Plan<ShareBlobResult> {
  const { blob, storage } = liveBlob(ctx.db, blobObjectId);
  if (blob.certifiedEpoch === null) throw new LedgerError('InvalidArgument', { blobObjectId }, 'only a certified blob can be shared');
  if (ctx.db.objects.get(blob.owner)?.type === 'SharedBlob') throw new LedgerError('InvalidArgument', { blobObjectId }, 'the blob is already shared');

  return {
    kind: 'ShareBlob',
    inputs: { blobObjectId: blob.id },
    balanceChange: 0n,
    apply(tx) {
      const shared: StoredSharedBlob = { type: 'SharedBlob', id: tx.newObjectId(), blobObjectId: blob.id, createdBy: tx.digest, previousTransaction: tx.digest };
      const next: StoredBlob = { ...blob, owner: shared.id, previousTransaction: tx.digest };
      return {
        created: [shared.id],
        mutated: [blob.id],
        events: [],
        write() {
          tx.db.objects.put(shared.id, shared);
          tx.db.objects.put(blob.id, next);
        },
        result: { txDigest: tx.digest, sharedBlobObjectId: shared.id, blobObject: blobObjectOf(next, storage) },
      };
    },
  };
}

export function planDeleteBlob(blobObjectId: string, ctx: PlanContext): Plan<DeleteBlobResult> {
  const { blob, storage } = liveBlob(ctx.db, blobObjectId);
  if (!blob.deletable) throw new LedgerError('BlobNotDeletable', { blobObjectId });
  const { epoch } = ctx;

  return {
    kind: 'DeleteBlob',
    inputs: { blobObjectId: blob.id },
    balanceChange: 0n,
    apply(tx) {
      const next: StoredBlob = { ...blob, deleted: true, previousTransaction: tx.digest };
      // Deleting a Walrus blob hands its Storage resource back to the owner.
      const released: StoredStorage = { ...storage, wrappedIn: null, previousTransaction: tx.digest };
      return {
        created: [],
        mutated: [blob.id, storage.id],
        events: [
          {
            type: 'BlobDeleted',
            data: { epoch, blobId: blob.blobId, endEpoch: storage.endEpoch, objectId: blob.id, wasCertified: blob.certifiedEpoch !== null },
          },
        ],
        write() {
          tx.db.objects.put(blob.id, next);
          tx.db.objects.put(storage.id, released);
          tx.db.reclaimIndex.remove([storage.endEpoch, blob.id]);
          tx.db.reclaimIndex.put([DUE_NOW, blob.id], 1);
        },
        result: { txDigest: tx.digest, eventSeq: '0', blobObject: blobObjectOf(next, storage) },
      };
    },
  };
}

export function planReclaim(blobObjectIds: string[], ctx: PlanContext): Plan<ReclaimResult> {
  const { epoch } = ctx;
  if (!Array.isArray(blobObjectIds) || blobObjectIds.length === 0) throw new LedgerError('InvalidArgument', { blobObjectIds });
  const ids = [...new Set(blobObjectIds)];
  const blobs = ids.map((id) => {
    const found = existingBlob(ctx.db, id);
    const { blob, storage } = found;
    const due = blob.deleted || epoch >= storage.endEpoch;
    if (blob.reclaimedEpoch !== null || !due) {
      throw new LedgerError('BlobNotReclaimable', { blobObjectId: id, endEpoch: storage.endEpoch, epoch, reclaimedEpoch: blob.reclaimedEpoch });
    }
    return found;
  });

  return {
    kind: 'ReclaimBlobs',
    inputs: { blobObjectIds: ids },
    balanceChange: 0n,
    apply(tx) {
      const next = blobs.map(({ blob }) => ({ ...blob, reclaimedEpoch: epoch, previousTransaction: tx.digest }));
      return {
        created: [],
        mutated: ids,
        events: blobs.map(({ blob, storage }) => ({
          type: 'BlobReclaimed' as const,
          data: { epoch, blobId: blob.blobId, endEpoch: storage.endEpoch, objectId: blob.id, reason: blob.deleted ? ('deleted' as const) : ('expired' as const) },
        })),
        write() {
          blobs.forEach(({ blob, storage }, i) => {
            tx.db.objects.put(blob.id, next[i]!);
            tx.db.reclaimIndex.remove([blob.deleted ? DUE_NOW : storage.endEpoch, blob.id]);
            tx.db.certifiedIndex.remove([blob.blobId, storage.endEpoch, blob.id]);
          });
        },
        result: { txDigest: tx.digest, reclaimed: ids },
      };
    },
  };
}

/** walrus.md §9.3: a certificate needs signers holding a quorum of shards, 3·weight ≥ 2n + 1. */
export function isQuorum(shardsCovered: number, nShards: number): boolean {
  return 3 * shardsCovered >= 2 * nShards + 1;
}

function checkCertificate(cert: BlobCertificate, epoch: number): JsonObject {
  const bad = (why: string): never => {
    throw new LedgerError('InvalidCertificate', { why }, `invalid certificate: ${why}`);
  };
  if (!Number.isInteger(cert.nShards) || cert.nShards < 4) bad('nShards must be an integer ≥ 4');
  if (!Number.isInteger(cert.shardsCovered) || cert.shardsCovered < 0 || cert.shardsCovered > cert.nShards) {
    bad('shardsCovered must be an integer between 0 and nShards');
  }
  if (!Array.isArray(cert.signers) || cert.signers.length === 0 || cert.signers.some((s) => typeof s !== 'string' || s === '')) {
    bad('signers must be a non-empty list of node ids');
  }
  if (new Set(cert.signers).size !== cert.signers.length) bad('a node signed twice');
  if (cert.signatures !== undefined) {
    if (!Array.isArray(cert.signatures) || cert.signatures.length !== cert.signers.length || cert.signatures.some((s) => typeof s !== 'string')) {
      bad('signatures must be one string per signer');
    }
  }
  if (cert.epoch !== undefined && cert.epoch !== epoch) bad(`signed for epoch ${cert.epoch}, the current epoch is ${epoch}`);
  if (!isQuorum(cert.shardsCovered, cert.nShards)) {
    throw new LedgerError('QuorumNotReached', { shardsCovered: cert.shardsCovered, nShards: cert.nShards, needed: Math.ceil((2 * cert.nShards + 1) / 3) });
  }
  const recorded: JsonObject = { signers: cert.signers, shardsCovered: cert.shardsCovered, nShards: cert.nShards };
  if (cert.epoch !== undefined) recorded.epoch = cert.epoch;
  if (cert.signatures !== undefined) recorded.signatures = cert.signatures;
  return recorded;
}

function existingBlob(db: LedgerDb, id: string): { blob: StoredBlob; storage: StoredStorage } {
  if (typeof id !== 'string' || !isObjectId(id)) throw new LedgerError('InvalidAddress', { objectId: id });
  const found = readBlob(db, id.toLowerCase());
  if (found === undefined) {
    throw db.objects.get(id.toLowerCase()) === undefined ? new LedgerError('NoSuchObject', { objectId: id }) : new LedgerError('NotABlob', { objectId: id });
  }
  return found;
}

export function liveBlob(db: LedgerDb, id: string): { blob: StoredBlob; storage: StoredStorage } {
  const found = existingBlob(db, id);
  if (found.blob.deleted) throw new LedgerError('BlobDeleted', { blobObjectId: id });
  if (found.blob.reclaimedEpoch !== null) throw new LedgerError('BlobExpired', { blobObjectId: id, endEpoch: found.storage.endEpoch });
  return found;
}

function assertCount(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new LedgerError('InvalidArgument', { [name]: value }, `${name} must be an integer ≥ ${min}`);
}
