// walrus-import (src/s3/walrus-import.ts): a large object's blobs, found in any order among the
// wallet's, back in byte order; sets that do not add up are reported, not imported; a version
// stored as two patches (a transition run again after a crash) comes back once.

import { describe, expect, it } from 'vitest';
import type { WalrusBlobs, WalrusStoredPatch } from '../../../src/base/walrus-blobs.js';
import type { WalrusOwnedBlob } from '../../../src/base/walrus-blobs.js';
import { assembleBlobObjects, importWalrusBucket } from '../../../src/s3/walrus-import.js';
import { walrusBlobAttributes, walrusPatchLabel } from '../../../src/s3/walrus-objects.js';
import type { S3Bucket, S3ObjectAttrs, S3PartAttrs } from '../../../src/s3/object-attrs.js';
import { openStore } from '../../../src/store/index.js';
import { bucket as bucketRecord, tempDir } from '../store/helpers.js';
import fs from 'node:fs';

const attrs: S3ObjectAttrs = { contentType: 'video/x-big', storageClass: 'WALRUS', acl: 'private', headers: {}, meta: {} };

/** The blobs of an object of `sizes` bytes each, as the sink labels them. */
function blobsOf(bucket: string, key: string, etag: string, sizes: number[]): WalrusOwnedBlob[] {
  const label = walrusPatchLabel(bucket, key, attrs, etag, 1000);
  const total = sizes.reduce((a, b) => a + b, 0);
  let offset = 0;
  return sizes.map((size, i) => {
    const blob = { blobId: `${key}-${etag}-${i}`, size, attributes: walrusBlobAttributes(label, total, i, offset) };
    offset += size;
    return blob;
  });
}

describe('assembleBlobObjects', () => {
  it('groups by key and ETag, orders by index, and keeps only the bucket asked for', () => {
    const big = blobsOf('b', 'big +%', 'e1', [10, 10, 5]);
    const older = blobsOf('b', 'big +%', 'e0', [10, 2]);
    const elsewhere = blobsOf('other', 'x', 'e1', [3]);
    const { objects, incomplete } = assembleBlobObjects([big[2]!, older[1]!, big[0]!, elsewhere[0]!, big[1]!, older[0]!], 'b');
    expect(incomplete).toEqual([]);
    const byEtag = new Map(objects.map((o) => [o.etag, o]));
    expect([...byEtag.keys()].sort()).toEqual(['e0', 'e1']);
    expect(byEtag.get('e1')).toMatchObject({
      key: 'big +%',
      tags: { 'content-type': 'video/x-big', 'tusk-last-modified': '1000' },
      location: {
        size: 25,
        blobs: [
          { blobId: 'big +%-e1-0', offset: 0, length: 10 },
          { blobId: 'big +%-e1-1', offset: 10, length: 10 },
          { blobId: 'big +%-e1-2', offset: 20, length: 5 },
        ],
      },
    });
    expect(byEtag.get('e0')!.location.size).toBe(12);
  });

  it('reports a set with a blob missing, one that does not add up, and one whose blobs disagree; a duplicate blob counts once', () => {
    const missing = blobsOf('b', 'missing', 'e', [10, 10, 5]);
    const short = blobsOf('b', 'short', 'e', [10, 10]);
    short[1] = { ...short[1]!, size: 9 };
    const disagree = blobsOf('b', 'disagree', 'e', [10, 10]);
    disagree[1] = { ...disagree[1]!, attributes: { ...disagree[1]!.attributes, 'tusk-size': '21' } };
    const twice = blobsOf('b', 'twice', 'e', [4, 4]);
    const { objects, incomplete } = assembleBlobObjects([missing[0]!, missing[2]!, ...short, ...disagree, ...twice, twice[0]!], 'b');
    expect(objects.map((o) => o.key)).toEqual(['twice']);
    expect(incomplete).toEqual([
      { key: 'missing', etag: 'e', reason: 'blob 1 of the object is missing' },
      { key: 'short', etag: 'e', reason: 'its blobs hold 19 of its 20 bytes' },
      { key: 'disagree', etag: 'e', reason: 'blob 1 (disagree-e-1) does not follow blob 0' },
    ]);
  });
});

describe('importWalrusBucket', () => {
  it('imports a version found as two patches once, the older version of its key beside it, another key on blobs a version has, and nothing when run again', async () => {
    const dir = tempDir();
    const store = await openStore<S3ObjectAttrs, S3PartAttrs, S3Bucket>({ dataDir: dir, durability: 'relaxed' });
    try {
      await store.createBucket({ ...bucketRecord('b'), versioning: 'Enabled' });
      const patch = (patchId: string, etag: string, lastModified: number): WalrusStoredPatch => ({
        quiltId: `quilt-${patchId}`,
        patchId,
        size: 4,
        tags: walrusPatchLabel('b', 'k', attrs, etag, lastModified).tags,
      });
      // the same version in two quilts, and an older version of the key
      const patches = [patch('p1', 'e1', 2000), patch('p2', 'e1', 2000), patch('p0', 'e0', 1000)];
      const owned: WalrusOwnedBlob[] = patches.map((p) => ({ blobId: p.quiltId, size: 100, attributes: {} }));
      const walrus = {
        ownedBlobs: async () => owned,
        async *quiltPatches(ids: Iterable<string>) {
          const wanted = new Set(ids);
          yield* patches.filter((p) => wanted.has(p.quiltId));
        },
      } as unknown as WalrusBlobs;
      expect(await importWalrusBucket({ store, walrus }, 'b')).toEqual({ imported: 2, present: 1, incomplete: [] });
      const versions = store.listVersions('b', { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 10 }).items.flatMap((i) => (i.kind === 'version' ? [i.version] : []));
      expect(versions.map((v) => v.etag)).toEqual(['e1', 'e0']);
      // another key on the same blobs (the same bytes stored under two keys) is not taken for it
      const shared = blobsOf('b', 'copy', 'e2', [10, 5]);
      const writer = store.beginWrite(0);
      await writer.commit('b', 'original', { etag: 'e2', lastModified: 500, attrs: { ...attrs, walrus: { size: 15, blobs: [{ blobId: shared[0]!.blobId, offset: 0, length: 10 }, { blobId: shared[1]!.blobId, offset: 10, length: 5 }] } } });
      owned.push(...shared);
      expect(await importWalrusBucket({ store, walrus }, 'b')).toEqual({ imported: 1, present: 3, incomplete: [] });
      expect(store.getObject('b', 'copy')?.attrs.walrus?.blobs.map((b) => b.blobId)).toEqual(shared.map((b) => b.blobId));
      // run again: every version is there already, the current one and the older one
      expect(await importWalrusBucket({ store, walrus }, 'b')).toEqual({ imported: 0, present: 4, incomplete: [] });
      expect(store.listVersions('b', { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 10 }).items).toHaveLength(4);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
