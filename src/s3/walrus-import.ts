// `tusk admin buckets walrus-import BUCKET` (issue #34 item 5, README "S3 objects on Walrus"): rebuilds a
// bucket's index entries from the wallet's quilts on the Walrus network, each patch's tags naming
// its bucket, key, content type, ETag, checksum and time (walrusPatchLabel), so that a fresh Tusk
// given the network (on the embedded one: the data directory's ledger/ and nodes/) serves again
// every small object stored there. Objects of their own blobs carry no such names yet.

import type { WalrusStoredPatch } from '../base/walrus-blobs.js';
import type { S3Services } from './context.js';
import type { ChecksumAlgorithm, S3ObjectAttrs, StoredChecksum } from './object-attrs.js';
import { WALRUS_STORAGE_CLASS, WALRUS_TAG } from './walrus-objects.js';

export interface WalrusImportResult {
  /** index entries written */
  imported: number;
  /** patches of the bucket already the current version of their key (an import run again) */
  present: number;
}

/**
 * Commits one version per patch tagged with `bucket`, oldest first (so each key's latest write is
 * its current version); the bucket must exist. Patches of objects deleted since come back too:
 * nothing on the network records a delete.
 */
export async function importWalrusBucket(services: S3Services, bucket: string): Promise<WalrusImportResult> {
  const patches: WalrusStoredPatch[] = [];
  for await (const p of services.walrus!.ownedPatches!()) {
    if (p.tags[WALRUS_TAG.bucket] === bucket && p.tags[WALRUS_TAG.key] !== undefined && p.tags[WALRUS_TAG.etag] !== undefined) patches.push(p);
  }
  patches.sort((a, b) => Number(a.tags[WALRUS_TAG.lastModified] ?? 0) - Number(b.tags[WALRUS_TAG.lastModified] ?? 0));
  const result: WalrusImportResult = { imported: 0, present: 0 };
  for (const p of patches) {
    const key = p.tags[WALRUS_TAG.key]!;
    if (services.store.getObject(bucket, key)?.attrs.walrus?.blobs[0]?.patchId === p.patchId) {
      result.present++;
      continue;
    }
    const checksum = checksumOf(p.tags[WALRUS_TAG.checksum]);
    const attrs: S3ObjectAttrs = {
      contentType: p.tags[WALRUS_TAG.contentType] ?? 'binary/octet-stream',
      storageClass: WALRUS_STORAGE_CLASS,
      acl: 'private',
      headers: {},
      meta: {},
      ...(checksum ? { checksum } : {}),
      walrus: { size: p.size, blobs: [{ blobId: p.quiltId, offset: 0, length: p.size, patchId: p.patchId }] },
    };
    const writer = services.store.beginWrite(0);
    try {
      await writer.commit(bucket, key, { etag: p.tags[WALRUS_TAG.etag]!, lastModified: Number(p.tags[WALRUS_TAG.lastModified] ?? Date.now()), attrs });
    } catch (e) {
      await writer.abort();
      throw e;
    }
    result.imported++;
  }
  return result;
}

/** The `tusk-checksum` tag, `ALGORITHM:TYPE:base64`, back as the stored checksum. */
function checksumOf(tag: string | undefined): StoredChecksum | undefined {
  const m = tag?.match(/^(CRC32|CRC32C|CRC64NVME|SHA1|SHA256):(FULL_OBJECT|COMPOSITE):([A-Za-z0-9+/=]+)$/);
  return m ? { algorithm: m[1] as ChecksumAlgorithm, type: m[2] as StoredChecksum['type'], value: m[3]! } : undefined;
}
