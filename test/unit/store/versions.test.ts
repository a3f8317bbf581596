// The engine's version model (s3.md §3.0.7): ids, the null version, delete markers, latest
// resolution, listing order and paging markers.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SegmentStore } from '../../../src/store/index.js';
import { seqOfId } from '../../../src/store/ids.js';
import type { VersioningState } from '../../../src/store/types.js';
import { bucket, open, put, readAll, tempDir } from './helpers.js';

describe('version chains', () => {
  let store: SegmentStore;

  async function versioned(name: string, state: VersioningState): Promise<void> {
    await store.createBucket(bucket(name));
    if (state !== 'Unversioned') await store.putBucket({ ...bucket(name), versioning: state });
  }

  async function body(key: string, versionId?: string): Promise<string> {
    const v = store.getObject('b', key, versionId);
    if (!v || v.deleteMarker) throw new Error(`no object ${key}@${versionId}`);
    return (await readAll(store, v)).toString();
  }

  function versionIds(key?: string): string[] {
    return store
      .listVersions('b', { prefix: key ?? '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 1000 })
      .items.flatMap((i) => (i.kind === 'version' ? [`${i.version.key}:${i.version.deleteMarker ? 'DM' : ''}${i.isLatest ? '*' : ''}`] : []));
  }

  beforeEach(async () => {
    store = await open(tempDir());
  });
  afterEach(async () => {
    await store.close();
  });

  it('an unversioned bucket keeps one null version per key, replaced in place', async () => {
    await versioned('b', 'Unversioned');
    const a = await put(store, 'b', 'k', Buffer.from('one'));
    const b = await put(store, 'b', 'k', Buffer.from('two'));
    expect([a.versionId, b.versionId]).toEqual(['null', 'null']);
    expect(await body('k')).toBe('two');
    expect(versionIds()).toEqual(['k:*']);
    expect(await store.deleteObject('b', 'k')).toMatchObject({ kind: 'removed' });
    expect(store.getObject('b', 'k')).toBeUndefined();
  });

  it('an enabled bucket keeps every version, readable by id, newest first, with time-ordered URL-safe ids', async () => {
    await versioned('b', 'Enabled');
    const ids: string[] = [];
    for (const text of ['v1', 'v2', 'v3']) ids.push((await put(store, 'b', 'k', Buffer.from(text))).versionId);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(seqOfId(ids[0]!)! < seqOfId(ids[1]!)! && seqOfId(ids[1]!)! < seqOfId(ids[2]!)!).toBe(true);
    expect(await body('k')).toBe('v3');
    expect(await body('k', ids[0])).toBe('v1');
    expect(await body('k', ids[1])).toBe('v2');
    const listed = store.listVersions('b', { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 10 });
    expect(listed.items.map((i) => (i.kind === 'version' ? i.version.versionId : ''))).toEqual([ids[2], ids[1], ids[0]]);
    expect(store.getObject('b', 'k', 'A'.repeat(32))).toBeUndefined();
  });

  it('a delete without an id adds a marker; the marker hides the key from listings but not from version listings', async () => {
    await versioned('b', 'Enabled');
    const v1 = await put(store, 'b', 'k', Buffer.from('v1'));
    const outcome = await store.deleteObject('b', 'k');
    expect(outcome.kind).toBe('marker');
    const marker = outcome.kind === 'marker' ? outcome.marker : undefined;
    expect(store.getObject('b', 'k')).toMatchObject({ deleteMarker: true, versionId: marker!.versionId });
    expect(store.list('b', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 }).items).toEqual([]);
    expect(versionIds()).toEqual(['k:DM*', 'k:']);
    expect(await body('k', v1.versionId)).toBe('v1');
    // removing the marker by id makes v1 the latest again
    expect(await store.deleteObject('b', 'k', { versionId: marker!.versionId })).toMatchObject({ kind: 'removed' });
    expect(await body('k')).toBe('v1');
    expect(versionIds()).toEqual(['k:*']);
  });

  it('a delete by id removes that version for good; removing the latest promotes the next newest', async () => {
    await versioned('b', 'Enabled');
    const [v1, v2, v3] = [await put(store, 'b', 'k', Buffer.from('1')), await put(store, 'b', 'k', Buffer.from('2')), await put(store, 'b', 'k', Buffer.from('3'))];
    expect(await store.deleteObject('b', 'k', { versionId: v2.versionId })).toMatchObject({ kind: 'removed', version: { versionId: v2.versionId } });
    expect(store.getObject('b', 'k', v2.versionId)).toBeUndefined();
    expect(await store.deleteObject('b', 'k', { versionId: v3.versionId })).toMatchObject({ kind: 'removed' });
    expect(store.getObject('b', 'k')?.versionId).toBe(v1.versionId);
    expect(await store.deleteObject('b', 'k', { versionId: v1.versionId })).toMatchObject({ kind: 'removed' });
    expect(store.getObject('b', 'k')).toBeUndefined();
    expect(await store.deleteBucket('b')).toBe('deleted');
  });

  it('a suspended bucket writes the null version, replacing the one null version wherever it is', async () => {
    await versioned('b', 'Unversioned');
    await put(store, 'b', 'k', Buffer.from('null-1')); // written before versioning: the null version
    await store.putBucket({ ...bucket('b'), versioning: 'Enabled' });
    const v = await put(store, 'b', 'k', Buffer.from('versioned'));
    expect(versionIds()).toEqual(['k:*', 'k:']);
    expect(await body('k', 'null')).toBe('null-1');
    await store.putBucket({ ...bucket('b'), versioning: 'Suspended' });
    const n = await put(store, 'b', 'k', Buffer.from('null-2'));
    expect(n.versionId).toBe('null');
    // the noncurrent null version was replaced: still two versions
    expect(versionIds()).toEqual(['k:*', 'k:']);
    expect(await body('k', 'null')).toBe('null-2');
    expect(await body('k', v.versionId)).toBe('versioned');
    const n2 = await put(store, 'b', 'k', Buffer.from('null-3'));
    expect(n2.versionId).toBe('null');
    expect(versionIds()).toEqual(['k:*', 'k:']);
    // a suspended delete makes a null delete marker that replaces the null version
    expect(await store.deleteObject('b', 'k')).toMatchObject({ kind: 'marker', marker: { versionId: 'null' } });
    expect(versionIds()).toEqual(['k:DM*', 'k:']);
    expect(store.getBucket('b')?.versioning).toBe('Suspended');
    await store.putBucket({ ...bucket('b'), versioning: 'Unversioned' });
    expect(store.getBucket('b')?.versioning).toBe('Suspended');
  });

  it('deleteBucket refuses while any version or marker remains', async () => {
    await versioned('b', 'Enabled');
    const v = await put(store, 'b', 'k', Buffer.from('x'));
    const m = await store.deleteObject('b', 'k');
    expect(await store.deleteBucket('b')).toBe('not-empty');
    await store.deleteObject('b', 'k', { versionId: v.versionId });
    expect(await store.deleteBucket('b')).toBe('not-empty');
    await store.deleteObject('b', 'k', { versionId: m.kind === 'marker' ? m.marker.versionId : '' });
    expect(await store.deleteBucket('b')).toBe('deleted');
  });

  it('lists versions key ascending then newest first, and pages with key and version-id markers', async () => {
    await versioned('b', 'Enabled');
    const all: string[] = [];
    for (const key of ['a', 'b/1', 'b/2', 'c']) {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await put(store, 'b', key, Buffer.from(`${key}${i}`))).versionId);
      all.push(...ids.reverse().map((id) => `${key}@${id}`));
    }
    const pages: string[] = [];
    let keyMarker = '';
    let versionIdMarker = '';
    for (let n = 0; n < 20; n++) {
      const page = store.listVersions('b', { prefix: '', delimiter: '', keyMarker, versionIdMarker, maxKeys: 5 });
      for (const item of page.items) if (item.kind === 'version') pages.push(`${item.version.key}@${item.version.versionId}`);
      if (!page.isTruncated) break;
      keyMarker = page.nextKeyMarker!;
      versionIdMarker = page.nextVersionIdMarker!;
    }
    expect(pages).toEqual(all);
    // a key marker alone skips all of that key's versions
    const after = store.listVersions('b', { prefix: '', delimiter: '', keyMarker: 'b/1', versionIdMarker: '', maxKeys: 100 });
    expect(after.items.map((i) => (i.kind === 'version' ? i.version.key : i.prefix))).toEqual(['b/2', 'b/2', 'b/2', 'c', 'c', 'c']);
    // delimiters roll keys up
    const rolled = store.listVersions('b', { prefix: '', delimiter: '/', keyMarker: '', versionIdMarker: '', maxKeys: 100 });
    expect(rolled.items.map((i) => (i.kind === 'version' ? i.version.key : `P:${i.prefix}`))).toEqual(['a', 'a', 'a', 'P:b/', 'c', 'c', 'c']);
  });

  it('concurrent writers to one key each get their own version; the latest is the last committed', async () => {
    await versioned('b', 'Enabled');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => put(store, 'b', 'k', Buffer.from(`w${i}`))));
    const ids = new Set(results.map((r) => r.versionId));
    expect(ids.size).toBe(20);
    const listed = store.listVersions('b', { prefix: 'k', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 100 });
    expect(listed.items).toHaveLength(20);
    const latest = listed.items[0]!;
    expect(latest.kind === 'version' && latest.isLatest).toBe(true);
    const newest = [...results].sort((a, b) => seqOfId(b.versionId)! - seqOfId(a.versionId)!)[0]!;
    expect(store.getObject('b', 'k')!.versionId).toBe(newest.versionId);
  });

  it('updateAttrs changes a version in place without a new version', async () => {
    await versioned('b', 'Enabled');
    const v1 = await put(store, 'b', 'k', Buffer.from('1'));
    await put(store, 'b', 'k', Buffer.from('2'));
    await store.updateAttrs('b', 'k', v1.versionId, () => ({ tags: { a: '1' } }));
    expect(store.getObject('b', 'k', v1.versionId)?.attrs).toEqual({ tags: { a: '1' } });
    expect(versionIds()).toHaveLength(2);
    await expect(store.updateAttrs('b', 'k', 'B'.repeat(32), (a) => a)).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('dropBody moves a version off its bytes only if it is still the one read (compare-and-swap)', async () => {
    const dir = tempDir();
    const s = await open(dir);
    await s.createBucket(bucket('b'));
    const first = await put(s, 'b', 'k', Buffer.alloc(100_000, 1));
    // an overwrite of the null version since the read wins: same id, another version
    const second = await put(s, 'b', 'k', Buffer.alloc(100_000, 2), { etag: 'other' });
    expect(await s.dropBody('b', 'k', first, (a) => ({ ...(a as object), moved: true }))).toBe(false);
    expect((await readAll(s, s.getObject('b', 'k')!)).equals(Buffer.alloc(100_000, 2))).toBe(true);
    expect(s.stats().liveBytes).toBe(100_000);
    // the version read: its bytes are released, its attrs say where they went, id, etag and date stay
    expect(await s.dropBody('b', 'k', second, (a) => ({ ...(a as object), moved: true }))).toBe(true);
    const moved = s.getObject('b', 'k')!;
    expect(moved).toMatchObject({ versionId: second.versionId, etag: 'other', lastModified: second.lastModified, size: 0, extents: [], attrs: { moved: true } });
    expect(s.stats().liveBytes).toBe(0);
    expect(await s.dropBody('b', 'gone', second, (a) => a)).toBe(false);
    await s.close();
    // and after a reopen
    const again = await open(dir);
    expect(again.getObject('b', 'k')).toMatchObject({ size: 0, extents: [], attrs: { moved: true } });
    expect(again.stats().liveBytes).toBe(0);
    await again.close();
  });

  it('keeps versions, markers and their order across a reopen', async () => {
    const dir = tempDir();
    const s = await open(dir);
    await s.createBucket({ ...bucket('b'), versioning: 'Enabled' });
    const v1 = await put(s, 'b', 'k', Buffer.from('1'));
    await s.deleteObject('b', 'k');
    const v3 = await put(s, 'b', 'k', Buffer.from('3'));
    const summary = (t: SegmentStore): unknown[] =>
      t.listVersions('b', { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 10 }).items.map((i) =>
        i.kind === 'version' ? [i.version.versionId, i.version.deleteMarker, i.isLatest, i.version.size, i.version.lastModified] : i.prefix,
      );
    const before = summary(s);
    expect(before).toHaveLength(3);
    await s.close();
    const again = await open(dir);
    expect(summary(again)).toEqual(before);
    const v4 = await put(again, 'b', 'k', Buffer.from('4'));
    expect(seqOfId(v4.versionId)! > seqOfId(v3.versionId)!).toBe(true);
    expect((await readAll(again, again.getObject('b', 'k', v1.versionId)!)).toString()).toBe('1');
    await again.close();
  });
});
