// Bucket quotas count a bucket's usage by listing it: a page at a time, letting requests run in
// between, one count per bucket however many writes wait for it.

import { describe, expect, it } from 'vitest';
import { BucketQuotas, bucketUsage } from '../../../src/s3/pipeline/quotas.js';
import type { S3Store } from '../../../src/s3/object-attrs.js';
import type { SegmentStore } from '../../../src/store/index.js';
import { bucket, meta, storeForEachTest } from '../store/helpers.js';

describe('bucket quotas', () => {
  let store: SegmentStore;
  let dir: string;
  storeForEachTest([bucket('b')], (s, d) => ((store = s), (dir = d)), { durability: 'relaxed' });

  it('counts a large bucket without holding the event loop, once for concurrent writes, and refuses past the quota', async () => {
    for (let i = 0; i < 2500; i++) {
      // S3 objects carry the face's attrs (none here: plaintext)
      const w = store.beginWrite(10);
      await w.write(Buffer.alloc(10));
      await w.commit('b', `k${String(i).padStart(5, '0')}`, meta('e', 10, {}));
    }
    const s3 = store as unknown as S3Store;
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const usage = await bucketUsage(s3, 'b');
    clearInterval(ticking);
    expect(usage).toEqual({ objects: 2500, bytes: 25_000 });
    expect(turns).toBeGreaterThan(0); // timers ran between pages

    const quotas = new BucketQuotas(dir, s3);
    quotas.set('b', { maxObjects: 2501 });
    const list = store.list.bind(store);
    let pages = 0;
    store.list = ((...args: Parameters<typeof list>) => (pages++, list(...args))) as typeof store.list;
    await Promise.all([quotas.checkWrite('b', 'new-1', 1), quotas.checkWrite('b', 'new-2', 1)]);
    expect(pages).toBe(3); // one count of 3 pages for both
    await expect(quotas.checkWrite('b', 'k00001', 1)).resolves.toBeUndefined(); // an overwrite adds no object
    quotas.written('b', 1);
    await expect(quotas.checkWrite('b', 'new-3', 1)).rejects.toMatchObject({ code: 'QuotaExceeded' });
  });
});
