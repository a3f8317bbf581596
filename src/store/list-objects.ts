// The listing engine (s3.md §3.0.8): one page in one LMDB read transaction, as range scans over
// `bucket 0x00 key` in byte order. A delimiter roll-up seeks past its CommonPrefix instead of reading
// the keys under it, so a page costs O(page), never O(bucket).

import { bucketObjectsBase, rangeEnd, toObjectRecord, type IndexDb } from './index-db.js';
import type { ListItem, ListOptions, ListResult } from './types.js';

const ZERO = Buffer.of(0);

export function listObjects(db: IndexDb, bucket: string, options: ListOptions): ListResult {
  // §3.0.8: max-keys=0 → no items and not truncated.
  if (options.maxKeys <= 0) return { items: [], isTruncated: false };
  const base = bucketObjectsBase(bucket);
  const lower = Buffer.concat([base, Buffer.from(options.prefix, 'utf8')]);
  const upper = rangeEnd(lower);
  const delimiter = options.delimiter ? Buffer.from(options.delimiter, 'utf8') : undefined;
  const startAfter = options.startAfter ? Buffer.from(options.startAfter, 'utf8') : undefined;

  let from: Buffer = lower;
  if (startAfter) {
    // The smallest key greater than `startAfter` is `startAfter 0x00` (keys may contain U+0000).
    const next = Buffer.concat([base, startAfter, ZERO]);
    if (Buffer.compare(next, from) > 0) from = next;
  }

  const items: ListItem[] = [];
  const txn = db.objects.useReadTransaction();
  try {
    for (;;) {
      let seek: Buffer | undefined;
      for (const { key, value } of db.objects.getRange({ start: from, end: upper, transaction: txn })) {
        if (items.length === options.maxKeys) return { items, isTruncated: true };
        const at = delimiter ? key.indexOf(delimiter, lower.length) : -1;
        if (at === -1) {
          items.push({ kind: 'object', record: toObjectRecord(key.toString('utf8', base.length), value) });
          continue;
        }
        const prefixEnd = at + delimiter!.length;
        const prefix = key.subarray(base.length, prefixEnd);
        // A CommonPrefix not greater than the start position was returned on an earlier page.
        if (!startAfter || Buffer.compare(prefix, startAfter) > 0) {
          items.push({ kind: 'prefix', prefix: prefix.toString('utf8') });
        }
        seek = rangeEnd(key.subarray(0, prefixEnd));
        break;
      }
      if (!seek) return { items, isTruncated: false };
      from = seek;
    }
  } finally {
    txn.done();
  }
}
