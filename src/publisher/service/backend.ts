// What the publisher's handlers need from a storage network, whichever it is: the embedded one
// (Tusk's ledger and storage nodes, embedded-backend.ts) or Walrus on Sui (walrus/walrus-backend.ts).
// The handlers encode and check; a backend pays, stores, certifies and serves slivers back.

import type { EncodedBlob } from '../rs2/codec-types.js';
import type { AlreadyCertifiedJson, Ledger, NewlyCreatedJson } from '../ledger/index.js';
import type { StorageNetwork } from '../nodes/network.js';
import type { StoreQuery } from './store-query.js';
import type { WalrusOwnedBlob, WalrusRenewalView } from '../../base/walrus-blobs.js';

export type StoreResult = NewlyCreatedJson | AlreadyCertifiedJson;

/** The aggregator's reads: verified metadata and primary slivers by pair index. */
export type SliverSource = Pick<StorageNetwork, 'getMetadata' | 'readPrimarySlivers' | 'readPrimarySliver'>;

/** A storage confirmation certificate over one blob, as the upload relay answers it. */
export interface RelayCertificate {
  /** committee member indices, ascending */
  signers: number[];
  serializedMessage: Uint8Array;
  signature: Uint8Array;
}

export interface BlobBackend {
  /** 'embedded', 'testnet', 'mainnet' or a configuration's context name */
  readonly name: string;
  readonly nShards: number;
  /** the longest storage a store may ask for, in epochs */
  readonly maxEpochsAhead: number;
  readonly slivers: SliverSource;
  /** Tusk's own ledger (its routes and the reclaimer); undefined on Walrus */
  readonly ledger?: Ledger;
  /** `alreadyCertified` when it may be, else register, pay, upload, certify (walrus.md §10.6). */
  publish(encoded: EncodedBlob, query: StoreQuery): Promise<StoreResult>;
  /** Upload relay: store a blob the client registered and answer the nodes' certificate (walrus.md §10). */
  relay(encoded: EncodedBlob, deletableBlobObject: string | undefined): Promise<RelayCertificate>;
  /** The blob id of a live Blob or SharedBlob object (`/v1/blobs/by-object-id/{id}`). */
  blobIdOfObject(objectId: string): Promise<string>;
  /**
   * Walrus blob attributes (the Blob object's `metadata` pairs) on the wallet's certified
   * permanent Blob object of `blobId`, on a Walrus network (the embedded ledger sets them itself);
   * throws WalrusBlobGone when the wallet owns none.
   */
  setBlobAttributes?(blobId: string, attributes: Record<string, string>): Promise<void>;
  /** The wallet's certified live blobs with their attributes, on a Walrus network (base/walrus-blobs.ts `ownedBlobs`). */
  ownedBlobs?(): Promise<WalrusOwnedBlob[]>;
  /** The epochs and the wallet's blobs' terms for one renewal pass, on a Walrus network (base/walrus-blobs.ts `renewalView`). */
  renewalView?(): Promise<WalrusRenewalView>;
  close(): Promise<void>;
}
