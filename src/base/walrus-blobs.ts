// The port between the S3 face and a Walrus network (storage class WALRUS, src/s3/walrus-objects.ts):
// the S3 face stores and reads blobs through it without knowing the publisher, its sibling layer;
// the composition root (main.ts, and threads/ for front-end threads) hands it the publisher's.

/** Reading blobs: every thread that serves S3 reads (front-end threads too). */
export interface WalrusBlobReads {
  /** Bytes [start, end) of a blob. */
  read(blobId: string, start: number, end: number): Promise<Buffer>;
  /** Bytes [start, end) of a quilt patch (walrus.md §10.1), named by its patch id. */
  readPatch(patchId: string, start: number, end: number): Promise<Buffer>;
}

/** Where a small object's bytes went: a patch of a quilt shared with other objects. */
export interface WalrusPatchRef {
  /** the quilt's blob id */
  quiltId: string;
  /** the patch's quilt patch id (unpadded base64url, walrus.md §10.1) */
  patchId: string;
}

/** Storing blobs as well: the writer thread. */
export interface WalrusBlobs extends WalrusBlobReads {
  /** the largest blob an object's bytes are split into */
  readonly maxBlobSize: number;
  /** Stores one blob; resolves with its id (base64url) once it is certified. */
  store(data: Buffer): Promise<string>;
  /** objects of at most this many bytes are batched into quilts through `storePatch` */
  readonly patchMaxSize: number;
  /**
   * Stores `data` as one patch of a quilt gathered with the patches of other writes close in time;
   * resolves once the quilt is certified. `identifier` names the patch in the quilt, `tags` are
   * the patch's Walrus tags.
   */
  storePatch(identifier: string, data: Buffer, tags: Record<string, string>): Promise<WalrusPatchRef>;
  /**
   * The patches of those of `blobIds` that are quilts, with their tags and sizes (`tusk admin
   * buckets walrus-import`); other blobs, and blobs gone, are skipped. Each is read whole.
   */
  quiltPatches(blobIds: Iterable<string>): AsyncIterable<WalrusStoredPatch>;
  /**
   * Inserts or updates attributes (Walrus's blob `metadata` pairs) on the wallet's Blob object of
   * `blobId` (the longest-lived certified one); absent where they cannot be set from here.
   */
  setAttributes?(blobId: string, attributes: Record<string, string>): Promise<void>;
  /**
   * The wallet's (and its sub-wallets') certified live blobs, each blob id once, with the
   * attributes of its Blob object that has some (`{}` where none has): `tusk admin buckets
   * walrus-import`. Absent where they cannot be listed from here.
   */
  ownedBlobs?(): Promise<WalrusOwnedBlob[]>;
  /**
   * The network's epochs and the terms of the wallet's blobs, read once (one renewal pass,
   * s3/walrus-renewal.ts); absent where blobs cannot be extended from here.
   */
  renewalView?(): Promise<WalrusRenewalView>;
}

/** What one renewal pass sees: read once, extended through. */
export interface WalrusRenewalView {
  /** the current epoch */
  current: number;
  /** the longest storage the network sells, in epochs */
  maxAhead: number;
  /** When a blob's storage ends (the longest-lived certified permanent Blob object of that id the wallet owns), and what one more epoch of it costs (FROST); undefined when the wallet owns none live. */
  term(blobId: string): WalrusBlobTerm | undefined;
  /** Extends that Blob object by `epochs` epochs, paying for them (signed by its owner). */
  extend(blobId: string, epochs: number): Promise<WalrusBlobTerm & { cost: bigint }>;
}

export interface WalrusBlobTerm {
  /** the first epoch the blob is no longer stored */
  endEpoch: number;
  /** FROST */
  costPerEpoch: bigint;
}

export interface WalrusStoredPatch extends WalrusPatchRef {
  tags: Record<string, string>;
  size: number;
}

export interface WalrusOwnedBlob {
  blobId: string;
  size: number;
  attributes: Record<string, string>;
}

/** A read's failure: the network has no such blob (it lapsed at its end epoch, or was deleted). */
export class WalrusBlobGone extends Error {
  constructor(readonly blobId: string) {
    super(`blob ${blobId} is not on the network`);
    this.name = 'WalrusBlobGone';
  }
}

/** A read's failure: too few storage nodes answer now (a retry may succeed). */
export class WalrusBlobUnavailable extends Error {
  constructor(readonly blobId: string, detail: string) {
    super(`blob ${blobId} cannot be read now: ${detail}`);
    this.name = 'WalrusBlobUnavailable';
  }
}
