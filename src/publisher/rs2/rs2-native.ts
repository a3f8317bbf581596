// Typed access to the RS2 functions of the native module (native/src/rs2_binding.rs over the
// tusk-rs2 crate, walrus.md §2–8). Every call is synchronous and CPU-bound: the codec (codec.ts)
// runs them in its worker pool and only small inputs on the event loop.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

import { nativeBinaryPath } from '../../native/native.js';

export type SliverAxis = 'primary' | 'secondary';

/** Codes the native RS2 functions throw with (walrus.md §2, §11). */
export const RS2_ERROR_CODES = [
  'INVALID_SHARD_COUNT',
  'DATA_TOO_LARGE',
  'NOT_ENOUGH_SLIVERS',
  'INVALID_SLIVER',
  'BLOB_ID_MISMATCH',
  'SLIVER_HASH_MISMATCH',
  // thrown by the codec (codec.ts) for metadata the native check rejects
  'INVALID_METADATA',
] as const;
export type Rs2ErrorCode = (typeof RS2_ERROR_CODES)[number];

/** An RS2 failure. `DATA_TOO_LARGE` keeps Walrus's wording: "the data is too large to be encoded/decoded". */
export class Rs2Error extends Error {
  readonly code: Rs2ErrorCode;

  constructor(code: Rs2ErrorCode, message: string) {
    super(message);
    this.name = 'Rs2Error';
    this.code = code;
  }
}

export function isRs2Error(e: unknown, code?: Rs2ErrorCode): e is Rs2Error {
  return e instanceof Rs2Error && (code === undefined || e.code === code);
}

/** A native error with one of the RS2 codes becomes an Rs2Error; anything else is rethrown as is. */
function rethrow(e: unknown): never {
  const code = (e as { code?: unknown } | null)?.code;
  if (e instanceof Error && RS2_ERROR_CODES.includes(code as Rs2ErrorCode)) throw new Rs2Error(code as Rs2ErrorCode, e.message);
  throw e;
}

/** What the native module reports for a blob id (lengths as numbers: they stay below 2^53). */
export interface NativeBlobIdInfo {
  blobId: Uint8Array;
  rootHash: Uint8Array;
  unencodedLength: number;
  encodedLength: number;
  symbolSize: number;
  nShards: number;
}

/**
 * The whole encoding in one transferable buffer: metadata BCS (walrus.md §8.2), then the BCS
 * SliverData (§8.1) of primary slivers 0..n−1, then of secondary slivers 0..n−1. Every primary
 * sliver BCS has the same length, and so has every secondary one, so those lengths are the
 * offsets table.
 */
export interface NativeEncoding extends NativeBlobIdInfo {
  /** the encoding is its first `byteLength` bytes */
  bytes: ArrayBufferLike;
  byteLength: number;
  metadataLength: number;
  primaryBcsLength: number;
  secondaryBcsLength: number;
}

interface Rs2Binding {
  rs2BlobId(data: Uint8Array, nShards: number): NativeBlobIdInfo;
  rs2Encode(data: Uint8Array, nShards: number, out?: Uint8Array): Omit<NativeEncoding, 'bytes'> & { bytes?: ArrayBufferLike };
  rs2Decode(nShards: number, unencodedLength: number, metadataBcs: Uint8Array | null, slivers: Array<[number, Uint8Array]>, strict?: 0 | 1): ArrayBuffer;
  rs2VerifyMetadata(bcs: Uint8Array, nShards?: number): string | null;
  rs2VerifySliver(metadataBcs: Uint8Array, pairIndex: number, axis: 0 | 1, sliverBcs: Uint8Array): string | null;
  rs2RsEncode(originals: Uint8Array, originalCount: number, recoveryCount: number): Buffer;
}

let loaded: Rs2Binding | undefined;

function binding(): Rs2Binding {
  if (loaded) return loaded;
  const path = nativeBinaryPath();
  if (!existsSync(path)) throw new Error(`native module not built: ${path} is missing (run: node scripts/build-native.mjs)`);
  // Same path as src/native/native.ts loads, so Node returns the one already-loaded instance.
  const b = createRequire(import.meta.url)(path) as Partial<Rs2Binding>;
  if (typeof b.rs2Encode !== 'function') throw new Error(`native module ${path} predates RS2: rebuild it (node scripts/build-native.mjs)`);
  loaded = b as Rs2Binding;
  return loaded;
}

/** Blob id, root hash and sizes of `data` for `nShards` (walrus.md §7.5, §9.1). */
export function rs2BlobId(data: Uint8Array, nShards: number): NativeBlobIdInfo {
  try {
    return binding().rs2BlobId(data, nShards);
  } catch (e) {
    rethrow(e);
  }
}

/**
 * Full RS2 encoding (walrus.md §4–8) in one buffer; see NativeEncoding for the layout. With `out`
 * (at least encodedByteLength bytes, codec.ts; not overlapping `data`), the encoding is written at its
 * start, overwriting every byte it covers, instead of into a new buffer.
 */
export function rs2Encode(data: Uint8Array, nShards: number, out?: ArrayBufferLike): NativeEncoding {
  try {
    const encoding = binding().rs2Encode(data, nShards, out && new Uint8Array(out));
    return { ...encoding, bytes: out ?? encoding.bytes! };
  } catch (e) {
    rethrow(e);
  }
}

/**
 * Walrus's consistency checks of a decoded blob (walrus.md §11): `default` hashes each systematic
 * primary sliver (row) of the result against the metadata (else SLIVER_HASH_MISMATCH), `strict`
 * re-encodes it and compares the blob id (else BLOB_ID_MISMATCH), `skip` checks nothing.
 */
export type ConsistencyCheck = 'default' | 'strict' | 'skip';

/**
 * Rebuilds a blob from at least n_primary primary slivers, given as [pair index, BCS SliverData]
 * (walrus.md §11), checked against `metadataBcs` as `check` says (without metadata, not at all).
 */
export function rs2Decode(
  nShards: number,
  unencodedLength: number,
  metadataBcs: Uint8Array | null,
  slivers: Array<[number, Uint8Array]>,
  check: ConsistencyCheck = 'default',
): ArrayBuffer {
  try {
    return binding().rs2Decode(nShards, unencodedLength, check === 'skip' ? null : metadataBcs, slivers, check === 'strict' ? 1 : 0);
  } catch (e) {
    rethrow(e);
  }
}

/** Why BCS metadata is invalid (structure, parameters, blob id from its hashes), or null when it is valid. */
export function rs2MetadataProblem(metadataBcs: Uint8Array, nShards?: number): string | null {
  return binding().rs2VerifyMetadata(metadataBcs, nShards);
}

/** Why a BCS sliver is not sliver `axis` of pair `pairIndex` of the blob `metadataBcs` describes, or null. */
export function rs2SliverProblem(metadataBcs: Uint8Array, pairIndex: number, axis: SliverAxis, sliverBcs: Uint8Array): string | null {
  return binding().rs2VerifySliver(metadataBcs, pairIndex, axis === 'primary' ? 0 : 1, sliverBcs);
}

/** One plain Reed–Solomon encoding as reed-solomon-simd computes it (walrus.md §5.6): the recovery shards, concatenated. */
export function rs2RsEncode(originals: Uint8Array, originalCount: number, recoveryCount: number): Buffer {
  return binding().rs2RsEncode(originals, originalCount, recoveryCount);
}

// Published blob ids (walrus.md §13): the Walrus regression test and the wasm package's own test.
const SELF_TEST = [
  { nShards: 10, data: () => Buffer.from('walrus blob id v1 regression test'), blobId: 'RcU82Mwf-CFkv1LaI_2qcpANwpGUuG3TMwnVzZxD2kY' },
  { nShards: 1000, data: () => Buffer.alloc(0), blobId: Buffer.from('dc63d02f71d936716137f17b97901af97d553ad00ac08b20f73b9693c47cd6fe', 'hex').toString('base64url') },
];

/**
 * Golden-vector start-up check of the RS2 code: published blob ids, and an encode → verify →
 * decode round trip from the last n_primary slivers (which needs real RS decoding). Throws on any
 * mismatch; takes about half a second (the n = 1000 id).
 */
export function rs2SelfTest(): void {
  for (const v of SELF_TEST) {
    const got = Buffer.from(rs2BlobId(v.data(), v.nShards).blobId).toString('base64url');
    if (got !== v.blobId) throw new Error(`RS2 self-test failed: blob id at n=${v.nShards} is ${got}, want ${v.blobId}`);
  }
  const n = 7;
  const nPrimary = n - 2 * Math.floor((n - 1) / 3);
  const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 131 + 7) & 0xff));
  const e = rs2Encode(data, n);
  const all = Buffer.from(e.bytes);
  const metadata = all.subarray(0, e.metadataLength);
  const primary = (i: number) => all.subarray(e.metadataLength + i * e.primaryBcsLength, e.metadataLength + (i + 1) * e.primaryBcsLength);
  const problem = rs2MetadataProblem(metadata, n) ?? rs2SliverProblem(metadata, n - 1, 'primary', primary(n - 1));
  if (problem) throw new Error(`RS2 self-test failed: own encoding rejected: ${problem}`);
  const last = Array.from({ length: nPrimary }, (_, k): [number, Uint8Array] => [n - 1 - k, primary(n - 1 - k)]);
  for (const check of ['default', 'strict'] as const) {
    const decoded = Buffer.from(rs2Decode(n, data.length, metadata, last, check));
    if (!decoded.equals(data)) throw new Error(`RS2 self-test failed: decoding (${check} check) did not give the encoded bytes back`);
  }
}
