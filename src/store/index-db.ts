// The LMDB index: one environment, one named database per concern, binary keys laid out so that
// LMDB's memcmp order is S3's listing order (UTF-8 byte order, s3.md §1.4). Layout: docs/FORMAT.md.

import { open, type Database, type RootDatabase } from 'lmdb';
import path from 'node:path';
import { S3Error } from '../s3/errors.js';
import { observeLmdbCommitFailures } from '../storage-failures.js';
import { MAX_BUCKET_BYTES, MAX_OBJECT_KEY_BYTES } from './format.js';
import type { BucketRecord, ObjectRecord } from './types.js';

/** Version of the index layout, stored under `meta`/`format`; a layout change bumps it. */
export const INDEX_FORMAT_VERSION = 1;

/** Where msgpackr keeps the shared record structures (field-name tables) of the objects database:
 * 0xFF starts no bucket name, so no bucket's key range contains it. */
const STRUCTURES_KEY = Buffer.from([0xff, 0x73]);

/** The object record as stored: the key lives in the LMDB key. */
export type StoredObject = Omit<ObjectRecord, 'key'>;

/** Per-segment accounting, updated in the transaction that commits or removes a record. */
export interface SegmentStats {
  /** body bytes of records that are current objects */
  live: number;
  /** number of records that are current objects */
  records: number;
  /** end of the furthest committed record; recovery truncates the file here */
  end: number;
}

export interface IndexDb {
  env: RootDatabase;
  buckets: Database<BucketRecord, Buffer>;
  objects: Database<StoredObject, Buffer>;
  segments: Database<SegmentStats, number>;
  meta: Database<unknown, string>;
}

export function openIndex(dataDir: string): IndexDb {
  observeLmdbCommitFailures();
  const env = open({ path: path.join(dataDir, 'index.mdb'), compression: false });
  const db: IndexDb = {
    env,
    buckets: env.openDB<BucketRecord, Buffer>('buckets', { keyEncoding: 'binary' }),
    objects: env.openDB<StoredObject, Buffer>('objects', { keyEncoding: 'binary', sharedStructuresKey: STRUCTURES_KEY }),
    segments: env.openDB<SegmentStats, number>('segments', { keyEncoding: 'uint32' }),
    meta: env.openDB<unknown, string>('meta', {}),
  };
  const version = db.meta.get('format');
  if (version === undefined) db.meta.putSync('format', INDEX_FORMAT_VERSION);
  else if (version !== INDEX_FORMAT_VERSION) {
    env.close();
    throw new Error(`index format ${String(version)} is not supported (expected ${INDEX_FORMAT_VERSION})`);
  }
  return db;
}

export function bucketKey(bucket: string): Buffer {
  const b = Buffer.from(bucket, 'utf8');
  if (b.length === 0 || b.length > MAX_BUCKET_BYTES || b.includes(0)) {
    throw new S3Error('InvalidBucketName', { BucketName: bucket });
  }
  return b;
}

/** `bucket 0x00 key`: bucket names never contain 0x00, so one bucket's keys form one contiguous range. */
export function objectKey(bucket: string, key: string): Buffer {
  const bucketBytes = Buffer.byteLength(bucket, 'utf8');
  const keyBytes = Buffer.byteLength(key, 'utf8');
  if (keyBytes === 0 || keyBytes > MAX_OBJECT_KEY_BYTES) {
    throw new S3Error('KeyTooLongError', { Size: keyBytes, MaxSizeAllowed: MAX_OBJECT_KEY_BYTES });
  }
  if (bucketBytes === 0 || bucketBytes > MAX_BUCKET_BYTES) throw new S3Error('InvalidBucketName', { BucketName: bucket });
  const b = Buffer.allocUnsafe(bucketBytes + 1 + keyBytes);
  b.write(bucket, 0, 'utf8');
  if (b.indexOf(0) !== -1 && b.indexOf(0) < bucketBytes) throw new S3Error('InvalidBucketName', { BucketName: bucket });
  b[bucketBytes] = 0;
  b.write(key, bucketBytes + 1, 'utf8');
  return b;
}

/** For lookups: undefined when no object can have this name (too long, empty, 0x00 in the bucket). */
export function lookupObjectKey(bucket: string, key: string): Buffer | undefined {
  try {
    return objectKey(bucket, key);
  } catch {
    return undefined;
  }
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

export function toObjectRecord(key: string, stored: StoredObject): ObjectRecord {
  return { key, ...stored };
}
