// Every Walrus RS2 vector (shared/vectors/walrus-rs2, walrus.md §13) through the native binding:
// blob ids, root hashes, sizes, whole-encoding digests, DataTooLarge, full slivers with their
// hashes and metadata, and the plain Reed–Solomon calls. Missing vector files fail the suite.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { isRs2Error, rs2BlobId, rs2Decode, rs2Encode, rs2MetadataProblem, rs2RsEncode, rs2SliverProblem } from '../../../src/publisher/rs2/rs2-native.js';
import type { NativeEncoding } from '../../../src/publisher/rs2/rs2-native.js';
import { loadVectors, splitMix64 } from './codec/vector-input.js';

interface Derived {
  f: number;
  n_primary_source_symbols: number;
  n_secondary_source_symbols: number;
  max_blob_size: number;
  symbol_size?: number;
  encoded_length?: number;
  metadata_length?: number;
}

interface Digests {
  primary_data_sha256: string;
  secondary_data_sha256: string;
  primary_bcs_sha256: string;
  secondary_bcs_sha256: string;
  sliver_hashes_sha256: string;
  metadata_bcs_sha256: string;
}

interface BlobVector {
  id: string;
  n_shards: number;
  size: number;
  seed?: string;
  data_utf8?: string;
  data_sha256: string;
  ok: boolean;
  error?: string;
  reference_error?: string;
  blob_id?: string;
  blob_id_hex?: string;
  root_hash_hex?: string;
  unencoded_length?: number;
  derived?: Derived;
  digests?: Digests;
}

interface SliverVector extends BlobVector {
  data_hex: string;
  metadata_bcs_hex: string;
  pairs: Array<{
    pair_index: number;
    primary_hash_hex: string;
    secondary_hash_hex: string;
    primary: { sliver_index: number; data_hex: string; bcs_hex: string };
    secondary: { sliver_index: number; data_hex: string; bcs_hex: string };
  }>;
}

interface RsVector {
  from: string;
  original_count: number;
  recovery_count: number;
  shard_bytes: number;
  rate: string;
  original_hex: string;
  recovery_hex: string;
}

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

function inputOf(v: BlobVector): Buffer {
  if (v.seed !== undefined) return splitMix64(BigInt(v.seed), v.size);
  const text = v.data_utf8!;
  return text.startsWith('hex:') ? Buffer.from(text.slice(4), 'hex') : Buffer.from(text, 'utf8');
}

/** Views of an encoding in pair order: primary sliver p and secondary sliver n − 1 − p (walrus.md §4). */
function slivers(e: NativeEncoding) {
  const all = Buffer.from(e.bytes);
  const n = e.nShards;
  const secondaryStart = e.metadataLength + n * e.primaryBcsLength;
  const primary = (p: number) => all.subarray(e.metadataLength + p * e.primaryBcsLength, e.metadataLength + (p + 1) * e.primaryBcsLength);
  const secondary = (p: number) => {
    const at = secondaryStart + (n - 1 - p) * e.secondaryBcsLength;
    return all.subarray(at, at + e.secondaryBcsLength);
  };
  return { metadata: all.subarray(0, e.metadataLength), primary, secondary };
}

/** The symbol data inside a BCS SliverData: after the ULEB128 length, before symbol size and index (§8.1). */
function sliverData(bcs: Buffer): Buffer {
  let at = 0;
  while (bcs[at]! & 0x80) at++;
  return bcs.subarray(at + 1, bcs.length - 4);
}

/** The 2n sliver hashes of BCS metadata, in metadata order (each after its Node::Digest tag, §8.2). */
function sliverHashes(metadata: Buffer): Buffer[] {
  let at = 42;
  while (metadata[at]! & 0x80) at++;
  at++;
  const hashes: Buffer[] = [];
  for (; at < metadata.length; at += 33) hashes.push(metadata.subarray(at + 1, at + 33));
  return hashes;
}

function checkBlobVector(v: BlobVector): void {
  const data = inputOf(v);
  expect(sha256(data), 'input bytes (PRNG)').toBe(v.data_sha256);
  if (!v.ok) {
    expect(v.error).toBe('DataTooLarge');
    let thrown: unknown;
    try {
      rs2BlobId(data, v.n_shards);
    } catch (e) {
      thrown = e;
    }
    expect(isRs2Error(thrown, 'DATA_TOO_LARGE')).toBe(true);
    expect((thrown as Error).message).toContain(v.reference_error!);
    expect(() => rs2Encode(data, v.n_shards)).toThrow(v.reference_error!);
    return;
  }
  const info = rs2BlobId(data, v.n_shards);
  expect(Buffer.from(info.blobId).toString('base64url')).toBe(v.blob_id);
  expect(Buffer.from(info.blobId).toString('hex')).toBe(v.blob_id_hex);
  expect(Buffer.from(info.rootHash).toString('hex')).toBe(v.root_hash_hex);
  expect(info.unencodedLength).toBe(v.unencoded_length);
  if (v.derived?.symbol_size !== undefined) expect(info.symbolSize).toBe(v.derived.symbol_size);
  if (v.derived?.encoded_length !== undefined) expect(info.encodedLength).toBe(v.derived.encoded_length);

  const e = rs2Encode(data, v.n_shards);
  expect(Buffer.from(e.blobId).toString('base64url')).toBe(v.blob_id);
  const { metadata, primary, secondary } = slivers(e);
  const n = v.n_shards;
  const pairs = Array.from({ length: n }, (_, p) => p);
  const d = v.digests!;
  expect(sha256(...pairs.map((p) => sliverData(primary(p)))), 'primary slivers').toBe(d.primary_data_sha256);
  expect(sha256(...pairs.map((p) => sliverData(secondary(p)))), 'secondary slivers').toBe(d.secondary_data_sha256);
  expect(sha256(...pairs.map(primary)), 'primary BCS').toBe(d.primary_bcs_sha256);
  expect(sha256(...pairs.map(secondary)), 'secondary BCS').toBe(d.secondary_bcs_sha256);
  expect(sha256(...sliverHashes(metadata)), 'sliver hashes').toBe(d.sliver_hashes_sha256);
  expect(sha256(metadata), 'metadata BCS').toBe(d.metadata_bcs_sha256);
  if (v.derived?.metadata_length !== undefined) expect(e.metadataLength).toBe(66 * n + 42 + (n < 128 ? 1 : 2));
  expect(rs2MetadataProblem(metadata, n)).toBeNull();
}

const blobIds = loadVectors<{ literal_vectors: BlobVector[]; vectors: BlobVector[] }>('blob_ids.json');

describe('RS2 blob-id vectors (blob_ids.json)', () => {
  it('holds the 90 generated and 3 literal vectors', () => {
    expect(blobIds.vectors).toHaveLength(90);
    expect(blobIds.literal_vectors).toHaveLength(3);
  });

  for (const v of [...blobIds.literal_vectors, ...blobIds.vectors]) {
    it(`${v.id}${v.ok ? '' : ' is DataTooLarge'}`, () => checkBlobVector(v));
  }
});

for (const file of ['slivers_n4.json', 'slivers_n7.json', 'slivers_n10.json', 'slivers_n100.json']) {
  const { vectors } = loadVectors<{ vectors: SliverVector[] }>(file);

  describe(`RS2 sliver vectors (${file})`, () => {
    it('is not empty', () => expect(vectors.length).toBeGreaterThan(0));

    for (const v of vectors) {
      it(`${v.id}: slivers, hashes, metadata and blob id`, () => {
        checkBlobVector(v);
        const data = inputOf(v);
        expect(data.toString('hex')).toBe(v.data_hex);
        const e = rs2Encode(data, v.n_shards);
        const { metadata, primary, secondary } = slivers(e);
        expect(metadata.toString('hex')).toBe(v.metadata_bcs_hex);
        const hashes = sliverHashes(metadata);
        expect(v.pairs).toHaveLength(v.n_shards);
        for (const pair of v.pairs) {
          const p = pair.pair_index;
          expect(pair.primary.sliver_index).toBe(p);
          expect(pair.secondary.sliver_index).toBe(v.n_shards - 1 - p);
          expect(primary(p).toString('hex'), `primary sliver ${p}`).toBe(pair.primary.bcs_hex);
          expect(secondary(p).toString('hex'), `secondary sliver of pair ${p}`).toBe(pair.secondary.bcs_hex);
          expect(sliverData(primary(p)).toString('hex')).toBe(pair.primary.data_hex);
          expect(sliverData(secondary(p)).toString('hex')).toBe(pair.secondary.data_hex);
          expect(hashes[2 * p]!.toString('hex')).toBe(pair.primary_hash_hex);
          expect(hashes[2 * p + 1]!.toString('hex')).toBe(pair.secondary_hash_hex);
        }
      });

      it(`${v.id}: the reference's slivers verify against its metadata and decode`, () => {
        const metadata = Buffer.from(v.metadata_bcs_hex, 'hex');
        const n = v.n_shards;
        for (const pair of v.pairs) {
          expect(rs2SliverProblem(metadata, pair.pair_index, 'primary', Buffer.from(pair.primary.bcs_hex, 'hex'))).toBeNull();
          expect(rs2SliverProblem(metadata, pair.pair_index, 'secondary', Buffer.from(pair.secondary.bcs_hex, 'hex'))).toBeNull();
        }
        // The last n − 2f primary slivers: every systematic row has to be recomputed.
        const nPrimary = v.derived!.n_primary_source_symbols;
        const last = v.pairs.slice(n - nPrimary).map((p): [number, Uint8Array] => [p.pair_index, Buffer.from(p.primary.bcs_hex, 'hex')]);
        for (const check of ['default', 'strict'] as const) {
          const blob = Buffer.from(rs2Decode(n, v.size, metadata, last, check));
          expect(blob.toString('hex'), check).toBe(v.data_hex);
        }
      });
    }
  });
}

const rs = loadVectors<{ vectors: RsVector[] }>('rs_vectors.json');

describe('Reed–Solomon vectors (rs_vectors.json)', () => {
  it('holds both rates', () => {
    expect(rs.vectors.length).toBeGreaterThan(0);
    expect(new Set(rs.vectors.map((v) => v.rate))).toEqual(new Set(['high', 'low']));
  });

  for (const v of rs.vectors) {
    it(`(k=${v.original_count}, r=${v.recovery_count}) ${v.rate} rate, from ${v.from}`, () => {
      const originals = Buffer.from(v.original_hex, 'hex');
      expect(originals.length).toBe(v.original_count * v.shard_bytes);
      expect(rs2RsEncode(originals, v.original_count, v.recovery_count).toString('hex')).toBe(v.recovery_hex);
    });
  }
});
