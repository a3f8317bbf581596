// Property test against the reference, @mysten/walrus-wasm@0.3.0 (Walrus's own encoder, walrus.md
// §13): random blob sizes and shard counts give the same blob id, metadata and every sliver BCS,
// and each implementation decodes what the other encoded.
import { BlobEncoder } from '@mysten/walrus-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openBlobCodec, type NativeBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import { randomBytes, rng } from './vector-input.js';

let codec: NativeBlobCodec;

beforeAll(async () => {
  codec = await openBlobCodec({ threads: 2 });
});

afterAll(async () => {
  await codec.close();
});

interface WasmMetadata {
  blob_id: number[];
  metadata: { V1: { unencoded_length: number; hashes: Array<{ primary_hash: { Digest: number[] }; secondary_hash: { Digest: number[] } }> } };
}

function sourceSymbols(n: number): [number, number] {
  const f = Math.floor((n - 1) / 3);
  return [n - 2 * f, n - f];
}

const random = rng(0x5eed);
const CASES = Array.from({ length: 20 }, (_, i) => {
  const n = 4 + random(197);
  const [p, s] = sourceSymbols(n);
  const size = random(Math.min(256 * 1024, p * s * 65534) + 1);
  return { n, size, seed: 1000 + i };
});

describe('RS2 against @mysten/walrus-wasm@0.3.0', () => {
  for (const { n, size, seed } of CASES) {
    it(`n=${n}, ${size} bytes: same blob id, metadata and slivers; cross-decodes`, async () => {
      const data = randomBytes(seed, size);
      const e = await codec.encode(data, n);

      const wasm = new BlobEncoder(n);
      try {
        const [blobId] = wasm.compute_metadata(data) as [number[]];
        expect(Buffer.from(blobId).toString('base64url')).toBe(e.blobIdText);

        const { primary: pLen, secondary: sLen } = e.sliverPair(0);
        const primaries = Array.from({ length: n }, () => new Uint8Array(pLen.length));
        const secondaries = Array.from({ length: n }, () => new Uint8Array(sLen.length));
        const [meta, root] = wasm.encode(data, primaries, secondaries) as [WasmMetadata, { Digest: number[] }];
        expect(Buffer.from(root.Digest).equals(e.rootHash)).toBe(true);
        expect(Buffer.from(meta.blob_id).equals(e.blobId)).toBe(true);
        const hashes = meta.metadata.V1.hashes;
        expect(hashes).toHaveLength(n);
        // wasm fills buffer p with pair p's slivers: primary p and secondary n − 1 − p (walrus.md §4).
        for (let p = 0; p < n; p++) {
          const pair = e.sliverPair(p);
          expect(Buffer.from(primaries[p]!).equals(pair.primary), `primary sliver ${p}`).toBe(true);
          expect(Buffer.from(secondaries[p]!).equals(pair.secondary), `secondary sliver of pair ${p}`).toBe(true);
          // hash p: after blob id, version, type, length, ULEB128(n) and its Node::Digest tag (walrus.md §8.2)
          const at = 42 + (n < 128 ? 1 : 2) + 66 * p + 1;
          expect(e.metadataBcs.subarray(at, at + 32).equals(Buffer.from(hashes[p]!.primary_hash.Digest))).toBe(true);
          expect(e.metadataBcs.subarray(at + 33, at + 65).equals(Buffer.from(hashes[p]!.secondary_hash.Digest))).toBe(true);
        }

        // Ours decodes the reference's slivers of a random n − 2f pairs; the reference decodes ours.
        const pick = rng(seed);
        const kept = new Set<number>();
        while (kept.size < sourceSymbols(n)[0]) kept.add(pick(n));
        const theirs = new Map([...kept].map((p) => [p, Buffer.from(primaries[p]!)]));
        expect((await codec.decode(e.metadataBcs, theirs, n)).equals(data)).toBe(true);
        const out = new Uint8Array(size);
        const ours = [...kept].map((p) => new Uint8Array(e.sliverPair(p).primary));
        wasm.decode(meta.blob_id, BigInt(size), ours, out);
        expect(Buffer.from(out).equals(data)).toBe(true);
      } finally {
        wasm.free();
      }
    });
  }
});
