// A node's blob parts as objects in its own storage engine, bucket `slivers`: `<blobIdHex>/b` for a
// bundle of the node's whole share (blob-bundle.ts; in-process nodes store this way), and, for parts
// that arrive one by one over HTTP, `<blobIdHex>/m` for metadata and `<blobIdHex>/<pair>/p|s` for
// slivers. One prefix holds everything of a blob.

import { randomBytes } from 'node:crypto';
import { openStore, type ObjectVersion, type Store } from '../../store/index.js';
import { internalObjectMeta } from '../../store/object-meta.js';
import { isStoreError } from '../../store/errors.js';
import { ReadReplica } from '../../store/read-replica.js';
import type { PutOutcome, SliverAxis } from './types.js';

export const SLIVER_BUCKET = 'slivers';
const NODE_COMPACTION_MS = 60_000;
const DELETE_PAGE = 1000;

export function metadataKey(blobId: Uint8Array): string {
  return `${Buffer.from(blobId).toString('hex')}/m`;
}

export function sliverKey(blobId: Uint8Array, pairIndex: number, axis: SliverAxis): string {
  return `${Buffer.from(blobId).toString('hex')}/${pairIndex}/${axis === 'primary' ? 'p' : 's'}`;
}

export function bundleKey(blobId: Uint8Array): string {
  return `${Buffer.from(blobId).toString('hex')}/b`;
}

export function blobPrefix(blobId: Uint8Array): string {
  return `${Buffer.from(blobId).toString('hex')}/`;
}


export class SliverStore {
  private constructor(
    private readonly store: Store,
    private readonly replica?: ReadReplica,
  ) {}

  /** `onSegmentRemoved`: compaction deleted a segment (readers in other threads drop their fds of it). */
  static async open(dataDir: string, durability: 'strict' | 'relaxed', diskReserve?: number, onSegmentRemoved?: (segment: number) => void): Promise<SliverStore> {
    const store = await openStore({ dataDir, durability, diskReserve, onSegmentRemoved });
    // reclaimed blobs' slivers come back as space; a failed pass is tried again at the next one
    store.startCompaction(NODE_COMPACTION_MS, {}, () => undefined);
    await store.createBucket({
      name: SLIVER_BUCKET,
      owner: 'storage-node',
      created: Date.now(),
      acl: 'private',
      objectLock: false,
      versioning: 'Unversioned',
    });
    return new SliverStore(store);
  }

  /** A read-only view, for another thread, of a node directory that a SliverStore in this process has open: writes throw. */
  static async openReader(dataDir: string): Promise<SliverStore> {
    const replica = await ReadReplica.open({ dataDir });
    return new SliverStore(replica, replica);
  }

  /** A reader: what was committed before this call is seen from here on (no-op on the writing store). */
  refresh(): void {
    this.replica?.refresh();
  }

  /** A reader: the writing store's compaction deleted `segment`. */
  segmentRemoved(segment: number): void {
    this.replica?.segmentRemoved(segment);
  }

  has(key: string): boolean {
    return this.store.getObject(SLIVER_BUCKET, key) !== undefined;
  }

  /** Stores `body` (one buffer, or chunks written as one record) under `key` unless something is already there (the first write wins). */
  async putIfAbsent(key: string, body: Buffer | readonly Buffer[]): Promise<PutOutcome> {
    if (this.has(key)) return 'already-stored';
    const chunks = Buffer.isBuffer(body) ? [body] : body;
    const size = chunks.reduce((n, c) => n + c.length, 0);
    const writer = this.store.beginWrite(size);
    try {
      // The chunks as they are, not concatenated: copying a node's share of a large blob on the
      // event loop stalled every other request (test/e2e/publisher-event-loop.test.ts).
      // All chunks at once: each write takes its position when called, so they may land in any order.
      await Promise.all(chunks.map((chunk) => writer.write(chunk)));
      // The condition is evaluated inside the index transaction, so concurrent puts of one key cannot both win.
      // A fresh etag per write names this body, so readers holding a parsed index notice a replacement.
      await writer.commit(SLIVER_BUCKET, key, internalObjectMeta(randomBytes(16).toString('hex')), { ifNoneMatchStar: true });
      return 'stored';
    } catch (e) {
      await writer.abort();
      if (isStoreError(e, 'condition-failed')) return 'already-stored';
      throw e;
    }
  }

  get(key: string): Promise<Buffer | undefined> {
    return this.reading(async () => {
      const record = this.store.getObject(SLIVER_BUCKET, key);
      return record && this.readRecord(record, 0, record.size);
    });
  }

  /** The stored object under `key`: its size and an identity that changes when it is replaced. */
  stat(key: string): { size: number; identity: string } | undefined {
    const record = this.store.getObject(SLIVER_BUCKET, key);
    return record && { size: record.size, identity: recordIdentity(record) };
  }

  /**
   * Bytes [start, end) of the object under `key`, if it is still the one `identity` names (else
   * undefined: it was deleted or replaced since).
   */
  getRange(key: string, start: number, end: number, identity?: string): Promise<Buffer | undefined> {
    return this.reading(async () => {
      const record = this.store.getObject(SLIVER_BUCKET, key);
      if (!record || (identity !== undefined && recordIdentity(record) !== identity)) return undefined;
      return this.readRecord(record, start, Math.min(end, record.size));
    });
  }

  /**
   * A reader's snapshot may name a segment the writer's compaction has deleted since (the record
   * moved): it looks again, once, in a fresh snapshot.
   */
  private async reading<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (e) {
      if (!this.replica || !isStoreError(e, 'moved')) throw e;
      this.replica.refresh();
      return read();
    }
  }

  private async readRecord(record: ObjectVersion, start: number, end: number): Promise<Buffer> {
    const key = record.key;
    const out = Buffer.allocUnsafe(end - start);
    const reader = this.store.openRead(record, start, end);
    try {
      let at = 0;
      while (at < out.length) {
        const chunk = await reader.read(out.length - at); // valid only until the next read: copy it out
        if (!chunk) break;
        at += chunk.copy(out, at);
      }
      if (at !== out.length) throw new Error(`short read of ${key}: ${at} of ${out.length} bytes`);
    } finally {
      reader.close();
    }
    return out;
  }

  /** Removes every object under `prefix`; resolves to how many there were. */
  async deletePrefix(prefix: string): Promise<number> {
    let removed = 0;
    for (;;) {
      const page = this.store.list(SLIVER_BUCKET, { prefix, delimiter: '', startAfter: '', maxKeys: DELETE_PAGE });
      const keys = page.items.flatMap((item) => (item.kind === 'object' ? [item.record.key] : []));
      if (keys.length === 0) return removed;
      const outcomes = await Promise.all(keys.map((key) => this.store.deleteObject(SLIVER_BUCKET, key)));
      removed += outcomes.filter((o) => o.kind === 'removed').length;
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

function recordIdentity(record: ObjectVersion): string {
  return record.etag;
}
