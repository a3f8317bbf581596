// The publisher's RS2 codec (codec-types.ts) over the native module. Anything that takes more than
// a fraction of a millisecond runs in a piscina pool of worker threads (src/publisher/rs2/rs2-worker.ts),
// so the event loop never encodes, hashes or decodes a large blob. Inputs go to a worker in a
// buffer of their own that is transferred, and results come back transferred, so each byte is
// copied at most once on this thread. Encodes work in shared buffers of the codec's pool instead
// (buffer-pool.ts), reused once the caller releases the encoding.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

import { Piscina } from 'piscina';
import { keepLargeAllocations } from '../../native/process.js';

import { SharedBufferPool } from './buffer-pool.js';
import { metadataLength, ulebLength } from '../nodes/bcs.js';
import { encodingParams, sliverDataLength, symbolSize } from '../nodes/encoding-params.js';

import type { BlobCodec, BlobIdInfo, EncodedBlob } from './codec-types.js';
import { asBuffer, blobIdInfo, encodedBlob } from './encoded-blob.js';
import {
  Rs2Error,
  rs2BlobId,
  rs2Decode,
  rs2Encode,
  rs2MetadataProblem,
  rs2SliverProblem,
  type ConsistencyCheck,
  type NativeEncoding,
  type SliverAxis,
} from './rs2-native.js';
import type { DecodeTask, EncodeTask, Rs2TaskName, TaskOutcome } from './rs2-tasks.js';

/** Blobs up to this size at up to INLINE_MAX_SHARDS shards are encoded on the calling thread (< 0.5 ms). */
export const INLINE_MAX_BYTES = 64 * 1024;
export const INLINE_MAX_SHARDS = 32;
/** Metadata up to this size (n ≤ ~1200) is verified inline: O(n) hashes, ~0.3 ms at n = 1000. */
const INLINE_MAX_METADATA_BYTES = 80_000;

const BLOB_ID_BYTES = 32;
/** BlobMetadataWithId: blob id, version, encoding type, then u64 unencoded length (walrus.md §8.2). */
const UNENCODED_LENGTH_OFFSET = BLOB_ID_BYTES + 2;

export interface BlobCodecOptions {
  /** worker threads; default: the number of cores */
  threads?: number;
  /**
   * Workers start at the first task that needs one and end after a minute without work, and
   * nothing is run at open (for a codec beside another that checked the worker at start-up: a
   * front-end thread's, whose small reads may never need one).
   */
  lazy?: boolean;
}

/** A lazy codec's idle worker ends after this long. */
const LAZY_IDLE_MS = 60_000;

/**
 * The worker module. tsc compiles it to dist/publisher/rs2/rs2-worker.js beside dist/publisher/rs2/codec.js;
 * worker threads cannot load TypeScript, so when this file runs from src/ (vitest) the pool uses
 * the compiled worker in dist/, which `npm test` builds first (scripts/setup.mjs).
 */
export function workerFile(): string {
  const here = import.meta.url;
  const url = here.endsWith('.ts') ? new URL('../../../dist/publisher/rs2/rs2-worker.js', here) : new URL('./rs2-worker.js', here);
  const path = fileURLToPath(url);
  if (!existsSync(path)) throw new Error(`RS2 worker ${path} is missing: build with \`npm run build\``);
  return url.href;
}

/** A copy of `bytes` in an ArrayBuffer of its own, to transfer (a SharedArrayBuffer is shared as is). */
function ownCopy(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}

function transferables(...views: Uint8Array[]): ArrayBuffer[] {
  return views.flatMap((v) => (v.buffer instanceof ArrayBuffer ? [v.buffer] : []));
}

/**
 * The same memory in a new ArrayBuffer, the received one detached (no copy). Piscina keeps the
 * message of a worker's last task reachable until that worker runs another, and with it the
 * result's buffer: ~300 MB of slivers for a 64 MiB blob at n = 1000.
 */
function reclaim(buffer: ArrayBuffer): ArrayBuffer {
  return structuredClone(buffer, { transfer: [buffer] });
}

function unwrap<T>(outcome: TaskOutcome<T>): T {
  if (outcome.ok) return outcome.value;
  if (outcome.code) throw new Rs2Error(outcome.code, outcome.message);
  throw new Error(outcome.message);
}

/** The bytes of a blob's encoding (metadata, then n primary and n secondary sliver BCS), or undefined when it cannot be encoded. */
export function encodedByteLength(length: number, nShards: number): number | undefined {
  if (!Number.isInteger(nShards) || nShards < 4 || nShards > 65_535) return undefined;
  const params = encodingParams(nShards);
  const symbol = symbolSize(length, params);
  if (symbol === undefined) return undefined;
  const bcs = (dataLength: number) => ulebLength(dataLength) + dataLength + 4;
  return metadataLength(nShards) + nShards * (bcs(sliverDataLength('primary', symbol, params)) + bcs(sliverDataLength('secondary', symbol, params)));
}

function isSmallBlob(length: number, nShards: number): boolean {
  return length <= INLINE_MAX_BYTES && nShards <= INLINE_MAX_SHARDS;
}

function primaryCount(nShards: number): number {
  return nShards - 2 * Math.floor((nShards - 1) / 3);
}

export class NativeBlobCodec implements BlobCodec {
  readonly threads: number;
  readonly #pool: Piscina;
  /** memory of large encodes, reused (buffer-pool.ts) */
  readonly #buffers = new SharedBufferPool();
  #closed = false;

  private constructor(pool: Piscina, threads: number) {
    this.#pool = pool;
    this.threads = threads;
  }

  get queued(): number {
    return this.#pool.queueSize;
  }

  static async open(options: BlobCodecOptions = {}): Promise<NativeBlobCodec> {
    const threads = options.threads ?? availableParallelism();
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
    // each encode's slivers reuse the memory of the blob before rather than fresh pages (native/process.ts)
    keepLargeAllocations();
    const lazy = options.lazy === true;
    const pool = new Piscina({ filename: workerFile(), minThreads: lazy ? 0 : threads, maxThreads: threads, idleTimeout: lazy ? LAZY_IDLE_MS : Infinity });
    const codec = new NativeBlobCodec(pool, threads);
    if (lazy) return codec;
    try {
      // Loads the worker and the native module now, so a broken build fails at start-up.
      await codec.#run('verifyMetadata', { metadataBcs: new Uint8Array(0) });
    } catch (e) {
      await pool.destroy();
      throw e;
    }
    return codec;
  }

  async #run<T>(name: Rs2TaskName, task: object, transferList: ArrayBuffer[] = []): Promise<T> {
    if (this.#closed) throw new Error('the blob codec is closed');
    return unwrap((await this.#pool.run(task, { name, transferList })) as TaskOutcome<T>);
  }

  async blobId(data: Buffer, nShards: number): Promise<BlobIdInfo> {
    if (isSmallBlob(data.length, nShards)) return blobIdInfo(rs2BlobId(data, nShards));
    const own = ownCopy(data);
    return blobIdInfo(await this.#run('blobId', { data: own, nShards }, transferables(own)));
  }

  /**
   * The blob's encoding in memory of the codec's pool: the input's copy comes back to the pool at
   * once, the encoding's own memory when the caller releases the result (EncodedBlob.release).
   */
  async encode(data: Buffer, nShards: number): Promise<EncodedBlob> {
    if (isSmallBlob(data.length, nShards)) return encodedBlob(rs2Encode(data, nShards));
    const size = encodedByteLength(data.length, nShards);
    if (size === undefined) {
      // not encodable: the worker throws the native error (DATA_TOO_LARGE, INVALID_SHARD_COUNT)
      const own = ownCopy(data);
      const native = await this.#run<NativeEncoding>('encode', { data: own, nShards }, transferables(own));
      return encodedBlob({ ...native, bytes: reclaim(native.bytes as ArrayBuffer) });
    }
    const fromPool = !(data.buffer instanceof SharedArrayBuffer);
    const input = fromPool ? new Uint8Array(this.#buffers.take(data.length), 0, data.length) : data;
    if (fromPool) input.set(data);
    const out = this.#buffers.take(size);
    try {
      const info = await this.#run<Omit<NativeEncoding, 'bytes'>>('encode', { data: input, nShards, out } satisfies EncodeTask);
      return encodedBlob({ ...info, bytes: out }, () => this.#buffers.give(out));
    } finally {
      if (fromPool) this.#buffers.give(input.buffer as SharedArrayBuffer);
    }
  }

  async decode(metadataBcs: Buffer, primarySlivers: ReadonlyMap<number, Buffer>, nShards: number, check: ConsistencyCheck = 'default'): Promise<Buffer> {
    const problem = await this.metadataProblem(metadataBcs, nShards);
    if (problem) throw new Rs2Error('INVALID_METADATA', `invalid blob metadata: ${problem}`);
    const unencodedLength = Number(metadataBcs.readBigUInt64LE(UNENCODED_LENGTH_OFFSET));
    // The systematic slivers (rows of the blob) first: with all of them no arithmetic is needed (walrus.md §11).
    const need = primaryCount(nShards);
    const chosen = [...primarySlivers.keys()].sort((a, b) => (a < need ? a - need : a) - (b < need ? b - need : b)).slice(0, need);
    if (chosen.length < need) {
      throw new Rs2Error('NOT_ENOUGH_SLIVERS', `not enough primary slivers to decode: ${chosen.length} of ${need}`);
    }
    if (isSmallBlob(unencodedLength, nShards)) {
      return asBuffer(new Uint8Array(rs2Decode(nShards, unencodedLength, metadataBcs, chosen.map((i) => [i, primarySlivers.get(i)!]), check)));
    }
    const packed = new Uint8Array(chosen.reduce((sum, i) => sum + primarySlivers.get(i)!.length, 0));
    const slivers: Array<[number, number, number]> = [];
    let at = 0;
    for (const i of chosen) {
      const bcs = primarySlivers.get(i)!;
      packed.set(bcs, at);
      slivers.push([i, at, bcs.length]);
      at += bcs.length;
    }
    const metadata = check === 'skip' ? null : ownCopy(metadataBcs);
    const task: DecodeTask = { nShards, unencodedLength, metadataBcs: metadata, check, packed, slivers };
    return Buffer.from(reclaim(await this.#run<ArrayBuffer>('decode', task, metadata ? transferables(packed, metadata) : transferables(packed))));
  }

  /** Why the metadata is invalid (structure, parameters, blob id from its hashes; walrus.md §8.2), or null. */
  async metadataProblem(metadataBcs: Buffer, nShards?: number): Promise<string | null> {
    if (metadataBcs.length <= INLINE_MAX_METADATA_BYTES) return rs2MetadataProblem(metadataBcs, nShards);
    const own = ownCopy(metadataBcs);
    return this.#run('verifyMetadata', { metadataBcs: own, nShards }, transferables(own));
  }

  /** Why `sliverBcs` is not sliver `axis` of pair `pairIndex` of that blob (walrus.md §7.2, §8.1), or null. */
  async sliverProblem(metadataBcs: Buffer, pairIndex: number, axis: SliverAxis, sliverBcs: Buffer): Promise<string | null> {
    if (metadataBcs.length <= INLINE_MAX_METADATA_BYTES && sliverBcs.length <= INLINE_MAX_BYTES) {
      return rs2SliverProblem(metadataBcs, pairIndex, axis, sliverBcs);
    }
    const [metadata, sliver] = [ownCopy(metadataBcs), ownCopy(sliverBcs)];
    return this.#run('verifySliver', { metadataBcs: metadata, pairIndex, axis, sliverBcs: sliver }, transferables(metadata, sliver));
  }

  async verifyMetadata(metadataBcs: Buffer, nShards: number): Promise<boolean> {
    return (await this.metadataProblem(metadataBcs, nShards)) === null;
  }

  async verifySliver(metadataBcs: Buffer, pairIndex: number, axis: SliverAxis, sliverBcs: Buffer): Promise<boolean> {
    return (await this.sliverProblem(metadataBcs, pairIndex, axis, sliverBcs)) === null;
  }

  /** Destroys the worker pool; tasks still queued or running reject. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.destroy();
  }
}

/** Opens the codec and its worker pool (`threads` workers, default one per core). */
export function openBlobCodec(options?: BlobCodecOptions): Promise<NativeBlobCodec> {
  return NativeBlobCodec.open(options);
}
