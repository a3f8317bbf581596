// The one interface the publisher and the aggregator use for a storage node, whether it runs in this
// process (local-node.ts) or elsewhere (http-client.ts). Failures are StorageNodeError (errors.ts).

export type SliverAxis = 'primary' | 'secondary';

/** Blob persistence as the confirmation message encodes it (walrus.md §12.2). */
export type BlobType = { kind: 'permanent' } | { kind: 'deletable'; objectId: string /* 0x + 64 hex */ };

export interface NodeInfo {
  nodeId: string;
  /** Ed25519 public key, raw 32 bytes, base64 */
  publicKey: string;
  /** shards this node holds, ascending */
  shards: number[];
  nShards: number;
}

export interface NodeHealth extends NodeInfo {
  status: 'ready';
  /** seconds since the node opened */
  uptimeSecs: number;
}

/** A node's signature over the BCS confirmation message (walrus.md §12.2 `signed`). */
export interface SignedConfirmation {
  /** base64 of the BCS message that was signed */
  serializedMessage: string;
  /** base64 of the 64-byte Ed25519 signature */
  signature: string;
}

/** 'stored' → HTTP 201, 'already-stored' → HTTP 200 (walrus.md §12.2). */
export type PutOutcome = 'stored' | 'already-stored';

/** Both slivers of one pair, as a node's whole-share upload carries them. */
export interface IndexedSliverPair {
  pairIndex: number;
  primary: Buffer;
  secondary: Buffer;
}

export interface StorageNodeClient {
  info(): Promise<NodeInfo>;
  health(): Promise<NodeHealth>;
  /** Checks and stores BCS BlobMetadataWithId (walrus.md §8.2) for `blobId`. */
  putMetadata(blobId: Buffer, metadataBcs: Buffer): Promise<PutOutcome>;
  getMetadata(blobId: Buffer): Promise<Buffer | undefined>;
  /** Checks and stores one BCS SliverData (walrus.md §8.1); refuses pairs whose shard the node does not hold. */
  putSliver(blobId: Buffer, pairIndex: number, axis: SliverAxis, sliverBcs: Buffer): Promise<PutOutcome>;
  getSliver(blobId: Buffer, pairIndex: number, axis: SliverAxis): Promise<Buffer | undefined>;
  /** Optional: several slivers of this node's pairs in one read (an in-process node: one range of its bundle); the ones it lacks are left out. */
  getSlivers?(blobId: Buffer, pairIndexes: readonly number[], axis: SliverAxis): Promise<Map<number, Buffer>>;
  /**
   * Optional: checks and stores the metadata and both slivers of the pair of every shard this node
   * holds, all at once (an in-process node writes them as one record). 'already-stored' when the
   * node already holds its share.
   */
  putShare?(blobId: Buffer, metadataBcs: Buffer, pairs: readonly IndexedSliverPair[]): Promise<PutOutcome>;
  /** Signs only once every shard of this node holds both slivers of its pair (else NOT_FULLY_STORED). */
  getConfirmation(blobId: Buffer, blobType: BlobType, epoch: number): Promise<SignedConfirmation>;
  /** Reclaims everything stored for the blob; resolves to the number of stored items removed. */
  deleteBlob(blobId: Buffer): Promise<number>;
  /** Releases the client (a local node closes its storage engine). */
  close(): Promise<void>;
}
