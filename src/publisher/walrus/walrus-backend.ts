// Walrus itself as the publisher's network: blobs are paid for and certified on Sui and stored on the
// committee's storage nodes, through Mysten's SDKs (@mysten/walrus 1.x step methods, @mysten/sui 2.x
// transactions over its gRPC client: Sui full nodes no longer serve JSON-RPC) with Tusk's native RS2
// encoding instead of the SDK's wasm encoder. @mysten/sui 2.x needs Node 22: the server loads this
// module with a dynamic import (publisher/walrus/load-backend.ts, from publisher/index.ts) so that Node 20 runs everything else. The store
// follows the Walrus daemon (walrus-sdk client.rs `reserve_and_store_blobs`): blob status from the
// nodes → wallet check → register (reserve space, pay) → write metadata and slivers to each node of
// the committee → certify with the aggregated confirmations → share or send the Blob object.

import { SuiGrpcClient } from '@mysten/sui/grpc';
import type { Keypair, Signer } from '@mysten/sui/cryptography';
import { Transaction } from '@mysten/sui/transactions';
import { normalizeStructTag, parseStructTag } from '@mysten/sui/utils';
import {
  NoBlobStatusReceivedError,
  NotEnoughBlobConfirmationsError,
  NoVerifiedBlobStatusReceivedError,
  RetryableWalrusClientError,
  WalrusClient,
  type SliversForNode,
} from '@mysten/walrus';
import type { EncodedBlob } from '../rs2/codec-types.js';
import { unshared } from '../../base/cross-thread-bytes.js';
import { WalrusBlobGone, type WalrusOwnedBlob, type WalrusRenewalView } from '../../base/walrus-blobs.js';
import { alreadyCertifiedObjectJson, isObjectId, newlyCreatedJson, reuseOperation, type BlobObject } from '../ledger/index.js';
import { shardToPair } from '../nodes/network.js';
import type { BlobBackend, RelayCertificate, StoreResult } from '../service/backend.js';
import type { Logger } from '../service/context.js';
import { PublisherError } from '../service/errors.js';
import { epochsToExtend, longestLivedPermanent, ownedBlobToReuse } from '../service/owned-blob.js';
import type { StoreQuery } from '../service/store-query.js';
import { loadCommittee, type Committee } from './committee.js';
import { parseBlobObject } from './move-objects.js';
import { ownedBlobsOf, renewalViewOf, type OwnedChain } from './owned-blobs.js';
import type { WalrusNetworkConfig } from '../../config/walrus-network.js';
import { resendOnReset } from './sui-fetch.js';
import { loadWallet } from './wallet.js';
import { isUnknownOutcome, WalletPool, type Funds } from './wallet-pool.js';

/** Gas the wallet must hold per transaction of a store before it starts (0.05 SUI; a register or certify costs a few thousandths). */
export const GAS_PER_TRANSACTION_MIST = 50_000_000n;
/** How long the committee and the system state are trusted before they are read again. */
const STATE_TTL_MS = 60_000;
/** Writes and certifications of one store, when too few nodes confirm or epochs change under it (the Walrus client retries a few times too). */
const EPOCH_CHANGE_ATTEMPTS = 3;

export interface WalrusBackendOptions {
  config: WalrusNetworkConfig;
  log: Logger;
}

/** Connects to the network, reads its committee and checks the wallet; throws with a clear message when it cannot. */
export async function openWalrusBackend({ config, log }: WalrusBackendOptions): Promise<WalrusBackend> {
  const signer = loadWallet(config.walletPath, config.walletAddress);
  const sui = new SuiGrpcClient({ network: config.name, baseUrl: config.rpcUrl, fetch: resendOnReset() });
  const walrus = new WalrusClient({ packageConfig: { systemObjectId: config.systemObjectId, stakingPoolId: config.stakingPoolId }, suiClient: sui });
  let state;
  try {
    state = await loadState(walrus, sui);
  } catch (e) {
    throw new Error(`network ${config.name}: cannot read the Walrus system at ${config.rpcUrl}: ${(e as Error).message}`);
  }
  const backend = new WalrusBackend(config.name, walrus, sui, signer, state, log, config.subWallets);
  const funds = await backend.balances();
  log(
    `tusk: publisher on Walrus ${config.name} (epoch ${state.committee.epoch}, ${state.committee.nodes.length} storage nodes, ${state.committee.nShards} shards); ` +
      `wallet ${signer.toSuiAddress()}: ${funds.wal} FROST, ${funds.sui} MIST (with its ${backend.pool.wallets.length} sub-wallets)`,
  );
  return backend;
}

interface NetworkState {
  committee: Committee;
  maxEpochsAhead: number;
  walrusPackageId: string;
  /** the package address in the Blob type (walrus's type origin) */
  blobTypeOrigin: string;
  walType: string;
  loadedAt: number;
}

async function loadState(walrus: WalrusClient, sui: SuiGrpcClient): Promise<NetworkState> {
  const [committee, system, systemObject, blobType] = await Promise.all([loadCommittee(walrus, sui), walrus.systemState(), walrus.systemObject(), walrus.getBlobType()]);
  return {
    committee,
    // storage_accounting.move: max_epochs_ahead is the ring buffer's length.
    maxEpochsAhead: system.future_accounting.length,
    walrusPackageId: systemObject.package_id,
    blobTypeOrigin: parseStructTag(blobType).address,
    walType: await walType(sui, systemObject.package_id),
    loadedAt: Date.now(),
  };
}

/** The WAL coin type, as the SDK finds it: the coin `staking::stake_with_pool` takes. */
async function walType(sui: SuiGrpcClient, packageId: string): Promise<string> {
  const { function: fn } = await sui.core.getMoveFunction({ packageId, moduleName: 'staking', name: 'stake_with_pool' });
  const coin = fn.parameters[1]?.body;
  const inner = coin?.$kind === 'datatype' ? coin.datatype.typeParameters[0] : undefined;
  if (inner?.$kind !== 'datatype') throw new Error('the WAL coin type could not be found in the Walrus package');
  return normalizeStructTag(inner.datatype.typeName);
}

export class WalrusBackend implements BlobBackend {
  private readonly address: string;
  /** the sub-wallets stores run on, funded from the main wallet (wallet-pool.ts) */
  readonly pool: WalletPool;

  constructor(
    readonly name: string,
    private readonly walrus: WalrusClient,
    private readonly sui: SuiGrpcClient,
    signer: Keypair,
    private state: NetworkState,
    private readonly log: Logger,
    subWallets: number,
  ) {
    this.address = signer.toSuiAddress();
    this.pool = new WalletPool(signer, subWallets, sui, () => this.state.walType);
  }

  get nShards(): number {
    return this.state.committee.nShards;
  }

  get maxEpochsAhead(): number {
    return this.state.maxEpochsAhead;
  }

  get slivers() {
    return this.state.committee.reader;
  }

  /** WAL (FROST) and SUI (MIST) the wallet and its sub-wallets hold. */
  balances(): Promise<Funds> {
    return this.pool.total();
  }

  async publish(encoded: EncodedBlob, query: StoreQuery): Promise<StoreResult> {
    return this.onChain(async () => {
      await this.refresh();
      const epoch = this.state.committee.epoch;
      if (!query.deletable && !query.force) {
        const certified = await this.certifiedPermanent(encoded.blobIdText);
        if (certified && certified.endEpoch >= epoch + query.epochs) {
          return { alreadyCertified: { blobId: encoded.blobIdText, event: certified.statusEvent, endEpoch: certified.endEpoch } };
        }
      }
      const owned = query.reuseResources ? await this.ownedRegistration(encoded.blobIdText, query, epoch) : undefined;
      const epochsExtended = owned ? epochsToExtend(owned, query, epoch) : 0;
      // walrus.md §10.3 object variant: a certified Blob object the wallet owns, long enough.
      if (owned?.certifiedEpoch != null && epochsExtended === 0) return alreadyCertifiedObjectJson(owned);
      const certify = owned?.certifiedEpoch == null;
      const cost = !owned
        ? (await this.walrus.storageCost(encoded.unencodedLength, query.epochs)).totalCost
        : epochsExtended > 0
          ? (await this.walrus.storageCost(encoded.unencodedLength, epochsExtended)).storageCost
          : 0n;
      const transactions = (owned ? 0 : 1) + (certify ? 1 : 0) + (epochsExtended > 0 ? 1 : 0) + (query.share || query.sendObjectTo ? 1 : 0);
      await this.checkFunds(cost, transactions);
      const need = { wal: cost, sui: GAS_PER_TRANSACTION_MIST * BigInt(transactions) };
      const store = (signer: Signer) => this.storeWith(signer, encoded, query, owned, certify, epochsExtended, cost);
      // a Blob object to reuse is certified and extended by the wallet that owns it
      if (owned?.owner === this.address) return this.pool.withMain(store);
      return this.pool.withWallet(owned?.owner, need, store);
    });
  }

  /** The transactions of a store, all signed by one wallet held alone. No retry: a store that
   * fails after its register transaction must not register (and pay) again. */
  private async storeWith(
    signer: Signer,
    encoded: EncodedBlob,
    query: StoreQuery,
    owned: BlobObject | undefined,
    certify: boolean,
    epochsExtended: number,
    cost: bigint,
  ): Promise<StoreResult> {
    const address = signer.toSuiAddress();
    const objectId = owned
      ? owned.id
      : (
          await this.walrus.executeRegisterBlobTransaction({
            signer,
            size: encoded.unencodedLength,
            epochs: query.epochs,
            blobId: encoded.blobIdText,
            rootHash: encoded.rootHash,
            deletable: query.deletable,
            owner: address,
          })
        ).blob.id;
    // From here on a failure leaves the paid registration on chain, as with the Walrus daemon (walrus.md §15).
    if (certify) await this.writeAndCertify(signer, encoded, query.deletable, objectId);
    if (epochsExtended > 0) await this.walrus.executeExtendBlobTransaction({ signer, blobObjectId: objectId, epochs: epochsExtended });
    // Read before sharing: a shared blob is wrapped in its SharedBlob and no longer readable by id.
    const blobObject = await this.blobObject(objectId, address);
    let sharedBlobObject: string | undefined;
    if (query.share) sharedBlobObject = await this.share(signer, objectId);
    else if (query.sendObjectTo) await this.transfer(signer, objectId, query.sendObjectTo);
    const resourceOperation = owned && reuseOperation(owned, encoded.encodedLength, epochsExtended);
    return newlyCreatedJson({ blobObject, encodedLength: encoded.encodedLength, epochsAhead: query.epochs, cost, sharedBlobObject, resourceOperation });
  }

  /**
   * Writes metadata and slivers to the committee and certifies the registered `objectId` with their
   * confirmations. When too few nodes confirmed, or the epoch has changed meanwhile (the
   * certificate is of the ended epoch: certify_blob aborts), it reads the committee again and
   * writes and certifies anew, without registering again, as the Walrus client retries a store
   * (walrus-sdk node_client.rs retry_if_error_epoch_change; error.rs may_be_caused_by_epoch_change:
   * NotEnoughConfirmations, CertificationFailed).
   */
  private async writeAndCertify(signer: Signer, encoded: EncodedBlob, deletable: boolean, objectId: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const epoch = this.state.committee.epoch;
      try {
        const confirmations = await this.walrus.writeEncodedBlobToNodes({
          blobId: encoded.blobIdText,
          metadata: metadataOf(encoded),
          sliversByNode: this.sliversByNode(encoded),
          ...(deletable ? { deletable: true, objectId } : { deletable: false }),
        });
        await this.walrus.executeCertifyBlobTransaction({ signer, blobId: encoded.blobIdText, blobObjectId: objectId, confirmations, deletable });
        return;
      } catch (e) {
        // a certify whose outcome is unknown is settled by the pool, never sent anew
        if (attempt >= EPOCH_CHANGE_ATTEMPTS || isUnknownOutcome(e)) throw e;
        await this.refresh(true);
        const moved = this.state.committee.epoch !== epoch;
        if (!moved && !(e instanceof NotEnoughBlobConfirmationsError)) throw e;
        this.log(`publisher: ${moved ? `Walrus ${this.name} moved to epoch ${this.state.committee.epoch}` : 'too few confirmations'} during the store of ${encoded.blobIdText}: writing and certifying it again`);
      }
    }
  }

  /** With `reuse_resources=true`: a Blob object of the wallet or its sub-wallets to store with (owned-blob.ts), from the chain. */
  private async ownedRegistration(blobId: string, query: StoreQuery, epoch: number): Promise<BlobObject | undefined> {
    return ownedBlobToReuse(await this.ownedBlobObjects(), blobId, query, epoch);
  }

  /**
   * Inserts or updates `attributes` on the longest-lived certified permanent Blob object of
   * `blobId` the wallet or its sub-wallets own (one transaction, signed by its owner), as the
   * Walrus CLI's `set-blob-attribute` does: blob.move `insert_or_update_metadata_pair` per pair.
   */
  async setBlobAttributes(blobId: string, attributes: Record<string, string>): Promise<void> {
    await this.onChain(async () => {
      await this.refresh();
      const best = longestLivedPermanent((await this.ownedBlobObjects()).filter((o) => o.certifiedEpoch != null), blobId);
      if (!best) throw new WalrusBlobGone(blobId);
      const objectId = best.id;
      const set = async (signer: Signer) => {
        const tx = new Transaction();
        for (const [key, value] of Object.entries(attributes)) {
          tx.moveCall({ target: `${this.state.walrusPackageId}::blob::insert_or_update_metadata_pair`, arguments: [tx.object(objectId), tx.pure.string(key), tx.pure.string(value)] });
        }
        await this.execute(signer, tx, `set the attributes of ${objectId}`);
      };
      if (best.owner === this.address) await this.pool.withMain(set);
      else await this.pool.withWallet(best.owner, { wal: 0n, sui: GAS_PER_TRANSACTION_MIST }, set);
    });
  }

  /** The certified live blobs the wallet and its sub-wallets own, with their attributes (owned-blobs.ts). */
  async ownedBlobs(): Promise<WalrusOwnedBlob[]> {
    return this.onChain(async () => ownedBlobsOf(await this.ownedChain()));
  }

  /** The epochs and the owned Blob objects for one renewal pass, listed once; extensions are signed by each object's owner (owned-blobs.ts). */
  async renewalView(): Promise<WalrusRenewalView> {
    const view = await this.onChain(async () => renewalViewOf(await this.ownedChain()));
    return { ...view, extend: (blobId, epochs) => this.onChain(() => view.extend(blobId, epochs)) };
  }

  private async ownedChain(): Promise<OwnedChain> {
    // the epoch now, not up to STATE_TTL_MS old: a renewal pass or an import is seldom
    await this.refresh(true);
    return {
      walrus: this.walrus,
      epoch: this.state.committee.epoch,
      maxEpochsAhead: this.state.maxEpochsAhead,
      owned: await this.ownedBlobObjects(),
      signedBy: (owner, wal, work) => (owner === this.address ? this.pool.withMain(work) : this.pool.withWallet(owner, { wal, sui: GAS_PER_TRANSACTION_MIST }, work)),
      blobObject: (objectId, owner) => this.blobObject(objectId, owner),
    };
  }

  /** Every Blob object the wallet and its sub-wallets own, from the chain. */
  private async ownedBlobObjects(): Promise<BlobObject[]> {
    const mine: BlobObject[] = [];
    for (const owner of [this.address, ...this.pool.addresses]) {
      let cursor: string | null = null;
      do {
        const page: { objects: { content: Uint8Array }[]; hasNextPage: boolean; cursor: string | null } = await this.sui.core.listOwnedObjects({
          owner,
          type: `${this.state.blobTypeOrigin}::blob::Blob`,
          cursor,
          limit: 50,
          include: { content: true },
        });
        for (const object of page.objects) mine.push(parseBlobObject(object.content, owner));
        cursor = page.hasNextPage ? page.cursor : null;
      } while (cursor);
    }
    return mine;
  }

  async relay(encoded: EncodedBlob, deletableBlobObject: string | undefined): Promise<RelayCertificate> {
    return this.onChain(async () => {
      await this.refresh();
      const deletable = deletableBlobObject ? ({ deletable: true, objectId: deletableBlobObject } as const) : ({ deletable: false } as const);
      // The nodes refuse slivers of a blob not registered on chain; the SDK retries them for a while.
      const confirmations = await this.walrus.writeEncodedBlobToNodes({
        blobId: encoded.blobIdText,
        metadata: metadataOf(encoded),
        sliversByNode: this.sliversByNode(encoded),
        ...deletable,
      });
      const certificate = await this.walrus.certificateFromConfirmations({
        confirmations,
        blobId: encoded.blobIdText,
        deletable: deletableBlobObject !== undefined,
        // ignored for a permanent blob
        blobObjectId: deletableBlobObject ?? '',
      });
      return { signers: certificate.signers, serializedMessage: certificate.serializedMessage, signature: certificate.signature };
    });
  }

  async blobIdOfObject(objectId: string): Promise<string> {
    if (!isObjectId(objectId)) throw new PublisherError('INVALID_OBJECT_ID', `got '${objectId.slice(0, 80)}'`);
    return this.onChain(async () => {
      const { objects } = await this.sui.core.getObjects({ objectIds: [objectId.toLowerCase()], include: { content: true } });
      const object = objects[0];
      if (!object || object instanceof Error) throw new PublisherError('BLOB_NOT_FOUND', `no object ${objectId.toLowerCase()} on ${this.name}`);
      const type = parseStructTag(object.type);
      const { content } = object;
      // Blob's type is defined by the package version that introduced it (the System's type origin,
      // not the latest package_id); SharedBlob came with an upgrade, so its origin is another version.
      if (type.module === 'blob' && type.name === 'Blob' && type.address === this.state.blobTypeOrigin) return parseBlobObject(content, '').blobId;
      // SharedBlob { id, blob: Blob, funds }: the Blob follows the 32-byte id.
      if (type.module === 'shared_blob' && type.name === 'SharedBlob') return parseBlobObject(content.subarray(32), '').blobId;
      throw new PublisherError('BLOB_NOT_FOUND', `${objectId.toLowerCase()} is a ${object.type}, not a Walrus Blob`);
    });
  }

  async close(): Promise<void> {
    this.pool.close();
  }

  /** The committee's slivers for each of its nodes, in committee order, from the native encoding. */
  private sliversByNode(encoded: EncodedBlob): SliversForNode[] {
    const n = this.nShards;
    return this.state.committee.nodes.map((node) => {
      const out: SliversForNode = { primary: [], secondary: [] };
      for (const shardIndex of node.shards) {
        const sliverPairIndex = shardToPair(shardIndex, encoded.blobId, n);
        const pair = encoded.sliverPair(sliverPairIndex);
        // the SDK sends them with fetch: views of the codec's shared memory are copied out
        out.primary.push({ sliverIndex: sliverPairIndex, sliverPairIndex, shardIndex, sliver: unshared(pair.primary) });
        // the SDK's encodeBlob lists a secondary sliver under its pair index too
        out.secondary.push({ sliverIndex: sliverPairIndex, sliverPairIndex, shardIndex, sliver: unshared(pair.secondary) });
      }
      return out;
    });
  }

  /** A certified permanent status the nodes agree on, or undefined. */
  private async certifiedPermanent(blobId: string): Promise<{ endEpoch: number; statusEvent: { txDigest: string; eventSeq: string } } | undefined> {
    let status;
    try {
      status = await this.walrus.getVerifiedBlobStatus({ blobId });
    } catch (e) {
      // nonexistent on a quorum, or no verified answer (nodes down): store it
      if (e instanceof RetryableWalrusClientError || e instanceof NoVerifiedBlobStatusReceivedError || e instanceof NoBlobStatusReceivedError) return undefined;
      throw e;
    }
    if (status.type !== 'permanent' || !status.isCertified) return undefined;
    return { endEpoch: status.endEpoch, statusEvent: { txDigest: status.statusEvent.txDigest, eventSeq: String(status.statusEvent.eventSeq) } };
  }

  private async checkFunds(cost: bigint, transactions: number): Promise<void> {
    const { wal, sui } = await this.balances();
    if (wal < cost) throw new PublisherError('INSUFFICIENT_WAL', `wallet ${this.address} holds ${wal} FROST, this blob costs ${cost}`);
    // and one transaction to fund the sub-wallet
    const gas = GAS_PER_TRANSACTION_MIST * BigInt(transactions + 1);
    if (sui < gas) throw new PublisherError('INSUFFICIENT_GAS', `wallet ${this.address} holds ${sui} MIST, ${transactions} transactions need ${gas}`);
  }

  private async blobObject(objectId: string, owner: string): Promise<BlobObject> {
    const { object } = await this.sui.core.getObject({ objectId, include: { content: true } });
    return parseBlobObject(object.content, owner);
  }

  /** walrus shared_blob::new wraps the Blob in a shared SharedBlob anyone can extend. */
  private async share(signer: Signer, objectId: string): Promise<string> {
    const tx = new Transaction();
    tx.moveCall({ target: `${this.state.walrusPackageId}::shared_blob::new`, arguments: [tx.object(objectId)] });
    const { effects } = await this.execute(signer, tx, 'share the blob');
    const created = effects.changedObjects.filter((o) => o.idOperation === 'Created').map((o) => o.objectId);
    const { objects } = await this.sui.core.getObjects({ objectIds: created });
    const shared = objects.find((o) => !(o instanceof Error) && o.type.endsWith('::shared_blob::SharedBlob'));
    if (!shared || shared instanceof Error) throw new Error(`sharing ${objectId} created no SharedBlob`);
    return shared.objectId;
  }

  private async transfer(signer: Signer, objectId: string, to: string): Promise<void> {
    const tx = new Transaction();
    tx.transferObjects([tx.object(objectId)], to);
    await this.execute(signer, tx, `send the blob object to ${to}`);
  }

  private async execute(signer: Signer, tx: Transaction, action: string) {
    tx.setSenderIfNotSet(signer.toSuiAddress());
    const result = await signer.signAndExecuteTransaction({ transaction: tx, client: this.sui });
    if (result.$kind === 'FailedTransaction') throw new Error(`failed to ${action} (${result.FailedTransaction.digest}): ${result.FailedTransaction.status.error?.message}`);
    await this.sui.core.waitForTransaction({ digest: result.Transaction.digest });
    return result.Transaction;
  }

  /** Reads the committee and the system state again once they are STATE_TTL_MS old (epochs change), or now when `force`. */
  private async refresh(force = false): Promise<void> {
    if (!force && Date.now() - this.state.loadedAt < STATE_TTL_MS) return;
    this.walrus.reset();
    const next = await loadState(this.walrus, this.sui);
    if (next.committee.epoch !== this.state.committee.epoch) this.log(`publisher: Walrus ${this.name} is at epoch ${next.committee.epoch}`);
    this.state = next;
  }

  /** Runs `work` and maps the SDK's and the network's failures to the publisher's errors. No retry:
   * a store that fails after its register transaction must not register (and pay) again. */
  private async onChain<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (e instanceof NotEnoughBlobConfirmationsError) throw new PublisherError('INSUFFICIENT_CONFIRMATIONS', e.message);
      if (isUnknownOutcome(e)) throw new PublisherError('CHAIN_UNAVAILABLE', (e as Error).message);
      throw e;
    }
  }

}

/** The SDK uploads BlobMetadata (without the id prefix of BlobMetadataWithId). */
function metadataOf(encoded: EncodedBlob): Uint8Array {
  return encoded.metadataBcs.subarray(32);
}

