// Objects of storage class WALRUS (issue #34): their bytes live as blobs on the Walrus network the
// publisher is configured with, split below its largest blob; Tusk's index keeps the rest (key,
// version, metadata, ETag, checksums) and, in the object's attrs, the blobs and their byte offsets.
// The S3 face only knows the narrow port of base/walrus-blobs.ts; main.ts gives it the publisher's.

import { WalrusBlobGone, WalrusBlobUnavailable, type WalrusBlobReads, type WalrusBlobs } from '../base/walrus-blobs.js';
import type { BodyReader, Part } from '../store/types.js';
import type { S3Services } from './context.js';
import type { S3ObjectAttrs } from './object-attrs.js';
import { S3Error } from './errors/errors.js';
import { objectDamaged } from './store-errors.js';

export const WALRUS_STORAGE_CLASS = 'WALRUS';
/** Names the blob(s) holding a WALRUS object, comma-separated in byte order (README "S3 objects on Walrus"). */
export const WALRUS_BLOB_ID_HEADER = 'x-tusk-walrus-blob-id';
/** Names the quilt patch holding a small WALRUS object (its blob id is then the quilt's). */
export const WALRUS_PATCH_ID_HEADER = 'x-tusk-walrus-patch-id';
/**
 * The Walrus tags of an object's patch, and the attributes of each blob of a larger object: what
 * `tusk admin buckets walrus-import` rebuilds the index entry from (s3/walrus-import.ts). The last
 * three are a blob's only: the object's size, and the blob's place among its blobs.
 */
export const WALRUS_TAG = {
  bucket: 'tusk-bucket',
  key: 'tusk-key',
  contentType: 'content-type',
  etag: 'tusk-etag',
  checksum: 'tusk-checksum',
  lastModified: 'tusk-last-modified',
  size: 'tusk-size',
  blobIndex: 'tusk-blob-index',
  blobOffset: 'tusk-blob-offset',
} as const;
/** Bytes fetched from a blob per read (at most one blob: 10 MiB by default): a range reads only the slivers it covers. */
const READ_PIECE = 16 * 1024 * 1024;

/** One blob of a WALRUS object: its id and where its bytes sit in the object. */
export interface WalrusBlobRef {
  blobId: string;
  offset: number;
  length: number;
  /** a small object's bytes are this patch of the quilt `blobId` (the ref is then the only one) */
  patchId?: string;
}

/** Where a WALRUS object's bytes are (S3ObjectAttrs.walrus): the engine stores no body for it. */
export interface WalrusLocation {
  size: number;
  blobs: WalrusBlobRef[];
}

/** The pieces of the blobs that bytes [start, end) of the object cover, in order, each as a range within its blob. */
export function blobsCovering(blobs: readonly WalrusBlobRef[], start: number, end: number): Array<{ blobId: string; patchId?: string; from: number; to: number }> {
  const out: Array<{ blobId: string; patchId?: string; from: number; to: number }> = [];
  for (const b of blobs) {
    const from = Math.max(start, b.offset);
    const to = Math.min(end, b.offset + b.length);
    if (from < to) out.push({ blobId: b.blobId, ...(b.patchId ? { patchId: b.patchId } : {}), from: from - b.offset, to: to - b.offset });
  }
  return out;
}

/** What an object's patch is named by in its quilt, and tagged with (README "S3 objects on Walrus"). */
export interface WalrusPatchLabel {
  identifier: string;
  tags: Record<string, string>;
}

/** The label of the patch of `key` in `bucket`: the object's facts known before its commit (not its version id). */
export function walrusPatchLabel(bucket: string, key: string, attrs: S3ObjectAttrs, etag: string, lastModified: number): WalrusPatchLabel {
  const tags: Record<string, string> = {
    [WALRUS_TAG.bucket]: bucket,
    [WALRUS_TAG.key]: key,
    [WALRUS_TAG.contentType]: attrs.contentType,
    [WALRUS_TAG.etag]: etag,
    [WALRUS_TAG.lastModified]: String(lastModified),
  };
  if (attrs.checksum) tags[WALRUS_TAG.checksum] = `${attrs.checksum.algorithm}:${attrs.checksum.type}:${attrs.checksum.value}`;
  return { identifier: `${bucket}/${key}`, tags };
}

/** The attributes of blob `index` (at byte `offset`) of an object of `size` bytes labelled `label`. */
export function walrusBlobAttributes(label: WalrusPatchLabel, size: number, index: number, offset: number): Record<string, string> {
  return { ...label.tags, [WALRUS_TAG.size]: String(size), [WALRUS_TAG.blobIndex]: String(index), [WALRUS_TAG.blobOffset]: String(offset) };
}

/**
 * A body sink (receiveBody's writer) that cuts the bytes into blobs of `maxBlobSize` and stores
 * each once it is full, one at a time; `finish` stores the last and answers where everything is.
 * A write that fills a blob resolves once it is stored, which holds the request body back.
 * An object of at most `patchMaxSize` bytes becomes one patch of a quilt shared with the other
 * small objects written close in time (issue #34: one blob each would pay a blob's cost each).
 */
export class WalrusBlobSink {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private offset = 0;
  private readonly blobs: WalrusBlobRef[] = [];
  private stored: Promise<void> = Promise.resolve();

  constructor(private readonly network: WalrusBlobs) {}

  write(chunk: Buffer): Promise<void> {
    const max = this.network.maxBlobSize;
    let rest = chunk;
    while (this.buffered + rest.length >= max) {
      const take = max - this.buffered;
      this.chunks.push(rest.subarray(0, take));
      this.buffered += take;
      rest = rest.subarray(take);
      this.flush();
    }
    if (rest.length > 0) {
      this.chunks.push(rest);
      this.buffered += rest.length;
    }
    return this.stored;
  }

  /**
   * With a label, a small object becomes a patch tagged with it (unless `asPatch` is false), and
   * each blob of a larger one carries it as blob attributes, with the object's size and the blob's index and offset, set
   * before this resolves (so before the PUT is answered), where the network lets them be set.
   */
  async finish(label?: WalrusPatchLabel, asPatch = true): Promise<WalrusLocation> {
    if (label && asPatch && this.offset === 0 && this.buffered > 0 && this.buffered <= this.network.patchMaxSize) {
      const data = Buffer.concat(this.chunks, this.buffered);
      const patch = await this.network.storePatch(label.identifier, data, label.tags);
      return { size: data.length, blobs: [{ blobId: patch.quiltId, offset: 0, length: data.length, patchId: patch.patchId }] };
    }
    if (this.buffered > 0) this.flush();
    await this.stored;
    const location = { size: this.offset, blobs: this.blobs };
    const network = this.network;
    if (label && network.setAttributes) {
      for (const [i, b] of location.blobs.entries()) await network.setAttributes(b.blobId, walrusBlobAttributes(label, location.size, i, b.offset));
    }
    return location;
  }

  private flush(): void {
    const data = Buffer.concat(this.chunks, this.buffered);
    const ref = { blobId: '', offset: this.offset, length: data.length };
    this.blobs.push(ref);
    this.offset += data.length;
    this.chunks = [];
    this.buffered = 0;
    this.stored = this.stored.then(async () => {
      ref.blobId = await this.network.store(data);
    });
  }
}

/** A blob's bytes, its failures as S3 errors: a blob gone from the network is the object's bytes lost. */
async function readBlob(network: WalrusBlobReads, key: string, piece: { blobId: string; patchId?: string }, start: number, end: number): Promise<Buffer> {
  try {
    return await (piece.patchId ? network.readPatch(piece.patchId, start, end) : network.read(piece.blobId, start, end));
  } catch (e) {
    if (e instanceof WalrusBlobGone) throw objectDamaged(key);
    if (e instanceof WalrusBlobUnavailable) throw new S3Error('ServiceUnavailable', {}, { message: e.message });
    throw e;
  }
}

/**
 * Bytes [start, end) of a WALRUS object, blob piece by blob piece: only the blobs the range covers
 * are read, and the next piece is fetched while the one before goes to the client (a piece is a
 * whole blob when the range covers it: one decode instead of a check per row of slivers).
 */
export function openWalrusRead(network: WalrusBlobReads, key: string, location: WalrusLocation, start: number, end: number): BodyReader {
  const pieces = blobsCovering(location.blobs, start, end);
  let closed = false;
  let pending: Buffer | undefined;
  let next: Promise<Buffer> | undefined;
  const fetchNext = (): Promise<Buffer> | undefined => {
    const piece = pieces[0];
    if (!piece) return undefined;
    const from = piece.from;
    const to = Math.min(piece.to, from + READ_PIECE);
    piece.from = to;
    if (piece.from === piece.to) pieces.shift();
    const read = readBlob(network, key, piece, from, to).then((bytes) => {
      if (bytes.length !== to - from) throw new Error(`blob ${piece.blobId}: read ${bytes.length} bytes of ${to - from}`);
      return bytes;
    });
    // a read ahead the client never asks for (it went away) fails unobserved
    read.catch(() => {});
    return read;
  };
  return {
    async read(maxBytes: number): Promise<Buffer | null> {
      if (closed) return null;
      if (!pending || pending.length === 0) {
        const current = next ?? fetchNext();
        if (!current) return null;
        pending = await current;
        next = closed ? undefined : fetchNext();
      }
      const out = pending.subarray(0, maxBytes);
      pending = pending.subarray(out.length);
      return out;
    },
    close(): void {
      closed = true;
      pending = undefined;
      next = undefined;
    },
  };
}

/** What HEAD, GET and a WALRUS write answer about where the bytes are (none for other objects). */
export function walrusHeaders(record: { attrs: { walrus?: WalrusLocation } }): Array<readonly [string, string]> {
  const w = record.attrs.walrus;
  if (!w || w.blobs.length === 0) return [];
  const out: Array<readonly [string, string]> = [[WALRUS_BLOB_ID_HEADER, w.blobs.map((b) => b.blobId).join(',')]];
  const patch = w.blobs[0]!.patchId;
  if (patch) out.push([WALRUS_PATCH_ID_HEADER, patch]);
  return out;
}

/** Bytes read from a part per step when an upload's parts become blobs. */
const PART_READ = 1024 * 1024;

/**
 * The parts of a multipart upload to storage class WALRUS, in order, stored as blobs (each certified)
 * and their location: the parts are uploaded to the engine as any other, and moved at Complete.
 */
export async function storePartsAsBlobs(services: S3Services, parts: ReadonlyArray<Part<unknown>>, label: WalrusPatchLabel): Promise<WalrusLocation> {
  const sink = new WalrusBlobSink(services.walrus!);
  for (const part of parts) {
    const reader = services.store.openRead(part, 0, part.size);
    try {
      for (let chunk = await reader.read(PART_READ); chunk; chunk = await reader.read(PART_READ)) {
        // the reader reuses its buffer: the sink keeps what it is given
        await sink.write(Buffer.from(chunk));
      }
    } finally {
      reader.close();
    }
  }
  return sink.finish(label);
}
