// Body writes from another thread (store/remote-writes.ts), over a real MessageChannel: a read
// replica writes each body into an extent the writer's store granted, the store commits it,
// conditions and errors come back as the engine's own, small records share leases, and a granted
// segment is not compacted away until the front end is done with it.

import { randomBytes } from 'node:crypto';
import { existsSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStoreError } from '../../../src/store/errors.js';
import { ReadReplica } from '../../../src/store/read-replica.js';
import { serveRemoteWrites } from '../../../src/store/remote-writes.js';
import type { SegmentStore } from '../../../src/store/index.js';
import type { BodyWriter, Extent, ObjectVersion } from '../../../src/store/types.js';
import { bucket, meta, readAll, storeForEachTest } from './helpers.js';

/** A commit result with its extents' block CRCs as Buffers (the index decodes them so; the front end holds the bytes it computed). */
function comparable<T extends { extents: Extent[] }>(result: T): T {
  return { ...result, extents: result.extents.map((e) => ({ ...e, ...(e.blockCrcs ? { blockCrcs: Buffer.from(e.blockCrcs) } : {}) })) };
}

async function upload(writer: BodyWriter, body: Buffer, chunk: number): Promise<void> {
  // the caller's chunks may be views of one larger buffer (a request body's decoded chunks)
  for (let at = 0; at < body.length; at += chunk) await writer.write(body.subarray(at, Math.min(body.length, at + chunk)));
}

describe('remote body writes', () => {
  let store: SegmentStore;
  let dir: string;
  let remote: ReadReplica;
  let channel: MessageChannel;
  let grants: { close(): void };
  /** the front end's requests, by kind */
  let sent: Record<string, number>;
  storeForEachTest([bucket('b'), { ...bucket('v'), versioning: 'Enabled' }], (s, d) => ((store = s), (dir = d)), { segmentSize: 4 << 20 });
  beforeEach(async () => {
    channel = new MessageChannel();
    grants = serveRemoteWrites(channel.port1, store);
    sent = {};
    channel.port1.on('message', (batch: Array<{ t: string }>) => {
      for (const m of batch) sent[m.t] = (sent[m.t] ?? 0) + 1;
    });
    remote = await ReadReplica.open({ dataDir: dir, writes: channel.port2 });
  });
  const segmentExists = (segment: number): boolean => existsSync(join(dir, 'segments', `${String(segment).padStart(8, '0')}.seg`));
  afterEach(async () => {
    await remote.close();
    grants.close();
    channel.port1.close();
    channel.port2.close();
  });

  it('writes a small body into a lease and has the writer commit it', async () => {
    const body = randomBytes(3000);
    const w = remote.beginWrite(body.length);
    await upload(w, body, 1000);
    const v = await w.commit('b', 'small', meta('e1', 3000, { type: 'text/plain', meta: { a: '1' } }));
    expect(v).toMatchObject({ key: 'small', size: 3000, etag: 'e1', versionId: 'null' });
    const stored = store.getObject('b', 'small')!;
    // the writer answers only the version id: the front end's result is the one the engine made
    expect(comparable(v)).toEqual(stored);
    expect((await readAll(store, stored)).equals(body)).toBe(true);
  });

  it('writes a large body into an extent of its own, byte-identical', async () => {
    const body = randomBytes(700_000);
    const w = remote.beginWrite(body.length);
    await upload(w, body, 17_000);
    expect(w.written).toBe(body.length);
    const v = await w.commit('v', 'large', meta('e2'));
    expect(v.versionId).not.toBe('null');
    expect(comparable(v)).toEqual(store.getObject('v', 'large'));
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
    const part = await w.commitPart('b', 'mp', up.uploadId, 3, meta('pe', body.length, { checksum: 'c' }));
    expect(part).toMatchObject({ partNumber: 3, size: body.length, etag: 'pe' });
    expect(store.listParts(up.uploadId, 0, 10).parts).toEqual([comparable(part)]);
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

  it('carves many small records out of few leases', async () => {
    const bodies = Array.from({ length: 300 }, (_, i) => randomBytes(1000 + i));
    await Promise.all(bodies.map(async (body, i) => {
      const w = remote.beginWrite(body.length);
      await w.write(body);
      await w.commit('b', `small${i}`, meta(`s${i}`));
    }));
    for (const [i, body] of bodies.entries()) expect((await readAll(store, store.getObject('b', `small${i}`)!)).equals(body)).toBe(true);
    expect(sent.commit).toBe(300);
    // 300 records of ~5 KiB each fit in two 1 MiB leases (a third may have been asked for ahead)
    expect(sent.reserve).toBeLessThanOrEqual(3);
  });

  /**
   * A small body written from the front end (so into its lease), then deleted, and the writer
   * moved on to a later segment: the lease's segment holds nothing live and is a compaction
   * candidate. Returns that segment.
   */
  async function leasedSegmentLeftBehind(key: string): Promise<number> {
    const w = remote.beginWrite(2000);
    await w.write(randomBytes(2000));
    await w.commit('b', key, meta('h'));
    const segment = store.getObject('b', key)!.extents[0]!.segment;
    await store.deleteObject('b', key);
    const big = store.beginWrite(3 << 20);
    await big.write(randomBytes(3 << 20));
    await big.commit('b', 'filler', meta('f'));
    const elsewhere = store.beginWrite(2 << 20);
    await elsewhere.write(randomBytes(2 << 20));
    await elsewhere.commit('b', 'next', meta('n'));
    expect(store.getObject('b', 'next')!.extents[0]!.segment).toBeGreaterThan(segment);
    return segment;
  }

  it('keeps a granted segment from compaction until the front end lets go of it', async () => {
    const segment = await leasedSegmentLeftBehind('held');
    await store.compact({ minDeadRatio: 0.01 });
    expect(segmentExists(segment)).toBe(true); // the front end's lease is still open there
    await remote.close(); // gives its leases back
    await new Promise((r) => setTimeout(r, 50));
    await store.compact({ minDeadRatio: 0.01 });
    expect(segmentExists(segment)).toBe(false);
    remote = await ReadReplica.open({ dataDir: dir, writes: new MessageChannel().port2 });
  });

  it('gives an idle lease back by itself, so that its segment can be compacted away', async () => {
    const segment = await leasedSegmentLeftBehind('idle');
    await store.compact({ minDeadRatio: 0.01 });
    expect(segmentExists(segment)).toBe(true);
    // unused for a second, the lease goes back (checked once a second)
    for (const until = Date.now() + 5000; !sent.release && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    expect(sent.release).toBeGreaterThanOrEqual(1);
    await store.compact({ minDeadRatio: 0.01 });
    expect(segmentExists(segment)).toBe(false);
  });

  it("brings an out-of-space grant back as the engine's error", async () => {
    const { bavail, bsize } = statfsSync(dir);
    const w = remote.beginWrite(bavail * bsize + (1 << 30));
    const e = await w.write(randomBytes(10)).catch((x: unknown) => x);
    expect(isStoreError(e, 'out-of-space')).toBe(true);
    await w.abort();
    expect(store.stats().liveRecords).toBe(0);
  });
});
