// Fixtures for the storage-network tests: temp dirs and fake blobs whose metadata and slivers have
// the right BCS shapes and sizes (RS2 itself is not under test here).

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeBlobMetadata, encodeSliverData } from '../../../../src/publisher/nodes/bcs.js';
import { encodingParams, symbolSize } from '../../../../src/publisher/nodes/encoding-params.js';
import type { SliverPair } from '../../../../src/publisher/nodes/network.js';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-nodes-'));
}

export interface FakeBlob {
  blobId: Buffer;
  metadata: Buffer;
  symbolSize: number;
  slivers: (pair: number) => SliverPair;
}

/** A blob of `length` bytes at n shards: random id and hashes, sliver bytes derived from (id, pair, axis). */
export function fakeBlob(nShards: number, length: number, blobId: Buffer = randomBytes(32)): FakeBlob {
  const params = encodingParams(nShards);
  const s = symbolSize(length, params)!;
  const hashes = Array.from({ length: nShards }, () => ({ primary: randomBytes(32), secondary: randomBytes(32) }));
  const metadata = encodeBlobMetadata({ blobId, unencodedLength: length, hashes });
  const cache = new Map<number, SliverPair>();
  const fill = (size: number, seed: number) => {
    const data = Buffer.alloc(size);
    for (let i = 0; i < size; i++) data[i] = (blobId[i % 32]! ^ (seed * 31 + i)) & 0xff;
    return data;
  };
  return {
    blobId,
    metadata,
    symbolSize: s,
    slivers(pair) {
      let got = cache.get(pair);
      if (!got) {
        got = {
          primary: encodeSliverData({ data: fill(params.nSecondary * s, pair * 2), symbolSize: s, index: pair }),
          secondary: encodeSliverData({ data: fill(params.nPrimary * s, pair * 2 + 1), symbolSize: s, index: nShards - 1 - pair }),
        };
        cache.set(pair, got);
      }
      return got;
    },
  };
}
