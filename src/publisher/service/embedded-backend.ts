// The embedded storage network as a publisher backend: Tusk's ledger pays and certifies, Tusk's
// storage nodes (in process or `tusk storage-node`) hold the slivers. The store follows the Walrus
// client flow (walrus.md §10.6): already certified? → register and pay → upload and collect a
// quorum of signed confirmations → certify.

import { diskSpace } from '../../base/disk-space.js';
import type { EncodedBlob } from '../rs2/codec-types.js';
import {
  alreadyCertifiedJson,
  alreadyCertifiedObjectJson,
  isObjectId,
  isQuorum,
  LedgerError,
  newlyCreatedJson,
  reuseOperation,
  type BlobObject,
  type BlobObjectView,
  type CertifyBlobResult,
  type Ledger,
  type ResourceOperationJson,
} from '../ledger/index.js';
import { InsufficientConfirmationsError, type StorageNetwork } from '../nodes/network.js';
import type { BlobType } from '../nodes/types.js';
import type { BlobBackend, RelayCertificate, StoreResult } from './backend.js';
import type { Logger } from './context.js';
import { PublisherError } from './errors.js';
import { epochsToExtend, ownedBlobToReuse } from './owned-blob.js';
import type { StoreQuery } from './store-query.js';

/** Confirmations are signed for one epoch; an epoch turning between upload and certify needs new ones. */
const CERTIFY_ATTEMPTS = 3;

export class EmbeddedBackend implements BlobBackend {
  readonly name = 'embedded';

  /**
   * `onClose`: what closing the backend also closes (the ledger and network it was opened with).
   * `checkRoom`: throws STORAGE_FULL when the disk cannot take a blob of this encoded length (diskRoom).
   */
  constructor(
    readonly ledger: Ledger,
    readonly network: StorageNetwork,
    private readonly log: Logger,
    private readonly onClose: () => Promise<void> = async () => {},
    private readonly checkRoom: (encodedLength: number) => Promise<void> = async () => {},
  ) {}

  get nShards(): number {
    return this.network.nShards;
  }

  get maxEpochsAhead(): number {
    return this.ledger.maxEpochsAhead;
  }

  get slivers(): StorageNetwork {
    return this.network;
  }

  /** Releases the encoding once every upload that reads its slivers ended (EncodedBlob.release). */
  async publish(encoded: EncodedBlob, query: StoreQuery): Promise<StoreResult> {
    const uploads: Promise<void>[] = [];
    try {
      return await this.publishEncoded(encoded, query, uploads);
    } finally {
      void Promise.all(uploads).then(() => encoded.release());
    }
  }

  async relay(encoded: EncodedBlob, deletableBlobObject: string | undefined): Promise<RelayCertificate> {
    const uploads: Promise<void>[] = [];
    try {
      return await this.relayEncoded(encoded, deletableBlobObject, uploads);
    } finally {
      void Promise.all(uploads).then(() => encoded.release());
    }
  }

  private async publishEncoded(encoded: EncodedBlob, query: StoreQuery, uploads: Promise<void>[]): Promise<StoreResult> {
    const ledger = this.ledger;
    // walrus.md §10.3 event variant: permanent requests only, unless `force`.
    if (!query.deletable && !query.force) {
      const match = ledger.findCertifiedPermanent(encoded.blobIdText, ledger.currentEpoch() + query.epochs);
      if (match) return alreadyCertifiedJson(encoded.blobIdText, match);
    }
    const owned = query.reuseResources ? this.ownedRegistration(encoded.blobIdText, query) : undefined;
    if (owned) return this.reuse(encoded, owned, query, uploads);
    // before paying: a store the nodes cannot keep would leave a paid registration behind (walrus.md §15)
    await this.checkRoom(encoded.encodedLength);
    const registration = await ledger.registerBlob({
      blobId: encoded.blobIdText,
      size: encoded.unencodedLength,
      encodedLength: encoded.encodedLength,
      epochs: query.epochs,
      deletable: query.deletable,
      owner: query.sendObjectTo,
    });
    // From here on a failure leaves the paid registration on the ledger, as on Walrus (walrus.md §15).
    const certified = await this.uploadAndCertify(encoded, registration.blobObject, uploads);
    return this.created({ ...registration, blobObject: certified.blobObject }, query);
  }

  /** The newlyCreated answer for a blob just certified, shared first when the query asks (`share=true`). */
  private async created(result: Parameters<typeof newlyCreatedJson>[0], query: StoreQuery, resourceOperation?: ResourceOperationJson): Promise<StoreResult> {
    if (!query.share) return newlyCreatedJson({ ...result, resourceOperation });
    const shared = await this.ledger.shareBlob(result.blobObject.id);
    return newlyCreatedJson({ ...result, blobObject: shared.blobObject, sharedBlobObject: shared.sharedBlobObjectId, resourceOperation });
  }

  /** With `reuse_resources=true`: the publisher's own live Blob object to store with (owned-blob.ts). */
  private ownedRegistration(blobId: string, query: StoreQuery): BlobObject | undefined {
    const ledger = this.ledger;
    const mine = ledger
      .blobsById(blobId)
      .filter((v) => (v.state === 'registered' || v.state === 'certified') && v.object.owner === ledger.publisherAddress)
      .map((v) => v.object);
    return ownedBlobToReuse(mine, blobId, query, ledger.currentEpoch());
  }

  /**
   * Stores with the publisher's own Blob object (walrus-sdk resource.rs StoreOp): certified and long
   * enough, it answers alreadyCertified with the object (walrus.md §10.3 object variant); else the
   * slivers are uploaded and it is certified if it was not, its storage extended to the epoch asked
   * for if it ends before (paying the storage of the added epochs only), and, as a new object would
   * be, sent or shared.
   */
  private async reuse(encoded: EncodedBlob, owned: BlobObject, query: StoreQuery, uploads: Promise<void>[]): Promise<StoreResult> {
    const ledger = this.ledger;
    const epochsExtended = epochsToExtend(owned, query, ledger.currentEpoch());
    if (owned.certifiedEpoch !== null && epochsExtended === 0) return alreadyCertifiedObjectJson(owned);
    let blobObject = owned;
    if (owned.certifiedEpoch === null) {
      await this.checkRoom(encoded.encodedLength);
      blobObject = (await this.uploadAndCertify(encoded, owned, uploads)).blobObject;
    }
    let cost = 0n;
    if (epochsExtended > 0) ({ blobObject, cost } = await ledger.extendBlob(owned.id, epochsExtended));
    if (query.sendObjectTo !== undefined && query.sendObjectTo !== ledger.publisherAddress) {
      blobObject = (await ledger.transferBlob(owned.id, query.sendObjectTo)).blobObject;
    }
    const result = { blobObject, encodedLength: encoded.encodedLength, epochsAhead: query.epochs, cost };
    return this.created(result, query, reuseOperation(owned, encoded.encodedLength, epochsExtended));
  }

  private async relayEncoded(encoded: EncodedBlob, deletableBlobObject: string | undefined, uploads: Promise<void>[]): Promise<RelayCertificate> {
    const blobType = this.registeredType(encoded.blobIdText, deletableBlobObject);
    const stored = await this.store(encoded, blobType, this.ledger.currentEpoch(), uploads);
    const index = new Map(this.network.members.map((m, i) => [m.nodeId, i]));
    const signed = stored.confirmations.map((c) => ({ signer: index.get(c.nodeId)!, ...c.confirmation })).sort((a, b) => a.signer - b.signer);
    // The embedded nodes sign with Ed25519, not BLS: the signers' 64-byte signatures back to back,
    // in signer order, instead of an aggregate (README, "Upload relay"). Every node signs the same
    // message: {intent, epoch, blob id, blob type} (walrus.md §12.2).
    return {
      signers: signed.map((s) => s.signer),
      serializedMessage: Buffer.from(signed[0]!.serializedMessage, 'base64'),
      signature: Buffer.concat(signed.map((s) => Buffer.from(s.signature, 'base64'))),
    };
  }

  async blobIdOfObject(objectId: string): Promise<string> {
    if (!isObjectId(objectId)) throw new PublisherError('INVALID_OBJECT_ID', `got '${objectId.slice(0, 80)}'`);
    const found = this.ledger.getObject(objectId);
    // walrus.md §11: the route resolves a Blob or a shared blob object.
    const view = found?.type === 'SharedBlob' ? this.ledger.getObject(found.object.blobObjectId) : found;
    if (view?.type !== 'Blob' || view.deleted || view.reclaimedEpoch !== null) {
      throw new PublisherError('BLOB_NOT_FOUND', `no live Blob object ${objectId.toLowerCase()} on the ledger`);
    }
    return view.object.blobId;
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private async uploadAndCertify(encoded: EncodedBlob, blobObject: BlobObject, uploads: Promise<void>[]): Promise<CertifyBlobResult> {
    const blobType: BlobType = blobObject.deletable ? { kind: 'deletable', objectId: blobObject.id } : { kind: 'permanent' };
    for (let attempt = 1; ; attempt++) {
      const epoch = this.ledger.currentEpoch();
      const stored = await this.store(encoded, blobType, epoch, uploads);
      try {
        return await this.ledger.certifyBlob(blobObject.id, {
          epoch,
          signers: stored.confirmations.map((c) => c.nodeId),
          shardsCovered: stored.confirmedShards,
          nShards: this.nShards,
          signatures: stored.confirmations.map((c) => c.confirmation.signature),
        });
      } catch (e) {
        const epochTurned = e instanceof LedgerError && e.code === 'InvalidCertificate' && this.ledger.currentEpoch() !== epoch;
        if (!epochTurned || attempt >= CERTIFY_ATTEMPTS) throw e;
      }
    }
  }

  /** One upload to the nodes; `uploads` gets a promise of its end (stragglers past the quorum included). */
  private async store(encoded: EncodedBlob, blobType: BlobType, epoch: number, uploads: Promise<void>[]) {
    let stored;
    try {
      stored = await this.network.storeBlob(encoded.blobId, encoded.metadataBcs, (pair) => encoded.sliverPair(pair), blobType, epoch);
    } catch (e) {
      // Thrown once every node's upload ended.
      if (!(e instanceof InsufficientConfirmationsError)) throw e;
      this.log(`publisher: blob ${encoded.blobIdText}: ${e.message}`, 'warn');
      throw insufficientConfirmations(e.confirmedShards, e.neededShards);
    }
    uploads.push(stored.settled);
    if (!isQuorum(stored.confirmedShards, this.nShards)) throw insufficientConfirmations(stored.confirmedShards, this.network.quorumShards);
    for (const failure of stored.failures) {
      this.log(`publisher: blob ${encoded.blobIdText}: ${failure.nodeId} (${failure.shards.length} shards) failed: ${failure.error.message}`, 'warn');
    }
    return stored;
  }

  /** The blob type the nodes confirm, from the live registration on the ledger. */
  private registeredType(blobId: string, deletableBlobObject: string | undefined): BlobType {
    const live = (v: BlobObjectView) => !v.deleted && (v.state === 'registered' || v.state === 'certified');
    if (deletableBlobObject) {
      const view = this.ledger.getObject(deletableBlobObject);
      if (view?.type !== 'Blob' || !live(view) || !view.object.deletable || view.object.blobId !== blobId) {
        throw new PublisherError('BLOB_NOT_REGISTERED', `${deletableBlobObject} is not a live deletable Blob object of ${blobId}`);
      }
      return { kind: 'deletable', objectId: view.object.id };
    }
    if (!this.ledger.blobsById(blobId).some((v) => live(v) && !v.object.deletable)) {
      throw new PublisherError('BLOB_NOT_REGISTERED', `no live permanent Blob object of ${blobId}`);
    }
    return { kind: 'permanent' };
  }
}

/**
 * The check that a store fits on `dir`'s disk above `reserve` (the nodes' disk reserve), made before
 * the ledger is paid. `local`: the storage nodes write the slivers to this disk too (in-process
 * nodes; a blob's encoded length bounds what they write); remote nodes' disks are theirs to watch,
 * and only the ledger's own small writes land here.
 */
export function diskRoom(dir: string, reserve: number, local: boolean): (encodedLength: number) => Promise<void> {
  return async (encodedLength) => {
    const bytes = local ? encodedLength : 0;
    const { freeBytes } = await diskSpace(dir);
    if (freeBytes - bytes < reserve) {
      throw new PublisherError('STORAGE_FULL', `storing ${bytes} encoded bytes would leave less than the ${reserve}-byte disk reserve free (${freeBytes} bytes free)`);
    }
  };
}

function insufficientConfirmations(confirmed: number, needed: number): PublisherError {
  return new PublisherError('INSUFFICIENT_CONFIRMATIONS', `storage nodes holding ${confirmed} shards confirmed, a quorum needs ${needed}`, {
    confirmedShards: String(confirmed),
    quorumShards: String(needed),
  });
}
