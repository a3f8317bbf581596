import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  encodeBlobMetadata,
  encodeSliverData,
  metadataLength,
  parseBlobMetadata,
  parseSliverData,
  readUleb128,
  writeUleb128,
} from '../../../../src/publisher/nodes/bcs.js';
import { encodingParams, symbolSize } from '../../../../src/publisher/nodes/encoding-params.js';
import { structuralOnlyVerifier } from '../../../../src/publisher/nodes/verifier.js';
import { fakeBlob } from './helpers.js';

describe('ULEB128', () => {
  it('round-trips and refuses non-canonical or over-long encodings', () => {
    for (const v of [0, 1, 127, 128, 1000, 16_383, 16_384, 2 ** 32 - 1]) {
      const buf = Buffer.alloc(5);
      const end = writeUleb128(v, buf, 0);
      expect(readUleb128(buf.subarray(0, end), 0)).toEqual({ value: v, next: end });
    }
    expect(readUleb128(Buffer.from([0xe8, 0x07]), 0)?.value).toBe(1000);
    expect(readUleb128(Buffer.from([0x80, 0x00]), 0)).toBeUndefined();
    expect(readUleb128(Buffer.from([0x80]), 0)).toBeUndefined();
    expect(readUleb128(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x1f]), 0)).toBeUndefined();
  });
});

describe('BlobMetadataWithId (walrus.md §8.2)', () => {
  it('has the documented layout and size (66,044 bytes at n = 1000)', () => {
    expect(metadataLength(1000)).toBe(66_044);
    const blobId = randomBytes(32);
    const hashes = Array.from({ length: 10 }, () => ({ primary: randomBytes(32), secondary: randomBytes(32) }));
    const bcs = encodeBlobMetadata({ blobId, unencodedLength: 0x0102030405, hashes });
    expect(bcs.length).toBe(32 + 1 + 1 + 8 + 1 + 66 * 10);
    expect(bcs.subarray(0, 32).equals(blobId)).toBe(true);
    expect(bcs.subarray(32, 43).toString('hex')).toBe('0001' + '0504030201000000' + '0a');
    expect(bcs[43]).toBe(1);
    expect(bcs.subarray(44, 76).equals(hashes[0]!.primary)).toBe(true);
    expect(bcs[76]).toBe(1);
    expect(bcs.subarray(77, 109).equals(hashes[0]!.secondary)).toBe(true);
    const parsed = parseBlobMetadata(bcs);
    expect(parsed.blobId.equals(blobId)).toBe(true);
    expect(parsed.unencodedLength).toBe(0x0102030405);
    expect(parsed.pairCount).toBe(10);
    expect(parsed.bcs).toBe(bcs);
    expect(parsed.hashes.map((h) => [h.primary.toString('hex'), h.secondary.toString('hex')])).toEqual(
      hashes.map((h) => [h.primary.toString('hex'), h.secondary.toString('hex')]),
    );
  });

  it('rejects RaptorQ, unknown versions, Empty hashes and trailing or missing bytes', () => {
    const { metadata } = fakeBlob(10, 100);
    const patched = (at: number, value: number) => {
      const copy = Buffer.from(metadata);
      copy[at] = value;
      return copy;
    };
    expect(() => parseBlobMetadata(patched(33, 0))).toThrow(/encoding type 0/);
    expect(() => parseBlobMetadata(patched(32, 1))).toThrow(/metadata version/);
    expect(() => parseBlobMetadata(patched(43, 0))).toThrow(/not a digest/);
    // the last pair's secondary hash too: every tag is checked, not only those of hashes read
    expect(() => parseBlobMetadata(patched(metadata.length - 33, 0))).toThrow(new RegExp(`hash at byte ${metadata.length - 33} is not a digest`));
    expect(() => parseBlobMetadata(Buffer.concat([metadata, Buffer.of(0)]))).toThrow(/INVALID|pairs of hashes/);
    expect(() => parseBlobMetadata(metadata.subarray(0, metadata.length - 1))).toThrow(/pairs of hashes/);
    expect(() => parseBlobMetadata(patched(33, 0))).toThrow(expect.objectContaining({ code: 'INVALID_METADATA', status: 400 }));
  });
});

describe('SliverData (walrus.md §8.1) and the structural verifier', () => {
  it('encodes ULEB(len) ‖ data ‖ u16 symbol size ‖ u16 index', () => {
    const bcs = encodeSliverData({ data: Buffer.from('abcd'), symbolSize: 2, index: 0x0102 });
    expect(bcs.toString('hex')).toBe('04' + Buffer.from('abcd').toString('hex') + '0200' + '0201');
    expect(parseSliverData(bcs)).toEqual({ data: Buffer.from('abcd'), symbolSize: 2, index: 0x0102 });
    expect(() => parseSliverData(bcs.subarray(0, 8))).toThrow(/length prefix/);
  });

  it('accepts exactly the sizes and indices that follow from the metadata', async () => {
    const n = 10;
    const params = encodingParams(n);
    const blob = fakeBlob(n, 1000); // C = 28 → S = ceil(1000/28) = 36
    expect(blob.symbolSize).toBe(36);
    const metadata = parseBlobMetadata(blob.metadata);
    await structuralOnlyVerifier.verifyMetadata(blob.blobId, blob.metadata, metadata);
    await expect(async () => structuralOnlyVerifier.verifyMetadata(randomBytes(32), blob.metadata, metadata)).rejects.toThrow(/blob id/);
    const { primary, secondary } = blob.slivers(3);
    await structuralOnlyVerifier.verifySliver(metadata, 3, 'primary', primary);
    await structuralOnlyVerifier.verifySliver(metadata, 3, 'secondary', secondary);
    // Pair 3 holds secondary sliver n−1−3 = 6; a primary of pair 4 or a wrong symbol size is refused.
    await expect(async () => structuralOnlyVerifier.verifySliver(metadata, 3, 'primary', blob.slivers(4).primary)).rejects.toThrow(/index 4, expected 3/);
    await expect(async () => structuralOnlyVerifier.verifySliver(metadata, 3, 'secondary', primary)).rejects.toThrow(/data bytes/);
    const wrongSymbol = encodeSliverData({ data: Buffer.alloc(params.nSecondary * 38), symbolSize: 38, index: 3 });
    await expect(async () => structuralOnlyVerifier.verifySliver(metadata, 3, 'primary', wrongSymbol)).rejects.toThrow(/symbol size 38/);
  });

  it('refuses metadata of a blob larger than C · 65534 bytes', async () => {
    const params = encodingParams(10);
    expect(symbolSize(params.maxBlobSize, params)).toBe(65_534);
    expect(symbolSize(params.maxBlobSize + 1, params)).toBeUndefined();
    const blobId = randomBytes(32);
    const hashes = Array.from({ length: 10 }, () => ({ primary: randomBytes(32), secondary: randomBytes(32) }));
    const bcs = encodeBlobMetadata({ blobId, unencodedLength: params.maxBlobSize + 1, hashes });
    await expect(async () => structuralOnlyVerifier.verifyMetadata(blobId, bcs, parseBlobMetadata(bcs))).rejects.toThrow(/exceeds/);
  });
});
