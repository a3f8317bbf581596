// `tusk admin buckets walrus-import BUCKET` (issue #34 item 5, README "S3 objects on Walrus"): rebuilds a
// bucket's index entries from the wallet's blobs on the Walrus network, so that a fresh Tusk given the
// network (on the embedded one: the data directory's ledger/ and nodes/; on Sui: the wallet) serves again every object
// stored there: a small object from its quilt patch's tags (walrusPatchLabel), a larger one from its
// blobs' attributes (walrusBlobAttributes), which name the same facts plus each blob's place.

import type { WalrusOwnedBlob, WalrusStoredPatch } from '../base/walrus-blobs.js';
import type { S3Services } from './context.js';
import type { ChecksumAlgorithm, S3ObjectAttrs, StoredChecksum } from './object-attrs.js';
import { eachVersionPage } from './version-pages.js';
import { WALRUS_STORAGE_CLASS, WALRUS_TAG, type WalrusLocation } from './walrus-objects.js';

export interface WalrusImportResult {
  /** index entries written */
  imported: number;
  /** objects the bucket already has as one of its versions (an import run again), or found twice */
  present: number;
  /** objects whose blobs do not add up (some missing, or sizes that disagree): not imported */
  incomplete: Array<{ key: string; etag: string; reason: string }>;
}

/** One object the network describes: its facts (tags or attributes) and where its bytes are. */
export interface ImportedObject {
  key: string;
  etag: string;
  tags: Record<string, string>;
  location: WalrusLocation;
}

/**
 * The objects of `bucket` among the wallet's blobs carrying attributes: blobs grouped by key and
 * ETag, ordered by their index; a group whose indices are not 0..n-1, whose offsets do not follow
 * one another or whose sizes do not add up to the object's size is reported, not imported.
 */
export function assembleBlobObjects(blobs: Iterable<WalrusOwnedBlob>, bucket: string): { objects: ImportedObject[]; incomplete: WalrusImportResult['incomplete'] } {
  const groups = new Map<string, Map<number, WalrusOwnedBlob>>();
  for (const b of blobs) {
    const a = b.attributes;
    const key = a[WALRUS_TAG.key];
    const etag = a[WALRUS_TAG.etag];
    if (a[WALRUS_TAG.bucket] !== bucket || key === undefined || etag === undefined) continue;
    const id = JSON.stringify([key, etag]);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = new Map()));
    // one blob id may have several Blob objects (stored again): the same attributes, kept once
    group.set(Number(a[WALRUS_TAG.blobIndex]), b);
  }
  const objects: ImportedObject[] = [];
  const incomplete: WalrusImportResult['incomplete'] = [];
  for (const [id, group] of groups) {
    const [key, etag] = JSON.parse(id) as [string, string];
    const ordered = [...group.entries()].sort((x, y) => x[0] - y[0]).map(([, b]) => b);
    const tags = ordered[0]!.attributes;
    const size = Number(tags[WALRUS_TAG.size]);
    let offset = 0;
    let reason: string | undefined;
    ordered.forEach((b, i) => {
      const a = b.attributes;
      if (reason) return;
      if (Number(a[WALRUS_TAG.blobIndex]) !== i) reason = `blob ${i} of the object is missing`;
      else if (Number(a[WALRUS_TAG.blobOffset]) !== offset || Number(a[WALRUS_TAG.size]) !== size) reason = `blob ${i} (${b.blobId}) does not follow blob ${i - 1}`;
      offset += b.size;
    });
    if (!reason && offset !== size) reason = `its blobs hold ${offset} of its ${size} bytes`;
    if (reason) {
      incomplete.push({ key, etag, reason });
      continue;
    }
    let at = 0;
    const refs = ordered.map((b) => ({ blobId: b.blobId, offset: (at += b.size) - b.size, length: b.size }));
    objects.push({ key, etag, tags, location: { size, blobs: refs } });
  }
  return { objects, incomplete };
}

/** The objects of a quilt's patches tagged with `bucket`. */
function patchObjects(patches: WalrusStoredPatch[], bucket: string): ImportedObject[] {
  return patches
    .filter((p) => p.tags[WALRUS_TAG.bucket] === bucket && p.tags[WALRUS_TAG.key] !== undefined && p.tags[WALRUS_TAG.etag] !== undefined)
    .map((p) => ({
      key: p.tags[WALRUS_TAG.key]!,
      etag: p.tags[WALRUS_TAG.etag]!,
      tags: p.tags,
      location: { size: p.size, blobs: [{ blobId: p.quiltId, offset: 0, length: p.size, patchId: p.patchId }] },
    }));
}

/** A key and where its bytes are, as one string: equal for the same key on the same blobs (or patch) in the same order. */
function placeOf(key: string, location: WalrusLocation): string {
  return `${key}\n${location.blobs.map((b) => b.patchId ?? b.blobId).join(',')}`;
}

/**
 * Commits one version per object tagged with `bucket`, oldest first (so each key's latest write is
 * its current version); the bucket must exist. Objects deleted since come back too: nothing on the
 * network records a delete.
 */
export async function importWalrusBucket(services: Pick<S3Services, 'store' | 'walrus'>, bucket: string): Promise<WalrusImportResult> {
  const walrus = services.walrus!;
  const owned = await walrus.ownedBlobs!();
  // a blob carrying an object's attributes holds that object's bytes; the others may be quilts
  const quiltIds = owned.filter((b) => b.attributes[WALRUS_TAG.bucket] === undefined).map((b) => b.blobId);
  const patches: WalrusStoredPatch[] = [];
  for await (const p of walrus.quiltPatches(quiltIds)) patches.push(p);
  const fromBlobs = assembleBlobObjects(owned, bucket);
  const objects = [...patchObjects(patches, bucket), ...fromBlobs.objects];
  const lastModified = (o: ImportedObject): number => Number(o.tags[WALRUS_TAG.lastModified] ?? 0);
  objects.sort((a, b) => lastModified(a) - lastModified(b));
  const result: WalrusImportResult = { imported: 0, present: 0, incomplete: fromBlobs.incomplete };
  // what the bucket has already: its versions on WALRUS, each key with its place (an import run
  // again), and the versions found here (a transition that crashed before its swap, then ran
  // again, stored a version as a second patch in another quilt)
  const places = new Set<string>();
  await eachVersionPage(services.store, bucket, 1000, (items) => {
    for (const item of items) if (item.kind === 'version' && item.version.attrs.walrus) places.add(placeOf(item.version.key, item.version.attrs.walrus));
  });
  const versions = new Set<string>();
  for (const o of objects) {
    const version = `${o.key}\n${o.etag}\n${lastModified(o)}`;
    const place = placeOf(o.key, o.location);
    const present = versions.has(version) || places.has(place);
    versions.add(version);
    if (present) {
      result.present++;
      continue;
    }
    places.add(place);
    const checksum = checksumOf(o.tags[WALRUS_TAG.checksum]);
    const attrs: S3ObjectAttrs = {
      contentType: o.tags[WALRUS_TAG.contentType] ?? 'binary/octet-stream',
      storageClass: WALRUS_STORAGE_CLASS,
      acl: 'private',
      headers: {},
      meta: {},
      ...(checksum ? { checksum } : {}),
      walrus: o.location,
    };
    const writer = services.store.beginWrite(0);
    try {
      await writer.commit(bucket, o.key, { etag: o.etag, lastModified: Number(o.tags[WALRUS_TAG.lastModified] ?? Date.now()), attrs });
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
