// A test-only BlobCodec with the shapes of RS2 (walrus.md §2, §8: symbol size, sliver lengths and
// indices, BCS metadata) but simpler maths: the n_primary rows of the blob are the values of a
// polynomial over GF(2^8) at x = 1..n_primary, primary sliver p its value at x = p + 1, so any
// n_primary primary slivers rebuild the blob. Hashes and the blob id are SHA-256. It counts calls so
// tests can prove that a refused request was never encoded.

import { createHash } from 'node:crypto';
import type { BlobCodec, BlobIdInfo, EncodedBlob } from '../../../../src/publisher/rs2/codec-types.js';
import { encodedLength } from '../../../../src/publisher/ledger/index.js';
import { encodeBlobMetadata, encodeSliverData, parseBlobMetadata, parseSliverData } from '../../../../src/publisher/nodes/bcs.js';
import { encodingParams, symbolSize } from '../../../../src/publisher/nodes/encoding-params.js';
import { Rs2Error } from '../../../../src/publisher/rs2/rs2-native.js';

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
}
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!);
const div = (a: number, b: number) => (a === 0 ? 0 : EXP[LOG[a]! + 255 - LOG[b]!]!);

/** Lagrange basis over `points`, evaluated at `x`: coefficient of each point's value. */
function lagrange(points: number[], x: number): number[] {
  return points.map((xj, j) => {
    let num = 1;
    let den = 1;
    points.forEach((xm, m) => {
      if (m === j) return;
      num = mul(num, x ^ xm);
      den = mul(den, xj ^ xm);
    });
    return div(num, den);
  });
}

function combine(sources: Buffer[], coefficients: number[], length: number): Buffer {
  const out = Buffer.alloc(length);
  sources.forEach((src, j) => {
    const c = coefficients[j]!;
    if (c === 0) return;
    for (let b = 0; b < length; b++) out[b]! ^= mul(src[b]!, c);
  });
  return out;
}

function blobIdOf(unencodedLength: number, hashes: Array<{ primary: Buffer; secondary: Buffer }>): Buffer {
  const h = createHash('sha256').update(`fake-rs2/${unencodedLength}/`);
  for (const { primary, secondary } of hashes) h.update(primary).update(secondary);
  return h.digest();
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest();

export interface FakeCodec extends BlobCodec {
  encodeCalls: number;
  decodeCalls: number;
  /** resolves encode() only when released: lets a test hold a store in flight */
  gate?: Promise<void>;
}

export function fakeCodec(): FakeCodec {
  const codec: FakeCodec = {
    encodeCalls: 0,
    decodeCalls: 0,
    async encode(data, nShards) {
      codec.encodeCalls++;
      if (codec.gate) await codec.gate;
      return encodeNow(data, nShards);
    },
    async blobId(data, nShards) {
      return encodeNow(data, nShards);
    },
    async decode(metadataBcs, primarySlivers, nShards) {
      codec.decodeCalls++;
      const metadata = parseBlobMetadata(metadataBcs);
      const { nPrimary } = encodingParams(nShards);
      const chosen = [...primarySlivers].slice(0, nPrimary);
      if (chosen.length < nPrimary) throw new Error(`need ${nPrimary} primary slivers, got ${chosen.length}`);
      const datas = chosen.map(([, bcs]) => parseSliverData(bcs).data);
      const points = chosen.map(([p]) => p + 1);
      const rows = Array.from({ length: nPrimary }, (_, r) => combine(datas, lagrange(points, r + 1), datas[0]!.length));
      const data = Buffer.concat(rows).subarray(0, metadata.unencodedLength);
      const again = encodeNow(Buffer.from(data), nShards);
      if (!again.blobId.equals(metadata.blobId)) throw new Rs2Error('BLOB_ID_MISMATCH', 'the rebuilt blob does not match its blob id');
      return Buffer.from(data);
    },
    async verifyMetadata(metadataBcs, nShards) {
      try {
        const m = parseBlobMetadata(metadataBcs);
        return m.hashes.length === nShards && blobIdOf(m.unencodedLength, m.hashes).equals(m.blobId);
      } catch {
        return false;
      }
    },
    async verifySliver(metadataBcs, pairIndex, axis, sliverBcs) {
      const hash = parseBlobMetadata(metadataBcs).hashes[pairIndex]?.[axis];
      return hash !== undefined && sha(sliverBcs).equals(hash);
    },
    async close() {},
  };
  return codec;
}

function encodeNow(data: Buffer, nShards: number): EncodedBlob & BlobIdInfo {
  const params = encodingParams(nShards);
  const s = symbolSize(data.length, params);
  if (s === undefined) throw new RangeError('DataTooLarge');
  const rowLength = params.nSecondary * s;
  const padded = Buffer.alloc(params.nPrimary * rowLength);
  data.copy(padded);
  const rows = Array.from({ length: params.nPrimary }, (_, r) => padded.subarray(r * rowLength, (r + 1) * rowLength));
  const systematic = rows.map((_, r) => r + 1);
  const pairs = Array.from({ length: nShards }, (_, p) => {
    const primaryData = p < params.nPrimary ? Buffer.from(rows[p]!) : combine(rows, lagrange(systematic, p + 1), rowLength);
    const secondaryData = Buffer.alloc(params.nPrimary * s, (p * 7 + data.length) & 0xff);
    return {
      primary: encodeSliverData({ data: primaryData, symbolSize: s, index: p }),
      secondary: encodeSliverData({ data: secondaryData, symbolSize: s, index: nShards - 1 - p }),
    };
  });
  const hashes = pairs.map(({ primary, secondary }) => ({ primary: sha(primary), secondary: sha(secondary) }));
  const blobId = blobIdOf(data.length, hashes);
  return {
    blobId,
    blobIdText: blobId.toString('base64url'),
    rootHash: sha(Buffer.concat(hashes.flatMap((h) => [h.primary, h.secondary]))),
    unencodedLength: data.length,
    encodedLength: encodedLength(data.length, nShards)!,
    symbolSize: s,
    nShards,
    metadataBcs: encodeBlobMetadata({ blobId, unencodedLength: data.length, hashes }),
    sliverPair: (p) => pairs[p]!,
    release: () => undefined, // its slivers are separate buffers, collected as usual
  };
}
