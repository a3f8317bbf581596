// Quilts against the references: the TypeScript SDK's quilt encoder (@mysten/walrus encodeQuilt,
// the layout of walrus-core quilt_encoding.rs) for the bytes, and @mysten/walrus-wasm for the quilt
// blob id, so that patch ids match what Walrus gives for the same files.
import { encodeQuilt as sdkEncodeQuilt } from '@mysten/walrus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobCodec, type NativeBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import { encodeQuiltPatchId, parseQuiltPatchId } from '../../../../src/publisher/quilt/patch-id.js';
import { encodeQuilt, QuiltFormatError, readQuiltIndex, readQuiltPatch, type QuiltFile } from '../../../../src/publisher/quilt/quilt-format.js';
import { randomBytes, rng } from '../codec/vector-input.js';
import { wasmBlobId } from '../service/native-publisher.js';

let codec: NativeBlobCodec;
beforeAll(async () => {
  codec = await openBlobCodec({ threads: 2 });
});
afterAll(async () => {
  await codec.close();
});


const random = rng(0x9017);
const CASES: Array<{ n: number; files: QuiltFile[] }> = [
  { n: 10, files: [{ identifier: 'a.txt', contents: Buffer.from('hello') }] },
  {
    n: 10,
    files: [
      { identifier: 'zeta.bin', contents: randomBytes(1, 3000) },
      { identifier: 'alpha.json', contents: Buffer.from('{"x":1}'), tags: { 'content-type': 'application/json', creator: 'tusk', a: '' } },
      { identifier: 'empty', contents: Buffer.alloc(0) },
    ],
  },
  ...Array.from({ length: 6 }, (_, c) => {
    const n = 7 + random(120);
    const count = 1 + random(Math.min(8, n - 2 * Math.floor((n - 1) / 3) - 1));
    return {
      n,
      files: Array.from({ length: count }, (_, i) => ({
        identifier: `file-${c}-${i}-${'x'.repeat(random(20))}`,
        contents: randomBytes(100 * c + i, random(50_000)),
        tags: random(2) ? { kind: `k${i}`, [`t${random(100)}`]: 'v' } : undefined,
      })),
    };
  }),
];

describe('quilt V1 against @mysten/walrus encodeQuilt and @mysten/walrus-wasm', () => {
  for (const [i, { n, files }] of CASES.entries()) {
    it(`case ${i}: n=${n}, ${files.length} files: same bytes, same quilt id and patch ids; every patch reads back`, async () => {
      const ours = encodeQuilt(files, n);
      const theirs = sdkEncodeQuilt({ blobs: files.map((f) => ({ contents: new Uint8Array(f.contents), identifier: f.identifier, tags: f.tags })), numShards: n });
      expect(Buffer.from(theirs.quilt).equals(ours.blob)).toBe(true);
      const quiltId = (await codec.blobId(ours.blob, n)).blobIdText;
      expect(quiltId).toBe(wasmBlobId(theirs.quilt, n));
      const sdkPatches = theirs.index.patches.map((p) => ({ identifier: p.identifier, start: p.startIndex, end: p.endIndex }));
      expect(ours.patches.map(({ identifier, start, end }) => ({ identifier, start, end }))).toEqual(sdkPatches);

      expect(readQuiltIndex(ours.blob, n)).toEqual(ours.patches);
      for (const patch of ours.patches) {
        const file = files.find((f) => f.identifier === patch.identifier)!;
        const got = readQuiltPatch(ours.blob, n, patch.start, patch.end);
        expect(got.identifier).toBe(file.identifier);
        expect(got.contents.equals(file.contents)).toBe(true);
        expect(got.tags).toEqual(file.tags ?? {});
        const id = encodeQuiltPatchId({ quiltId, ...patch });
        expect(parseQuiltPatchId(id)).toEqual({ quiltId, start: patch.start, end: patch.end });
      }
    });
  }

  it('refuses duplicate identifiers, no files, too many files, and blobs that are not quilts', () => {
    const f = { identifier: 'same', contents: Buffer.from('x') };
    expect(() => encodeQuilt([f, { ...f }], 10)).toThrow(QuiltFormatError);
    expect(() => encodeQuilt([], 10)).toThrow(QuiltFormatError);
    // n = 10: 7 columns, one taken by the index.
    expect(() => encodeQuilt(Array.from({ length: 7 }, (_, i) => ({ identifier: `f${i}`, contents: Buffer.from('x') })), 10)).toThrow(/at most 6/);
    expect(() => readQuiltIndex(Buffer.alloc(13), 10)).toThrow(QuiltFormatError);
    expect(() => readQuiltIndex(Buffer.alloc(4 * 7 * 2), 10)).toThrow(/version 0/);
    expect(parseQuiltPatchId('A'.repeat(43))).toBeUndefined();
  });
});
