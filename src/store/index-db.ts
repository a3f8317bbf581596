// The LMDB index: one environment, one named database per concern, binary keys laid out so that
// LMDB's memcmp order is S3's listing order (UTF-8 byte order, s3.md §1.4). Layout: docs/FORMAT.md.

import { open, type Database, type RootDatabase } from 'lmdb';
import path from 'node:path';
import { StoreError } from './errors.js';
import { observeLmdbCommitFailures } from '../base/storage-failures.js';
import { MAX_BUCKET_BYTES, MAX_OBJECT_KEY_BYTES } from './format.js';
import type { BucketRecord, Extent, ObjectVersion } from './types.js';
import type { StoredNotice } from './redo-ops.js';

/** Version of the index layout, stored under `meta`/`format`; a layout change bumps it. */
export const INDEX_FORMAT_VERSION = 2;

/** Where msgpackr keeps the shared record structures (field-name tables) of a database keyed by
 * bucket names: 0xFF starts no bucket name, so no bucket's key range contains it. */
const STRUCTURES_KEY = Buffer.from([0xff, 0x73]);

/** A version as stored: the key lives in the LMDB key; `seq` orders it among the key's versions. */
export type StoredVersion = Omit<ObjectVersion, 'key'> & { seq: number };

export interface StoredUpload {
  initiated: number;
  attrs: unknown;
}

export interface StoredPart {
  size: number;
  etag: string;
  lastModified: number;
  extents: Extent[];
  attrs: unknown;
  /** body bytes lost (damage.ts) */
  damaged?: number;
}

/** Per-segment accounting, updated in the transaction that commits or removes a record. */
export interface SegmentStats {
  /** body bytes referenced by versions and parts (a shared extent counts once per reference) */
  live: number;
  /** number of references */
  records: number;
  /** end of the furthest committed record; recovery truncates the file here */
  end: number;
}

export interface IndexDb {
  env: RootDatabase;
  buckets: Database<BucketRecord, Buffer>;
  /** `bucket 0x00 key` → the latest version (an object or a delete marker); present iff the key has any version */
  objects: Database<StoredVersion, Buffer>;
  /** `bucket 0x00 key 0x00 ~seq` → the key's other (noncurrent) versions, newest first */
  versions: Database<StoredVersion, Buffer>;
  /** `bucket 0x00 key` → seq of the key's noncurrent null version, when it has one */
  nulls: Database<number, Buffer>;
  /** `bucket 0x00 key 0x00 uploadId` → an incomplete multipart upload */
  uploads: Database<StoredUpload, Buffer>;
  /** `uploadId partNumber(u16 BE)` → a part of an incomplete upload */
  parts: Database<StoredPart, Buffer>;
  segments: Database<SegmentStats, number>;
  /** seq → a change to announce (redo-ops.ts StoredNotice), until every notification target has it */
  notices: Database<StoredNotice, number>;
  /** seqs of redo operations applied past the `applied` marker (redo-log.ts) */
  recent: Database<number, number>;
  meta: Database<unknown, string>;
}

/** The databases whose values hold extents: versions (latest and noncurrent) and parts. */
export type ExtentTable = 'objects' | 'versions' | 'parts';

/** One of them, typed for what compaction and damage marking do with any of them. */
export function extentTable(db: IndexDb, table: ExtentTable): {
  get(key: Buffer): StoredVersion | StoredPart | undefined;
  putSync(key: Buffer, value: StoredVersion | StoredPart): void;
} {
  return db[table] as Database<StoredVersion | StoredPart, Buffer>;
}

/** `readOnly`: for a read replica in another thread, which never writes (the writer created and upgraded the index). */
export function openIndex(dataDir: string, { readOnly = false } = {}): IndexDb {
  if (!readOnly) observeLmdbCommitFailures();
  const env = open({ path: path.join(dataDir, 'index.mdb'), compression: false });
  const keyed = { keyEncoding: 'binary' as const, sharedStructuresKey: STRUCTURES_KEY };
  const db: IndexDb = {
    env,
    buckets: env.openDB<BucketRecord, Buffer>('buckets', { keyEncoding: 'binary' }),
    objects: env.openDB<StoredVersion, Buffer>('objects', keyed),
    versions: env.openDB<StoredVersion, Buffer>('versions', keyed),
    nulls: env.openDB<number, Buffer>('nulls', { keyEncoding: 'binary' }),
    uploads: env.openDB<StoredUpload, Buffer>('uploads', keyed),
    parts: env.openDB<StoredPart, Buffer>('parts', { keyEncoding: 'binary' }),
    segments: env.openDB<SegmentStats, number>('segments', { keyEncoding: 'uint32' }),
    notices: env.openDB<StoredNotice, number>('notices', {}),
    recent: env.openDB<number, number>('recent', {}),
    meta: env.openDB<unknown, string>('meta', {}),
  };
  const version = db.meta.get('format');
  if (readOnly && version !== INDEX_FORMAT_VERSION) {
    env.close();
    throw new Error(`index format ${String(version)}: a read replica opens only an index the writer has set up`);
  }
  if (version === undefined) db.meta.putSync('format', INDEX_FORMAT_VERSION);
  else if (version === 1) upgradeFromVersion1(db);
  else if (version !== INDEX_FORMAT_VERSION) {
    env.close();
    throw new Error(`index format ${String(version)} is not supported (expected ${INDEX_FORMAT_VERSION})`);
  }
  return db;
}

/** Fields every version-1 object record had besides its extents; the rest of it becomes `attrs`. */
type Version1Object = { size: number; etag: string; lastModified: number; versionId: string; extents: Extent[] } & Record<string, unknown>;

/**
 * Version 1 stored the S3 face's fields flat in each object record and had no versions. The
 * upgrade moves them into `attrs` in one transaction: a crash leaves version 1 whole, to be upgraded
 * at the next start.
 */
function upgradeFromVersion1(db: IndexDb): void {
  let seq = Date.now() * 1024;
  db.env.transactionSync(() => {
    for (const { key, value } of db.objects.getRange({})) {
      if (!Buffer.isBuffer(key) || key.equals(STRUCTURES_KEY)) continue;
      const { size, etag, lastModified, extents, versionId: _v, ...attrs } = value as unknown as Version1Object;
      const stored: StoredVersion = {
        versionId: 'null',
        deleteMarker: false,
        size,
        etag,
        lastModified,
        extents,
        attrs,
        seq: ++seq,
      };
      db.objects.putSync(key, stored);
    }
    db.meta.putSync('seq', seq);
    db.meta.putSync('format', INDEX_FORMAT_VERSION);
  });
}

function invalidBucket(bucket: string): StoreError {
  return new StoreError('invalid-name', `invalid bucket name ${JSON.stringify(bucket)}`, 'bucket');
}

export function bucketKey(bucket: string): Buffer {
  const b = Buffer.from(bucket, 'utf8');
  if (b.length === 0 || b.length > MAX_BUCKET_BYTES || b.includes(0)) throw invalidBucket(bucket);
  return b;
}

/** Room for any valid record key, and for an invalid one's bytes up to where the check stops it. */
const scratchKey = Buffer.allocUnsafe(4 * (MAX_BUCKET_BYTES + 1 + MAX_OBJECT_KEY_BYTES));

/**
 * Writes `bucket 0x00 key` into `scratchKey` and answers its length, or which name no object can
 * have (empty, too long, 0x00 in the bucket).
 */
function writeObjectKey(bucket: string, key: string): number | 'bucket' | 'key' {
  // a string of more UTF-16 units than the limit has more UTF-8 bytes too
  if (bucket.length > MAX_BUCKET_BYTES || bucket.includes('\0')) return 'bucket';
  const b = scratchKey.write(bucket, 0, 'utf8');
  if (b === 0 || b > MAX_BUCKET_BYTES) return 'bucket';
  if (key.length > MAX_OBJECT_KEY_BYTES) return 'key';
  scratchKey[b] = 0;
  const k = scratchKey.write(key, b + 1, 'utf8');
  if (k === 0 || k > MAX_OBJECT_KEY_BYTES) return 'key';
  return b + 1 + k;
}

/** `bucket 0x00 key`: bucket names never contain 0x00, so one bucket's keys form one contiguous range. */
export function objectKey(bucket: string, key: string): Buffer {
  const n = writeObjectKey(bucket, key);
  if (n === 'bucket') throw invalidBucket(bucket);
  if (n === 'key') {
    const keyBytes = Buffer.byteLength(key, 'utf8');
    throw new StoreError('invalid-name', `key of ${keyBytes} bytes (1 to ${MAX_OBJECT_KEY_BYTES} allowed)`, 'key', {
      size: keyBytes,
      max: MAX_OBJECT_KEY_BYTES,
    });
  }
  return Buffer.from(scratchKey.subarray(0, n));
}

/** For lookups: undefined when no object can have this name (too long, empty, 0x00 in the bucket). */
export function lookupObjectKey(bucket: string, key: string): Buffer | undefined {
  const n = writeObjectKey(bucket, key);
  return typeof n === 'number' ? Buffer.from(scratchKey.subarray(0, n)) : undefined;
}

/**
 * lookupObjectKey as a view of a buffer shared by every call, for a lookup made at once
 * (`objects.get`): valid until the next call. A GET's key costs no allocation but the view.
 */
export function lookupObjectKeyNow(bucket: string, key: string): Buffer | undefined {
  const n = writeObjectKey(bucket, key);
  return typeof n === 'number' ? scratchKey.subarray(0, n) : undefined;
}

export function lookupBucketKey(bucket: string): Buffer | undefined {
  try {
    return bucketKey(bucket);
  } catch {
    return undefined;
  }
}

/** `bucket 0x00`: the first byte string of the bucket's object range. */
export function bucketObjectsBase(bucket: string): Buffer {
  const b = bucketKey(bucket);
  return Buffer.concat([b, Buffer.of(0)]);
}

/** Exclusive upper bound of every key starting with `base` (0xFF never occurs in UTF-8). */
export function rangeEnd(base: Buffer): Buffer {
  return Buffer.concat([base, Buffer.of(0xff)]);
}

const SEQ_BYTES = 8;
const MAX_SEQ = 2 ** 53 - 1;

/** `objectKey 0x00 (MAX_SEQ − seq)` as 8 big-endian bytes: a key's versions, newest first. */
export function versionKey(objKey: Buffer, seq: number): Buffer {
  const out = Buffer.allocUnsafe(objKey.length + 1 + SEQ_BYTES);
  objKey.copy(out, 0);
  out[objKey.length] = 0;
  out.writeBigUInt64BE(BigInt(MAX_SEQ - seq), objKey.length + 1);
  return out;
}

/** The object key a versions-database key belongs to, when `k` is one of `objKey`'s (keys may contain 0x00). */
export function versionKeyLength(objKey: Buffer): number {
  return objKey.length + 1 + SEQ_BYTES;
}

/** `bucket 0x00 key 0x00 uploadId` (upload ids have a fixed length, so the key is what lies between). */
export function uploadKey(objKey: Buffer, uploadId: string): Buffer {
  return Buffer.concat([objKey, Buffer.of(0), Buffer.from(uploadId, 'latin1')]);
}

export function partKey(uploadId: string, partNumber: number): Buffer {
  const id = Buffer.from(uploadId, 'latin1');
  const out = Buffer.allocUnsafe(id.length + 2);
  id.copy(out, 0);
  out.writeUInt16BE(partNumber, id.length);
  return out;
}

/** The highest part number (s3.md §6). */
export const MAX_PART_NUMBER = 10_000;

/** An upload's parts in number order, those after part `after` only. */
export function* partsOf(db: IndexDb, uploadId: string, after = 0): Generator<{ partNumber: number; key: Buffer; value: StoredPart }> {
  const start = partKey(uploadId, Math.min(after + 1, MAX_PART_NUMBER + 1));
  for (const { key, value } of db.parts.getRange({ start, end: partKey(uploadId, MAX_PART_NUMBER + 1) })) {
    yield { partNumber: key.readUInt16BE(key.length - 2), key, value };
  }
}

export function toVersion<A>(key: string, s: StoredVersion): ObjectVersion<A> {
  // field by field: an object rest (`{ seq, ...rest }`) cost 4% of a listing's time
  const v: ObjectVersion<A> = { key, versionId: s.versionId, deleteMarker: s.deleteMarker, size: s.size, etag: s.etag, lastModified: s.lastModified, extents: s.extents, attrs: s.attrs as A };
  if (s.damaged) v.damaged = s.damaged;
  return v;
}
