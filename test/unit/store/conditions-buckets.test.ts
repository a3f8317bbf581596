import { describe, expect, it } from 'vitest';
import type { SegmentStore } from '../../../src/store/index.js';
import { bucket, meta, put, storeForEachTest } from './helpers.js';

describe('conditional writes and bucket atomics', () => {
  let store: SegmentStore;
  storeForEachTest([bucket('b')], (s) => (store = s));

  it('If-None-Match: * succeeds once, then fails with PreconditionFailed', async () => {
    await put(store, 'b', 'k', Buffer.from('1'), { condition: { ifNoneMatchStar: true }, etag: 'e1' });
    await expect(put(store, 'b', 'k', Buffer.from('2'), { condition: { ifNoneMatchStar: true } })).rejects.toMatchObject({
      kind: 'condition-failed',
      detail: { condition: 'If-None-Match' },
    });
    expect(store.getObject('b', 'k')?.etag).toBe('e1');
  });

  it('decides racing If-None-Match: * writers inside the index transaction: exactly one wins', async () => {
    // All writers pass the early check (nothing exists yet) before any of them commits.
    const writers = Array.from({ length: 8 }, () => store.beginWrite(3));
    for (const w of writers) await w.write(Buffer.from('abc'));
    const results = await Promise.allSettled(
      writers.map((w, i) => w.commit('b', 'race', meta(`e${i}`, 3), { ifNoneMatchStar: true })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'condition-failed' });
    expect(store.getObject('b', 'race')?.etag).toBe((won[0] as PromiseFulfilledResult<{ etag: string }>).value.etag);
  });

  it('If-Match: NoSuchKey when absent, PreconditionFailed on mismatch, success on match', async () => {
    await expect(put(store, 'b', 'k', Buffer.from('x'), { condition: { ifMatch: 'e1' } })).rejects.toMatchObject({
      kind: 'not-found',
    });
    await put(store, 'b', 'k', Buffer.from('x'), { etag: 'e1' });
    await expect(put(store, 'b', 'k', Buffer.from('y'), { condition: { ifMatch: 'zz' }, etag: 'e2' })).rejects.toMatchObject({
      kind: 'condition-failed',
      detail: { condition: 'If-Match' },
    });
    await put(store, 'b', 'k', Buffer.from('y'), { condition: { ifMatch: 'e1' }, etag: 'e2' });
    expect(store.getObject('b', 'k')?.etag).toBe('e2');
  });

  it('racing If-Match writers on the same etag: exactly one wins', async () => {
    await put(store, 'b', 'k', Buffer.from('x'), { etag: 'e0' });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => put(store, 'b', 'k', Buffer.from('y'), { condition: { ifMatch: 'e0' }, etag: `n${i}` })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('deleteObject honours If-Match', async () => {
    await put(store, 'b', 'k', Buffer.from('x'), { etag: 'e1' });
    await expect(store.deleteObject('b', 'k', { condition: { ifMatch: 'nope' } })).rejects.toMatchObject({ kind: 'condition-failed' });
    expect(store.getObject('b', 'k')).toBeDefined();
    expect(await store.deleteObject('b', 'k', { condition: { ifMatch: 'e1' } })).toMatchObject({ kind: 'removed' });
    expect(store.getObject('b', 'k')).toBeUndefined();
  });

  it('createBucket is atomic: one of many concurrent creates wins', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => store.createBucket(bucket('nb', `o${i}`))));
    expect(results.filter((r) => r === 'created')).toHaveLength(1);
    expect(results.filter((r) => r === 'exists')).toHaveLength(4);
    const owner = store.getBucket('nb')!.owner;
    expect(results[Number(owner.slice(1))]).toBe('created');
  });

  it('deleteBucket deletes only empty buckets, atomically with a racing put', async () => {
    expect(await store.deleteBucket('missing')).toBe('missing');
    await put(store, 'b', 'k', Buffer.from('x'));
    expect(await store.deleteBucket('b')).toBe('not-empty');
    await store.deleteObject('b', 'k');

    // A commit and a delete issued in the same turn: whichever the index orders first decides.
    const w = store.beginWrite(1);
    await w.write(Buffer.from('z'));
    const [commit, del] = await Promise.allSettled([w.commit('b', 'k2', meta('e', 1)), store.deleteBucket('b')]);
    if (commit.status === 'fulfilled') {
      expect(del).toEqual({ status: 'fulfilled', value: 'not-empty' });
      expect(store.getBucket('b')).toBeDefined();
    } else {
      expect(commit.reason).toMatchObject({ kind: 'namespace-missing' });
      expect(del).toEqual({ status: 'fulfilled', value: 'deleted' });
    }
  });

  it('a bucket whose name is a prefix of another does not see its objects', async () => {
    await store.createBucket(bucket('b2'));
    await put(store, 'b2', 'k', Buffer.from('x'));
    expect(await store.deleteBucket('b')).toBe('deleted');
    expect(store.list('b2', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 }).items).toHaveLength(1);
  });

  it('putBucket updates, listBuckets sorts by name and filters by owner', async () => {
    await store.createBucket(bucket('a-bucket', 'owner-2'));
    await store.createBucket(bucket('z-bucket'));
    await store.putBucket({ ...bucket('b'), acl: 'public-read' });
    expect(store.getBucket('b')?.acl).toBe('public-read');
    expect(store.listBuckets().map((b) => b.name)).toEqual(['a-bucket', 'b', 'z-bucket']);
    expect(store.listBuckets('owner-1').map((b) => b.name)).toEqual(['b', 'z-bucket']);
  });

  it('applies concurrent updates of different fields on top of each other', async () => {
    await Promise.all([
      store.updateBucket('b', (r) => ({ ...r, acl: 'public-read' })),
      store.updateBucket('b', (r) => ({ ...r, versioning: 'Enabled' })),
      store.updateBucket('b', (r) => ({ ...r, objectOwnership: 'BucketOwnerEnforced' })),
    ]);
    expect(store.getBucket('b')).toMatchObject({ acl: 'public-read', versioning: 'Enabled', objectOwnership: 'BucketOwnerEnforced' });
  });

  it('never returns versioning to Unversioned, keeps the name, fails for a missing bucket', async () => {
    await store.updateBucket('b', (r) => ({ ...r, versioning: 'Suspended' }));
    const after = await store.updateBucket('b', (r) => ({ ...r, name: 'other', versioning: 'Unversioned' }));
    expect([after.name, after.versioning]).toEqual(['b', 'Suspended']);
    await expect(store.updateBucket('gone', (r) => r)).rejects.toMatchObject({ kind: 'namespace-missing' });
  });
});
