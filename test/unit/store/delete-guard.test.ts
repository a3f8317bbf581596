// deleteObject's mayRemove guard (object lock): judged inside the delete's transaction, on the
// version that would be removed for good; delete markers are never guarded.

import { describe, expect, it } from 'vitest';
import type { SegmentStore } from '../../../src/store/index.js';
import { bucket, put, storeForEachTest } from './helpers.js';

describe('deleteObject mayRemove', () => {
  let store: SegmentStore;
  storeForEachTest([{ ...bucket('b'), versioning: 'Enabled' }, bucket('u')], (s) => (store = s));

  it('refuses to remove a guarded version and keeps it; removes it once the guard allows', async () => {
    const v1 = await put(store, 'b', 'k', Buffer.from('one'), { etag: 'e1' });
    const seen: string[] = [];
    const refuse = (v: { versionId: string }) => (seen.push(v.versionId), false);
    await expect(store.deleteObject('b', 'k', { versionId: v1.versionId, mayRemove: refuse })).rejects.toMatchObject({
      kind: 'condition-failed',
      subject: 'version',
      detail: { condition: 'guard', versionId: v1.versionId },
    });
    expect(seen).toEqual([v1.versionId]);
    expect(store.getObject('b', 'k', v1.versionId)?.etag).toBe('e1');
    const removed = await store.deleteObject('b', 'k', { versionId: v1.versionId, mayRemove: () => true });
    expect(removed.kind).toBe('removed');
    expect(store.getObject('b', 'k', v1.versionId)).toBeUndefined();
  });

  it('does not guard adding a delete marker, nor removing one', async () => {
    await put(store, 'b', 'k', Buffer.from('one'));
    const marker = await store.deleteObject('b', 'k', { mayRemove: () => false });
    expect(marker.kind).toBe('marker');
    const id = marker.kind === 'marker' ? marker.marker.versionId : '';
    expect((await store.deleteObject('b', 'k', { versionId: id, mayRemove: () => false })).kind).toBe('removed');
  });

  it('guards the plain delete of an unversioned bucket', async () => {
    await put(store, 'u', 'k', Buffer.from('one'));
    await expect(store.deleteObject('u', 'k', { mayRemove: () => false })).rejects.toMatchObject({ kind: 'condition-failed' });
    expect(store.getObject('u', 'k')).toBeDefined();
  });
});
