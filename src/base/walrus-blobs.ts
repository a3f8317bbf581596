// The port between the S3 face and a Walrus network (storage class WALRUS, src/s3/walrus-objects.ts):
// the S3 face stores and reads blobs through it without knowing the publisher, its sibling layer;
// the composition root (main.ts, and threads/ for front-end threads) hands it the publisher's.

/** Reading blobs: every thread that serves S3 reads (front-end threads too). */
export interface WalrusBlobReads {
  /** Bytes [start, end) of a blob. */
  read(blobId: string, start: number, end: number): Promise<Buffer>;
}

/** Storing blobs as well: the writer thread. */
export interface WalrusBlobs extends WalrusBlobReads {
  /** the largest blob an object's bytes are split into */
  readonly maxBlobSize: number;
  /** Stores one blob; resolves with its id (base64url) once it is certified. */
  store(data: Buffer): Promise<string>;
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
