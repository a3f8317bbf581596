// A bucket's versions and delete markers, as ListObjectVersions lists them, walked a page at a time
// by the background passes that need them all (quotas' version count, WALRUS renewal, lifecycle).

import { setImmediate } from 'node:timers/promises';
import type { S3Store } from './object-attrs.js';

export type VersionItems = ReturnType<S3Store['listVersions']>['items'];

/** Hands `visit` each page of the bucket's versions, letting requests run between pages (a bucket can hold millions); `stopped` ends the walk early. */
export async function eachVersionPage(store: S3Store, bucket: string, pageSize: number, visit: (items: VersionItems) => void | Promise<void>, stopped: () => boolean = () => false): Promise<void> {
  let keyMarker = '';
  let versionIdMarker = '';
  for (;;) {
    if (stopped()) return;
    const page = store.listVersions(bucket, { prefix: '', delimiter: '', keyMarker, versionIdMarker, maxKeys: pageSize });
    await visit(page.items);
    if (!page.isTruncated || page.items.length === 0) return;
    keyMarker = page.nextKeyMarker ?? '';
    versionIdMarker = page.nextVersionIdMarker ?? '';
    await setImmediate();
  }
}
