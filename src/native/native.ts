// Typed access to the Rust Node-API module (native/, built by scripts/build-native.mjs into
// native/tusk-native.<platform>.node): loading it, and the fused streaming digests for S3 bodies
// and the storage engine's record CRC32C. Beside it: aes-gcm.ts (encryption at rest), process.ts
// (flock, allocator and stdout switches), self-test.ts (the golden vectors checked at start-up).
//
// Digest results: MD5, SHA-256 and SHA-1 are Buffers of the raw digest (hex for ETag /
// x-amz-content-sha256, base64 for Content-MD5 / x-amz-checksum-sha256); CRC32 and CRC32C are
// unsigned 32-bit numbers and CRC64NVME a bigint; `checksumBytes` turns those into the
// big-endian bytes whose base64 S3 sends in x-amz-checksum-crc32/crc32c/crc64nvme.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

/** Mask bits selecting the algorithms of one fused pass: `DIGEST.MD5 | DIGEST.CRC64NVME`. */
export const DIGEST = {
  MD5: 1 << 0,
  SHA256: 1 << 1,
  SHA1: 1 << 2,
  CRC32: 1 << 3,
  CRC32C: 1 << 4,
  CRC64NVME: 1 << 5,
} as const;
export const DIGEST_ALL = 0x3f;

export interface Digests {
  md5?: Buffer;
  sha256?: Buffer;
  sha1?: Buffer;
  crc32?: number;
  crc32c?: number;
  crc64nvme?: bigint;
}

/**
 * Kernel chosen per algorithm on this CPU, e.g. `{ md5: 'avx512x16', sha256: 'sha-ni+avx512x16',
 * crc32c: 'sse4.2+pclmulqdq-3way' }`; for MD5 and SHA-256 the multi-buffer kernel that hashes
 * the streams sharing a thread-pool job (a lone stream takes the scalar / SHA-NI path).
 */
export type SimdPaths = Record<'md5' | 'sha256' | 'sha1' | 'crc32' | 'crc32c' | 'crc64nvme', string>;

/** Opaque native hasher state (a tagged JS external). */
declare const hasherHandle: unique symbol;
type HasherHandle = { readonly [hasherHandle]: true };

export interface Binding {
  createHasher(mask: number): HasherHandle;
  hasherUpdate(h: HasherHandle, data: Uint8Array): void;
  /** One thread-pool job updating `hashers[i]` with `buffers[i]`; per pair, undefined or its error. */
  hashersUpdateManyAsync(hashers: HasherHandle[], buffers: Uint8Array[]): Promise<(Error | undefined)[]>;
  hasherDigest(h: HasherHandle): Digests;
  digestSync(data: Uint8Array, mask: number): Digests;
  crc32c(data: Uint8Array, seed?: number): number;
  simdPaths(): SimdPaths;
  compareKernels(data: Uint8Array): {
    crc32Simd: number;
    crc32Portable: number;
    crc32cSimd: number;
    crc32cPortable: number;
    crc64nvmeSimd: bigint;
    crc64nvmePortable: bigint;
  };
  /** What differs between the multi-lane kernels and stream-by-stream hashing, if anything. */
  checkLanes(): string | undefined;
  algorithms(): Record<string, number>;
  hmacSha256Hex(key: Uint8Array, data: string, hashed?: string): string;
  gcmSealBlocks(key: Uint8Array, noncePrefix: Uint8Array, firstBlock: number, aad: Uint8Array, blockSize: number, plain: Uint8Array, sealed: Uint8Array): void;
  gcmOpenBlocks(key: Uint8Array, noncePrefix: Uint8Array, firstBlock: number, aad: Uint8Array, blockSize: number, sealed: Uint8Array, plain: Uint8Array): number;
  /** Linux only (native/src/lock_binding.rs) */
  lockFile?(fd: number): boolean;
  /** glibc only (native/src/alloc_binding.rs) */
  keepLargeAllocations?(mmapThreshold: number, trimThreshold: number, topPad: number): boolean;
  /** glibc only (native/src/alloc_binding.rs) */
  trimFreeMemoryEvery?(intervalMs: number): boolean;
  /** glibc only (native/src/stdio_binding.rs) */
  cStdoutToStderr?(): boolean;
}

/** Same naming as `napi build --platform` (see scripts/build-native.mjs). */
function platformSuffix(): string {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    return `linux-${arch}-${header?.glibcVersionRuntime ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** `TUSK_NATIVE_PATH`, else `<package root>/native/…node`: this file sits two levels below the
 * root both as src/native/native.ts (vitest) and as dist/native/native.js (tsc output). */
export function nativeBinaryPath(): string {
  const override = process.env.TUSK_NATIVE_PATH;
  if (override) return override;
  return fileURLToPath(new URL(`../../native/tusk-native.${platformSuffix()}.node`, import.meta.url));
}

let loaded: Binding | undefined;

/** The loaded module (loaded on first use, its digest masks checked against DIGEST). */
export function binding(): Binding {
  if (loaded) return loaded;
  const path = nativeBinaryPath();
  if (!existsSync(path)) {
    throw new Error(`native module not built: ${path} is missing (run: node scripts/build-native.mjs)`);
  }
  const b = createRequire(import.meta.url)(path) as Binding;
  const native = b.algorithms();
  for (const [name, bit] of Object.entries(DIGEST)) {
    if (native[name.toLowerCase()] !== bit) throw new Error(`native module mask for ${name} differs from src/native/native.ts`);
  }
  loaded = b;
  return b;
}

function checkMask(mask: number): void {
  if (!Number.isInteger(mask) || mask <= 0 || (mask & ~DIGEST_ALL) !== 0) {
    throw new RangeError(`invalid digest mask ${mask}`);
  }
}

/** Inputs up to this size are hashed inline by `updateAsync`: a thread-pool round trip costs more. */
export const ASYNC_INLINE_MAX = 64 * 1024;

interface PendingUpdate {
  data: Uint8Array;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** One hasher's thread-pool updates, waiting in call order. */
class UpdateQueue {
  readonly pending: PendingUpdate[] = [];
  /** A job holds the hasher. */
  running = false;
  /** Set by the first failed update: every later one fails with it. */
  failure: unknown;

  constructor(readonly handle: HasherHandle) {}
}

export interface HashScheduling {
  /** Thread-pool jobs in flight at once (default: cores, at most the libuv pool size). */
  jobs: number;
  /** Hashers one job may update together (default 16; 1: a job per update, no SIMD lanes). */
  lanes: number;
}

/** Counts since start-up (or the last `resetHashSchedulingStats`). */
export interface HashSchedulingStats {
  /** Thread-pool jobs started, */
  jobs: number;
  /** the updates they carried (updates / jobs: average hashers per job), */
  updates: number;
  /** the most in one job, */
  largestJob: number;
  /** and the most jobs in flight at once. */
  peakJobs: number;
}

/** Updates larger than this go to the thread pool in pieces of this size. */
export const PIECE_MAX = 4 << 20;

function defaultScheduling(): HashScheduling {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return { jobs: Math.max(1, Math.min(availableParallelism(), pool)), lanes: 16 };
}

/**
 * Runs the thread-pool updates of every Hasher of this thread. MD5, the ETag of every upload,
 * is a serial chain per stream, so the native side hashes the streams of one job together, one
 * per SIMD lane. The scheduler keeps at most `jobs` jobs in flight and, whenever one may start,
 * puts the next update of every waiting hasher (up to `lanes`) into it: a lone stream gets a job
 * per update at once, exactly as without batching, and batches form only when updates queue
 * behind busy jobs. Never waits on a timer. One job per hasher at a time, so each hasher's
 * updates run in call order.
 */
class HashScheduler {
  settings = defaultScheduling();
  readonly stats: HashSchedulingStats = { jobs: 0, updates: 0, largestJob: 0, peakJobs: 0 };
  /** Queues with pending updates and no job, longest waiting first. */
  readonly #ready: UpdateQueue[] = [];
  #jobs = 0;

  submit(queue: UpdateQueue, data: Uint8Array): Promise<void> {
    if (queue.failure !== undefined) return Promise.reject(queue.failure);
    return new Promise((resolve, reject) => {
      const wasIdle = !queue.running && queue.pending.length === 0;
      // A job lasts as long as its longest update: a large one goes in pieces, so that the
      // other hashers of its jobs are not held up. The last piece settles the promise; a failed
      // piece fails the ones queued after it, the last included.
      const ignore = (): void => {};
      let at = 0;
      for (; data.byteLength - at > PIECE_MAX; at += PIECE_MAX) {
        queue.pending.push({ data: data.subarray(at, at + PIECE_MAX), resolve: ignore, reject: ignore });
      }
      queue.pending.push({ data: at === 0 ? data : data.subarray(at), resolve, reject });
      if (wasIdle) this.#ready.push(queue);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#jobs < this.settings.jobs && this.#ready.length > 0) {
      this.#start(this.#ready.splice(0, this.settings.lanes));
    }
  }

  #start(batch: UpdateQueue[]): void {
    this.#jobs++;
    this.stats.jobs++;
    this.stats.updates += batch.length;
    this.stats.largestJob = Math.max(this.stats.largestJob, batch.length);
    this.stats.peakJobs = Math.max(this.stats.peakJobs, this.#jobs);
    const heads = batch.map((q) => {
      q.running = true;
      return q.pending.shift()!;
    });
    let results: Promise<(Error | undefined)[]>;
    try {
      results = binding().hashersUpdateManyAsync(
        batch.map((q) => q.handle),
        heads.map((u) => u.data),
      );
    } catch (err) {
      results = Promise.reject(err);
    }
    results.then(
      (errors) => this.#finish(batch, heads, (i) => errors[i]),
      // Only a Node-API failure rejects the whole job: it is every hasher's error then.
      (err: unknown) => this.#finish(batch, heads, () => err ?? new Error('hashersUpdateManyAsync failed')),
    );
  }

  #finish(batch: UpdateQueue[], heads: PendingUpdate[], errorOf: (i: number) => unknown): void {
    this.#jobs--;
    batch.forEach((q, i) => {
      q.running = false;
      const err = errorOf(i);
      if (err === undefined) {
        heads[i]!.resolve();
      } else {
        q.failure ??= err;
        heads[i]!.reject(err);
        for (const u of q.pending.splice(0)) u.reject(q.failure);
      }
      if (q.pending.length > 0) this.#ready.push(q);
    });
    this.#pump();
  }
}

const scheduler = new HashScheduler();

/**
 * Changes how thread-pool updates are batched (for benchmarks and tests); returns the previous
 * settings. Applies to jobs started from now on.
 */
export function setHashScheduling(settings: Partial<HashScheduling>): HashScheduling {
  const previous = { ...scheduler.settings };
  const next = { ...previous, ...settings };
  for (const [name, n] of Object.entries(next)) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`invalid hash scheduling ${name}: ${n}`);
  }
  scheduler.settings = next;
  return previous;
}

/** How thread-pool updates have been batched so far. */
export function hashSchedulingStats(): HashSchedulingStats {
  return { ...scheduler.stats };
}

export function resetHashSchedulingStats(): void {
  Object.assign(scheduler.stats, { jobs: 0, updates: 0, largestJob: 0, peakJobs: 0 });
}

/**
 * Streaming state of one fused digest pass. Calls are serialized: `updateAsync` calls queue
 * behind each other; `update` and `digest` throw while any async update is queued or running
 * (await the last `updateAsync`, or use `digestAsync`). A buffer passed to `updateAsync` must not
 * be modified until its promise settles. After `digest` the hasher is finished. A failed async
 * update poisons the hasher: every later call fails with that error.
 */
export class Hasher {
  readonly mask: number;
  readonly #native = binding();
  readonly #handle: HasherHandle;
  readonly #queue: UpdateQueue;
  readonly #inlineMax: number;
  #tail: Promise<void> | undefined;
  #queued = 0;

  /** `inlineMax` overrides ASYNC_INLINE_MAX (0 sends every updateAsync to the thread pool). */
  constructor(mask: number, { inlineMax = ASYNC_INLINE_MAX }: { inlineMax?: number } = {}) {
    checkMask(mask);
    this.mask = mask;
    this.#inlineMax = inlineMax;
    this.#handle = this.#native.createHasher(mask);
    this.#queue = new UpdateQueue(this.#handle);
  }

  /** Whether async updates are queued or running. */
  get busy(): boolean {
    return this.#queued > 0;
  }

  /** Hashes `data` on the calling thread: for small chunks only. */
  update(data: Uint8Array): this {
    this.#checkIdle('update');
    this.#native.hasherUpdate(this.#handle, data);
    return this;
  }

  /** Hashes `data` on the libuv thread pool (inline when small and nothing is queued). */
  updateAsync(data: Uint8Array): Promise<void> {
    if (this.#queue.failure !== undefined) return Promise.reject(this.#queue.failure);
    if (this.#queued === 0 && data.byteLength <= this.#inlineMax) {
      try {
        this.#native.hasherUpdate(this.#handle, data);
        return Promise.resolve();
      } catch (err) {
        return Promise.reject(err);
      }
    }
    this.#queued++;
    const settled = scheduler.submit(this.#queue, data).then(
      () => {
        this.#queued--;
      },
      (err: unknown) => {
        this.#queued--;
        throw err;
      },
    );
    // The chain itself never rejects, so an unobserved failure is reported only once, here.
    this.#tail = settled.catch(() => undefined);
    return settled;
  }

  /** Finishes the pass and returns the requested digests. */
  digest(): Digests {
    this.#checkIdle('digest');
    return this.#native.hasherDigest(this.#handle);
  }

  /** Waits for queued async updates, then digests. */
  async digestAsync(): Promise<Digests> {
    await this.#tail;
    return this.digest();
  }

  #checkIdle(op: string): void {
    if (this.#queue.failure !== undefined) throw this.#queue.failure;
    if (this.#queued > 0) {
      throw Object.assign(new Error(`Hasher.${op}() called while an async update is pending`), {
        code: 'ERR_HASHER_BUSY',
      });
    }
  }
}

/** One-shot fused digests of a small input, on the calling thread. */
export function digestSync(data: Uint8Array, mask: number): Digests {
  checkMask(mask);
  return binding().digestSync(data, mask);
}

/** One-shot fused digests of any input; large inputs are hashed on the thread pool. */
export async function digestAsync(data: Uint8Array, mask: number): Promise<Digests> {
  const h = new Hasher(mask);
  await h.updateAsync(data);
  return h.digest();
}

/** CRC32C of `data` continuing from `seed`, the CRC32C of the bytes before it (0 to start). */
export function crc32c(data: Uint8Array, seed = 0): number {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`invalid CRC32C seed ${seed}`);
  return binding().crc32c(data, seed);
}

/**
 * HMAC-SHA256 under `key` of `data` (UTF-8), followed when `hashed` is given by the lower-case hex
 * SHA-256 of `hashed`, as lower-case hex: SigV4's signature (its string to sign ends with the
 * canonical request's hash) in one call, ~4× cheaper than a node:crypto Hmac object.
 */
export function hmacSha256Hex(key: Uint8Array, data: string, hashed?: string): string {
  return binding().hmacSha256Hex(key, data, hashed); // undefined: no hashed suffix
}

/** The SIMD kernel each algorithm uses on this CPU (for the start-up log). */
export function simdPaths(): SimdPaths {
  return binding().simdPaths();
}

/** Big-endian bytes of a CRC value: base64 of these is S3's x-amz-checksum-crc32/crc32c/crc64nvme. */
export function checksumBytes(value: number | bigint): Buffer {
  if (typeof value === 'bigint') {
    const b = Buffer.allocUnsafe(8);
    b.writeBigUInt64BE(value);
    return b;
  }
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(value >>> 0);
  return b;
}
