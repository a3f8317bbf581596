// Typed access to the Rust Node-API module (native/, built by scripts/build-native.mjs into
// native/tusk-native.<platform>.node): fused streaming digests for S3 bodies and the storage
// engine's record CRC32C; AES-256-GCM blocks for encryption at rest.
//
// Digest results: MD5, SHA-256 and SHA-1 are Buffers of the raw digest (hex for ETag /
// x-amz-content-sha256, base64 for Content-MD5 / x-amz-checksum-sha256); CRC32 and CRC32C are
// unsigned 32-bit numbers and CRC64NVME a bigint; `checksumBytes` turns those into the
// big-endian bytes whose base64 S3 sends in x-amz-checksum-crc32/crc32c/crc64nvme.
import { createCipheriv, createHash, createHmac } from 'node:crypto';
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

interface Binding {
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

function binding(): Binding {
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

/** What an SSE object's blocks are sealed with (the format is in src/s3/sse/block-cipher.ts). */
export interface GcmBlockKey {
  key: Uint8Array;
  noncePrefix: Uint8Array;
  aad: Uint8Array;
  blockSize: number;
}

/**
 * AES-256-GCM-seals `plain` as blocks `firstBlock`, … (each `blockSize` bytes but a shorter last)
 * into `sealed`, exactly their ciphertexts and tags long, with Node's own OpenSSL
 * (native/src/aes_gcm_binding.rs).
 */
export function gcmSealBlocks(k: GcmBlockKey, firstBlock: number, plain: Uint8Array, sealed: Uint8Array): void {
  binding().gcmSealBlocks(k.key, k.noncePrefix, firstBlock, k.aad, k.blockSize, plain, sealed);
}

/**
 * Opens whole sealed blocks `firstBlock`, … into `plain`; returns how many were authentic (fewer
 * than all: the next failed its tag, and its bytes in `plain` are zeroed).
 */
export function gcmOpenBlocks(k: GcmBlockKey, firstBlock: number, sealed: Uint8Array, plain: Uint8Array): number {
  return binding().gcmOpenBlocks(k.key, k.noncePrefix, firstBlock, k.aad, k.blockSize, sealed, plain);
}

/**
 * Takes an exclusive flock(2) on the open file `fd` without waiting: true once held, false when
 * another open file (another process) holds it; undefined where the module has no flock.
 */
export function lockFile(fd: number): boolean | undefined {
  return binding().lockFile?.(fd);
}

/**
 * Keeps allocations of up to 256 MiB in malloc's heap, and up to 1 GiB of free heap, instead of
 * mapping and unmapping each one (native/src/alloc_binding.rs): an RS2 encode's slivers, and the
 * request body chunks a large PUT copies out of uWS (~512 KiB each), then reuse freed memory rather
 * than fault in fresh pages. True once applied; undefined where the C library is not glibc.
 */
export function keepLargeAllocations(): boolean | undefined {
  const kept = binding().keepLargeAllocations?.(256 << 20, 1 << 30, 64 << 20);
  // what is kept is given back after a while, so that it cannot pile up (trimFreeMemoryEvery)
  if (kept) trimFreeMemoryEvery(MEMORY_TRIM_INTERVAL_MS);
  return kept;
}

/** How long freed memory is kept for reuse at most, roughly: a burst of large bodies or encodes reuses it; idle, it goes back. */
export const MEMORY_TRIM_INTERVAL_MS = 10_000;

/**
 * Hands malloc's free pages back to the kernel every `intervalMs` (malloc_trim(0), every arena),
 * from a native thread of its own: what keepLargeAllocations keeps is otherwise never returned, each
 * thread's arena staying as large as the most it ever held at once (a 10-minute mixed soak: RSS 161
 * → 900 MiB and rising, with a flat JS heap; a burst of 64 MiB bodies: 208 MiB kept, 105 after a
 * trim). keepLargeAllocations starts it. Once per process; undefined where the C library is not glibc.
 */
export function trimFreeMemoryEvery(intervalMs: number): boolean | undefined {
  return binding().trimFreeMemoryEvery?.(intervalMs);
}

/**
 * Sends what native code prints with printf or std::cout to stderr, leaving fd 1 (process.stdout,
 * the JSON log) alone (native/src/stdio_binding.rs). Call before loading a library that prints:
 * uWS does (src/http/uws.ts). True once applied; undefined where the C library is not glibc.
 */
export function cStdoutToStderr(): boolean | undefined {
  return binding().cStdoutToStderr?.();
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

interface GoldenVector {
  name: string;
  input: () => Buffer;
  md5: string;
  sha256: string;
  sha1: string;
  crc32: number;
  crc32c: number;
  crc64nvme: bigint;
}

/** 1 MiB + 13 bytes of xorshift32 output: crosses every block and lane boundary of the kernels. */
function selfTestInput(): Buffer {
  return xorshiftBytes((1 << 20) + 13);
}

/** The first `length` bytes of the self-test's xorshift32 stream. */
function xorshiftBytes(length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

// Expected values computed with node:crypto, zlib.crc32, @aws-crypto/crc32c and @aws-sdk/crc64-nvme.
const GOLDEN: GoldenVector[] = [
  {
    name: 'empty',
    input: () => Buffer.alloc(0),
    md5: 'd41d8cd98f00b204e9800998ecf8427e',
    sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    crc32: 0,
    crc32c: 0,
    crc64nvme: 0n,
  },
  {
    name: '"123456789" (CRC check values)',
    input: () => Buffer.from('123456789'),
    md5: '25f9e794323b453885f5181f1b624d0b',
    sha256: '15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225',
    sha1: 'f7c3bc1d808e04732adf679965ccc34ca7ae3441',
    crc32: 0xcbf43926,
    crc32c: 0xe3069283,
    crc64nvme: 0xae8b14860a799888n,
  },
  {
    name: '1 MiB + 13 bytes of xorshift32',
    input: selfTestInput,
    md5: 'e01edceb2cc2fba3d4c0e9346c7f2625',
    sha256: '9c2a6bf52aea3d2f32e15f4c50a7b563232258db2bd97d01442466df0d129215',
    sha1: '39b6440117ac95e0d1f16aa2f2710c4d08719ad6',
    crc32: 0x1ac6f9d5,
    crc32c: 0x88dea3a3,
    crc64nvme: 0xf65abb4a5da024c8n,
  },
];

function mismatch(what: string, got: unknown, want: unknown): never {
  throw new Error(`native self-test failed: ${what}: got ${String(got)}, want ${String(want)}`);
}

function checkDigests(what: string, d: Digests, v: GoldenVector): void {
  if (d.md5?.toString('hex') !== v.md5) mismatch(`${what} md5`, d.md5?.toString('hex'), v.md5);
  if (d.sha256?.toString('hex') !== v.sha256) mismatch(`${what} sha256`, d.sha256?.toString('hex'), v.sha256);
  if (d.sha1?.toString('hex') !== v.sha1) mismatch(`${what} sha1`, d.sha1?.toString('hex'), v.sha1);
  if (d.crc32 !== v.crc32) mismatch(`${what} crc32`, d.crc32, v.crc32);
  if (d.crc32c !== v.crc32c) mismatch(`${what} crc32c`, d.crc32c, v.crc32c);
  if (d.crc64nvme !== v.crc64nvme) mismatch(`${what} crc64nvme`, d.crc64nvme, v.crc64nvme);
}

/**
 * Golden-vector self-test of every algorithm, one-shot and streamed in uneven chunks, plus the
 * SIMD CRC kernels against their portable twins and the multi-lane MD5/SHA-256 against
 * stream-by-stream hashing. Throws on any mismatch; the server refuses to start then. Takes a
 * few milliseconds.
 */
export function selfTest(): void {
  const native = binding();
  for (const v of GOLDEN) {
    const input = v.input();
    checkDigests(`${v.name} one-shot`, native.digestSync(input, DIGEST_ALL), v);
    const h = native.createHasher(DIGEST_ALL);
    for (let at = 0, step = 1; at < input.length; at += step, step = step * 3 + 1) {
      native.hasherUpdate(h, input.subarray(at, at + step));
    }
    checkDigests(`${v.name} streamed`, native.hasherDigest(h), v);
    if (native.crc32c(input.subarray(7), native.crc32c(input.subarray(0, 7))) !== v.crc32c) {
      mismatch(`${v.name} crc32c with seed`, '', v.crc32c);
    }
    for (const offset of [0, 1, 5, 13]) {
      const k = native.compareKernels(input.subarray(offset));
      if (k.crc32Simd !== k.crc32Portable) mismatch(`crc32 kernel at +${offset}`, k.crc32Simd, k.crc32Portable);
      if (k.crc32cSimd !== k.crc32cPortable) mismatch(`crc32c kernel at +${offset}`, k.crc32cSimd, k.crc32cPortable);
      if (k.crc64nvmeSimd !== k.crc64nvmePortable) {
        mismatch(`crc64nvme kernel at +${offset}`, k.crc64nvmeSimd, k.crc64nvmePortable);
      }
    }
  }
  const lanes = native.checkLanes();
  if (lanes !== undefined) throw new Error(`native self-test failed: multi-buffer hashing: ${lanes}`);
  checkHmac(native);
  checkGcmBlocks();
}

/** The native HMAC against node:crypto: keys shorter than, as long as and longer than a block, and non-ASCII data. */
function checkHmac(native: Binding): void {
  for (const [keyLength, data] of [[32, 'AWS4-HMAC-SHA256\n20261125T000000Z'], [64, ''], [100, 'ü€ '.repeat(50)]] as const) {
    const key = Buffer.alloc(keyLength, keyLength);
    const want = createHmac('sha256', key).update(data).digest('hex');
    const got = native.hmacSha256Hex(key, data);
    if (got !== want) mismatch(`hmac-sha256 with a ${keyLength}-byte key`, got, want);
    const hashed = `${data}\n€`;
    const wantHashed = createHmac('sha256', key).update(data + createHash('sha256').update(hashed).digest('hex')).digest('hex');
    const gotHashed = native.hmacSha256Hex(key, data, hashed);
    if (gotHashed !== wantHashed) mismatch(`hmac-sha256 of a string ending in a hash, ${keyLength}-byte key`, gotHashed, wantHashed);
  }
}

/**
 * The native GCM blocks against node:crypto block by block (2½ blocks, starting at block 7), opened
 * back, and a flipped bit in the second block failing it and only it.
 */
function checkGcmBlocks(): void {
  // the stream's first bytes only: generating the 1 MiB input again would cost start-up ~4 ms
  const input = xorshiftBytes(180);
  const k: GcmBlockKey = {
    key: input.subarray(0, 32),
    noncePrefix: Buffer.from('tusk-gcm'),
    aad: Buffer.from([0, 0, 0, 0, 0, 0, 0, 80]),
    blockSize: 32,
  };
  const plain = input.subarray(100, 180);
  const expected: Buffer[] = [];
  for (let i = 0; i * 32 < plain.length; i++) {
    const nonce = Buffer.concat([k.noncePrefix, Buffer.from([0, 0, 0, 7 + i])]);
    const c = createCipheriv('aes-256-gcm', k.key, nonce).setAAD(k.aad);
    expected.push(c.update(plain.subarray(i * 32, i * 32 + 32)), c.final(), c.getAuthTag());
  }
  const want = Buffer.concat(expected);
  const sealed = Buffer.alloc(want.length);
  gcmSealBlocks(k, 7, plain, sealed);
  if (!sealed.equals(want)) mismatch('AES-256-GCM blocks', sealed.toString('hex'), want.toString('hex'));
  const opened = Buffer.alloc(plain.length);
  const authentic = gcmOpenBlocks(k, 7, sealed, opened);
  if (authentic !== 3 || !opened.equals(plain)) mismatch('AES-256-GCM open', authentic, 3);
  sealed[48 + 3] ^= 1;
  const failed = gcmOpenBlocks(k, 7, sealed, opened);
  if (failed !== 1 || !opened.subarray(32, 64).equals(Buffer.alloc(32))) mismatch('AES-256-GCM altered block', failed, 1);
}
