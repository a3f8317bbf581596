// The listing engine (s3.md §3.0.8): one page in one LMDB read transaction, as range scans over
// `bucket 0x00 key` in byte order. A delimiter roll-up seeks past its CommonPrefix instead of reading
// the keys under it, so a page costs O(page), never O(bucket). Objects, versions and uploads share
// the walk; each says what one index entry yields.

import type { Database } from 'lmdb';
import { bucketObjectsBase, rangeEnd, toVersion, uploadKey, versionKey, type IndexDb, type StoredUpload, type StoredVersion } from './index-db.js';
import { MAX_OBJECT_KEY_BYTES } from './format.js';
import { ID_LENGTH, seqOfId } from './ids.js';
import { noncurrentVersions } from './version-chain.js';
import {
  NULL_VERSION,
  type ListOptions,
  type ListResult,
  type ListUploadsOptions,
  type ListUploadsResult,
  type ListVersionsOptions,
  type ListVersionsResult,
  type UploadListItem,
  type VersionListItem,
} from './types.js';

const ZERO = Buffer.of(0);

// Listing inputs come from clients and may be longer than any key; an index key built from them
// must stay within LMDB's key size (about 2 KB), so none is built from more than a key's bytes.

/**
 * The first index key after every object key up to `marker` in byte order. No object key is longer
 * than MAX_OBJECT_KEY_BYTES (s3.md §1.4), so a key sorts after a longer marker exactly when it
 * sorts after the marker's first MAX_OBJECT_KEY_BYTES bytes: the cut marker answers the same.
 */
function keyAfter(base: Buffer, marker: Buffer): Buffer {
  return Buffer.concat([base, marker.subarray(0, MAX_OBJECT_KEY_BYTES), ZERO]);
}

interface Walk<V> {
  db: Database<V, Buffer>;
  base: Buffer;
  prefix: string;
  delimiter: string;
  /** first index key to read */
  from: Buffer;
  /** CommonPrefixes not greater than this were returned on an earlier page */
  prefixesAfter: Buffer | undefined;
  /** bytes of an index key past the object key (the fixed-length suffix of uploads) */
  suffix: number;
}

/**
 * Walks index entries in key order, in one read transaction, rolling keys up at the delimiter.
 * `take` gets each entry under the prefix outside a roll-up (and the transaction, to read more in
 * it); it and `onPrefix` answer false once the page is full (the walk then stops).
 */
function walk<V>(
  index: IndexDb,
  w: Walk<V>,
  take: (objectKey: Buffer, value: V, transaction: unknown) => boolean,
  onPrefix: (prefix: string) => boolean,
): void {
  const txn = index.objects.useReadTransaction();
  try {
    walkIn(w, take, onPrefix, txn);
  } finally {
    txn.done();
  }
}

/** A page's CommonPrefix collector: adds the prefix unless the page is full. */
function prefixesInto<I>(items: Array<I | { kind: 'prefix'; prefix: string }>, full: () => boolean): (prefix: string) => boolean {
  return (prefix) => {
    if (full()) return false;
    items.push({ kind: 'prefix', prefix });
    return true;
  };
}

function walkIn<V>(w: Walk<V>, take: (objectKey: Buffer, value: V, transaction: unknown) => boolean, onPrefix: (prefix: string) => boolean, transaction: unknown): void {
  const prefix = Buffer.from(w.prefix, 'utf8');
  // a prefix longer than any key matches none
  if (prefix.length > MAX_OBJECT_KEY_BYTES) return;
  const lower = Buffer.concat([w.base, prefix]);
  const upper = rangeEnd(lower);
  const delimiter = w.delimiter ? Buffer.from(w.delimiter, 'utf8') : undefined;
  let from = Buffer.compare(w.from, lower) > 0 ? w.from : lower;
  for (;;) {
    let seek: Buffer | undefined;
    for (const { key, value } of w.db.getRange({ start: from, end: upper, transaction } as never) as Iterable<{ key: Buffer; value: V }>) {
      const keyEnd = key.length - w.suffix;
      // the first match decides: one that runs into the suffix means none lies within the object key
      let at = delimiter ? key.indexOf(delimiter, lower.length) : -1;
      if (at !== -1 && at + delimiter!.length > keyEnd) at = -1;
      if (at === -1) {
        if (!take(w.suffix === 0 ? key : key.subarray(0, keyEnd), value, transaction)) return;
        continue;
      }
      const prefixEnd = at + delimiter!.length;
      const prefix = key.subarray(w.base.length, prefixEnd);
      if (!w.prefixesAfter || Buffer.compare(prefix, w.prefixesAfter) > 0) {
        if (!onPrefix(prefix.toString('utf8'))) return;
      }
      seek = rangeEnd(key.subarray(0, prefixEnd));
      break;
    }
    if (!seek) return;
    from = seek;
  }
}

export function listObjects<A>(db: IndexDb, bucket: string, options: ListOptions): ListResult<A> {
  // §3.0.8: max-keys=0 → no items and not truncated.
  const result: ListResult<A> = { items: [], isTruncated: false };
  if (options.maxKeys <= 0) return result;
  const base = bucketObjectsBase(bucket);
  const startAfter = options.startAfter ? Buffer.from(options.startAfter, 'utf8') : undefined;
  // The smallest key greater than `startAfter` is `startAfter 0x00` (keys may contain U+0000).
  const from = startAfter ? keyAfter(base, startAfter) : base;
  const full = (): boolean => {
    if (result.items.length < options.maxKeys) return false;
    result.isTruncated = true;
    return true;
  };
  walk<StoredVersion>(
    db,
    { db: db.objects, base, prefix: options.prefix, delimiter: options.delimiter, from, prefixesAfter: startAfter, suffix: 0 },
    (objKey, value) => {
      if (value.deleteMarker) return true;
      if (full()) return false;
      result.items.push({ kind: 'object', record: toVersion<A>(objKey.toString('utf8', base.length), value) });
      return true;
    },
    prefixesInto(result.items, full),
  );
  return result;
}

export function listVersions<A>(db: IndexDb, bucket: string, options: ListVersionsOptions): ListVersionsResult<A> {
  const result: ListVersionsResult<A> = { items: [], isTruncated: false };
  if (options.maxKeys <= 0) return result;
  const base = bucketObjectsBase(bucket);
  const keyMarker = options.keyMarker ? Buffer.from(options.keyMarker, 'utf8') : undefined;
  // a marker longer than any key names no key to resume in
  const markerKey = keyMarker && keyMarker.length <= MAX_OBJECT_KEY_BYTES ? Buffer.concat([base, keyMarker]) : undefined;
  // With a version-id marker the page resumes inside the marker's key, after that version.
  let resumeAfterVersion: Buffer | 'latest' | undefined;
  if (markerKey && options.versionIdMarker) {
    const latest = db.objects.get(markerKey);
    if (latest && latest.versionId === options.versionIdMarker) resumeAfterVersion = 'latest';
    else {
      const seq = options.versionIdMarker === NULL_VERSION ? db.nulls.get(markerKey) : seqOfId(options.versionIdMarker);
      if (seq !== undefined) resumeAfterVersion = versionKey(markerKey, seq);
    }
  }
  const from = resumeAfterVersion ? markerKey! : keyMarker ? keyAfter(base, keyMarker) : base;
  const items: VersionListItem<A>[] = result.items;
  const full = (): boolean => {
    if (items.length < options.maxKeys) return false;
    result.isTruncated = true;
    const last = items.at(-1)!;
    result.nextKeyMarker = last.kind === 'prefix' ? last.prefix : last.version.key;
    if (last.kind === 'version') result.nextVersionIdMarker = last.version.versionId;
    return true;
  };
  walk<StoredVersion>(
    db,
    { db: db.objects, base, prefix: options.prefix, delimiter: options.delimiter, from, prefixesAfter: keyMarker, suffix: 0 },
    (objKey, latest, txn) => {
      const key = objKey.toString('utf8', base.length);
      let after: Buffer | undefined;
      if (markerKey && resumeAfterVersion && objKey.equals(markerKey)) {
        if (resumeAfterVersion !== 'latest') after = resumeAfterVersion;
      } else {
        if (full()) return false;
        items.push({ kind: 'version', version: toVersion<A>(key, latest), isLatest: true });
      }
      for (const { version } of noncurrentVersions(db, objKey, after, txn)) {
        if (full()) return false;
        items.push({ kind: 'version', version: toVersion<A>(key, version), isLatest: false });
      }
      return true;
    },
    prefixesInto(items, full),
  );
  return result;
}

export function listUploads<A>(db: IndexDb, bucket: string, options: ListUploadsOptions): ListUploadsResult<A> {
  const result: ListUploadsResult<A> = { items: [], isTruncated: false };
  if (options.maxUploads <= 0) return result;
  const base = bucketObjectsBase(bucket);
  const keyMarker = options.keyMarker ? Buffer.from(options.keyMarker, 'utf8') : undefined;
  let from = base;
  if (keyMarker) {
    // after the marker's upload, or after every upload of the marker's key (a marker longer than
    // any key has none: after the keys it sorts after, as keyAfter); ids have ID_LENGTH bytes, so a
    // longer id marker sorts as its first ID_LENGTH do
    from = options.uploadIdMarker && keyMarker.length <= MAX_OBJECT_KEY_BYTES
      ? Buffer.concat([uploadKey(Buffer.concat([base, keyMarker]), options.uploadIdMarker.slice(0, ID_LENGTH)), ZERO])
      : Buffer.concat([keyAfter(base, keyMarker), Buffer.of(0xff)]);
  }
  const items: UploadListItem<A>[] = result.items;
  const full = (): boolean => {
    if (items.length < options.maxUploads) return false;
    result.isTruncated = true;
    return true;
  };
  const suffix = 1 + ID_LENGTH;
  walk<StoredUpload>(
    db,
    { db: db.uploads, base, prefix: options.prefix, delimiter: options.delimiter, from, prefixesAfter: keyMarker, suffix },
    (objKey, value) => {
      if (full()) return false;
      const idStart = objKey.length + 1;
      // `objKey` is a view of the index key: the upload id follows it
      const uploadId = Buffer.from(objKey.buffer, objKey.byteOffset + idStart, ID_LENGTH).toString('latin1');
      items.push({
        kind: 'upload',
        upload: { bucket, key: objKey.toString('utf8', base.length), uploadId, initiated: value.initiated, attrs: value.attrs as A },
      });
      return true;
    },
    prefixesInto(items, full),
  );
  return result;
}
