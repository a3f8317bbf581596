// Body writes from another thread (store/remote-writes.ts), over a real MessageChannel: the writer's
// store commits what the front end streams, conditions and errors come back as the engine's own,
// and an abandoned body leaves no version.

import { randomBytes } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStoreError } from '../../../src/store/errors.js';
import { RemoteWrites, serveRemoteWrites } from '../../../src/store/remote-writes.js';
import type { SegmentStore } from '../../../src/store/index.js';
import type { BodyWriter, ObjectVersion } from '../../../src/store/types.js';
import { bucket, meta, readAll, storeForEachTest } from './helpers.js';

async function upload(writer: BodyWriter, body: Buffer, chunk: number): Promise<void> {
  // the caller's chunks may be views of one larger buffer (a request body's decoded chunks)
  for (let at = 0; at < body.length; at += chunk) await writer.write(body.subarray(at, Math.min(body.length, at + chunk)));
}

describe('remote body writes', () => {
  let store: SegmentStore;
  let remote: RemoteWrites;
  let channel: MessageChannel;
  storeForEachTest([bucket('b'), { ...bucket('v'), versioning: 'Enabled' }], (s) => (store = s), { segmentSize: 1 << 20 });
  beforeEach(() => {
    channel = new MessageChannel();
    serveRemoteWrites(channel.port1, store);
    remote = new RemoteWrites(channel.port2);
  });
  afterEach(() => {
    channel.port1.close();
    channel.port2.close();
  });

  it('commits a small body sent with its commit', async () => {
    const body = randomBytes(3000);
    const w = remote.beginWrite(body.length);
    await upload(w, body, 1000);
    const v = await w.commit('b', 'small', meta('e1'));
    expect(v).toMatchObject({ key: 'small', size: 3000, etag: 'e1', versionId: 'null' });
    const stored = store.getObject('b', 'small')!;
    expect((await readAll(store, stored)).equals(body)).toBe(true);
  });

  it('streams a large body chunk by chunk, past the window, byte-identical', async () => {
    const body = randomBytes(700_000);
    const w = remote.beginWrite(body.length);
    await upload(w, body, 17_000);
    expect(w.written).toBe(body.length);
    const v = await w.commit('v', 'large', meta('e2'));
    expect(v.versionId).not.toBe('null');
    expect((await readAll(store, store.getObject('v', 'large')!)).equals(body)).toBe(true);
  });

  it('takes many writes in flight at once (the body pipeline does not wait for each)', async () => {
    const body = randomBytes(40 * 16_384);
    const w = remote.beginWrite(body.length);
    const writes: Promise<void>[] = [];
    for (let at = 0; at < body.length; at += 16_384) writes.push(w.write(body.subarray(at, at + 16_384)));
    await Promise.all(writes);
    await w.commit('b', 'pipelined', meta('p'));
    expect((await readAll(store, store.getObject('b', 'pipelined')!)).equals(body)).toBe(true);
  });

  it('interleaves several writers and keeps each body whole', async () => {
    const bodies = [randomBytes(90_000), randomBytes(10), randomBytes(200_000), randomBytes(0)];
    const committed: ObjectVersion[] = await Promise.all(bodies.map(async (body, i) => {
      const w = remote.beginWrite(body.length);
      await upload(w, body, 7_000);
      return w.commit('b', `k${i}`, meta(`e${i}`));
    }));
    expect(committed.map((v) => v.size)).toEqual(bodies.map((b) => b.length));
    for (const [i, body] of bodies.entries()) expect((await readAll(store, store.getObject('b', `k${i}`)!)).equals(body)).toBe(true);
  });

  it("brings a failed condition back as the engine's error and stores nothing", async () => {
    const first = remote.beginWrite(5);
    await first.write(Buffer.from('first'));
    await first.commit('b', 'once', meta('e1'), { ifNoneMatchStar: true });
    for (const size of [5, 100_000]) {
      const again = remote.beginWrite(size);
      await upload(again, randomBytes(size), 30_000);
      const failure = await again.commit('b', 'once', meta('e2'), { ifNoneMatchStar: true }).catch((e: unknown) => e);
      expect(isStoreError(failure, 'condition-failed')).toBe(true);
    }
    expect(store.getObject('b', 'once')?.etag).toBe('e1');
    const missing = remote.beginWrite(4);
    await missing.write(Buffer.from('part'));
    const e = await missing.commitPart('b', 'k', 'no-such-upload', 1, meta('p')).catch((x: unknown) => x);
    expect(isStoreError(e, 'not-found')).toBe(true);
    expect((e as { subject?: string }).subject).toBe('upload');
  });

  it('commits a part of an upload', async () => {
    const up = await store.createUpload('b', 'mp', {});
    const body = randomBytes(150_000);
    const w = remote.beginWrite(body.length);
    await upload(w, body, 64 * 1024);
    const part = await w.commitPart('b', 'mp', up.uploadId, 3, meta('pe'));
    expect(part).toMatchObject({ partNumber: 3, size: body.length, etag: 'pe' });
    expect(store.listParts(up.uploadId, 0, 10).parts.map((p) => p.partNumber)).toEqual([3]);
  });

  it('refuses a body longer or shorter than declared, and an aborted body leaves no version', async () => {
    const w = remote.beginWrite(100_000);
    await w.write(randomBytes(60_000));
    await expect(w.write(randomBytes(60_000))).rejects.toThrow(/longer than its declared size/);
    await expect(w.commit('b', 'short', meta('x'))).rejects.toThrow(/60000 of its 100000/);
    expect(store.getObject('b', 'short')).toBeUndefined();
    const a = remote.beginWrite(100_000);
    await a.write(randomBytes(50_000));
    await a.abort();
    await expect(a.commit('b', 'aborted', meta('x'))).rejects.toThrow(/commit after/);
    expect(store.getObject('b', 'aborted')).toBeUndefined();
    // the writer still serves the next body
    const next = remote.beginWrite(3);
    await next.write(Buffer.from('abc'));
    expect((await next.commit('b', 'after', meta('n'))).size).toBe(3);
  });
});
