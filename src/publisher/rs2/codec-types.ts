// The publisher's view of the RS2 code (walrus.md §2–8): encode a blob into slivers and metadata,
// compute its blob id, rebuild it from primary slivers, and check what storage nodes receive.
// Implemented over the native module, in the worker pool for large inputs.

import type { ConsistencyCheck } from './rs2-native.js';

export interface BlobIdInfo {
  /** 32 bytes */
  blobId: Buffer;
  /** base64url without padding, 43 characters (walrus.md §7.5) */
  blobIdText: string;
  rootHash: Buffer;
  unencodedLength: number;
  /** walrus.md §9.1: the `encodedLength` / `storageSize` the ledger charges */
  encodedLength: number;
  symbolSize: number;
  nShards: number;
}

export interface EncodedBlob extends BlobIdInfo {
  /** BCS BlobMetadataWithId (walrus.md §8.2) */
  metadataBcs: Buffer;
  /** BCS SliverData of pair p: primary sliver p and secondary sliver n−1−p (walrus.md §4, §8.1) */
  sliverPair(pair: number): { primary: Buffer; secondary: Buffer };
  /**
   * Gives the slivers' memory back to the codec for a later encode. Only once nothing reads any
   * sliver view any more (every upload settled); afterwards sliverPair throws. Never calling it is
   * safe: the memory is then collected as usual.
   */
  release(): void;
}

export interface BlobCodec {
  /** Throws a DataTooLarge error (walrus.md §2) when the blob cannot be encoded for nShards. */
  encode(data: Buffer, nShards: number): Promise<EncodedBlob>;
  blobId(data: Buffer, nShards: number): Promise<BlobIdInfo>;
  /**
   * Rebuilds the blob from at least n_primary primary slivers (BCS SliverData by pair index),
   * checks what it rebuilt against the metadata as `check` says (default: each systematic primary
   * sliver against its hash; rs2-native.ts ConsistencyCheck), and returns the bytes.
   */
  decode(metadataBcs: Buffer, primarySlivers: ReadonlyMap<number, Buffer>, nShards: number, check?: ConsistencyCheck): Promise<Buffer>;
  /** Metadata is well-formed and its hashes give its blob id (walrus.md §7.4–7.5, §8.2). */
  verifyMetadata(metadataBcs: Buffer, nShards: number): Promise<boolean>;
  /** A sliver's Merkle root over its other-code expansion equals the metadata's hash (walrus.md §7.2). */
  verifySliver(metadataBcs: Buffer, pairIndex: number, axis: 'primary' | 'secondary', sliverBcs: Buffer): Promise<boolean>;
  /** tasks waiting for a worker thread (metrics); undefined when the codec has no pool */
  readonly queued?: number;
  close(): Promise<void>;
}
