// A view of a data directory for a thread other than the writer's: the same LMDB environment
// (lmdb-js shares it between the threads of a process, and this thread only reads it) and fds of the
// segment files, opened on first use. The only thing it writes is object bodies, into extents the
// writer thread granted, which the writer thread then commits (remote-writes.ts); every other
// change is the writer's alone. The writing store (segment-store.ts) tells it, through its owner,
// when compaction deleted a segment, and bumps the shared bucket generation after every bucket change.

import fs from 'node:fs';
import path from 'node:path';
import { BlockCache } from './block-cache.js';
import { SYNC_READ_MAX } from './body-reader.js';
import { fastestCrc32c } from './crc32c.js';
import { StoreError } from './errors.js';
import { openIndex } from './index-db.js';
import { IndexReads } from './index-reads.js';
import { RemoteWrites } from './remote-writes.js';
import type { MessagePort } from 'node:worker_threads';
import { segmentFileName, type ReadableSegment, type SegmentReadTable } from './segment-files.js';
import type { BodyWriter, BucketRecord, DeleteBucketResult, DeleteOutcome, ObjectVersion, Store, Upload } from './types.js';

export interface ReplicaOptions {
  dataDir: string;
  readCacheBytes?: number;
  /** the writing store's StoreOptions.bucketGeneration */
  bucketGeneration?: Int32Array;
  /** the writer thread's end for body writes (remote-writes.ts); without it the replica refuses writes */
  writes?: MessagePort;
}

interface ReplicaSegment extends ReadableSegment {
  readers: number;
  removed: boolean;
}

/** Fds by segment (read-write: bodies are written into granted extents); one stays open while a reader or writer holds it, even once its file is deleted. */
class ReplicaSegments implements SegmentReadTable {
  private readonly files = new Map<number, ReplicaSegment>();

  constructor(private readonly dir: string) {}

  get(segment: number): ReplicaSegment {
    let file = this.files.get(segment);
    if (!file) {
      let fd: number;
      try {
        fd = fs.openSync(path.join(this.dir, segmentFileName(segment)), 'r+');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new StoreError('moved', `segment ${segment} is gone`);
        throw e;
      }
      file = { segment, fd, ready: Promise.resolve(fd), readers: 0, removed: false };
      this.files.set(segment, file);
    }
    return file;
  }

  acquire(segment: number): ReplicaSegment {
    const file = this.get(segment);
    file.readers++;
    return file;
  }

  release(file: ReadableSegment): void {
    const f = file as ReplicaSegment;
    if (--f.readers === 0 && f.removed) this.drop(f);
  }

  /** The writer deleted `segment`: its fd closes once no read holds it (the space comes back then). */
  removed(segment: number): void {
    const file = this.files.get(segment);
    if (!file) return;
    file.removed = true;
    if (file.readers === 0) this.drop(file);
  }

  closeAll(): void {
    for (const file of this.files.values()) this.drop(file);
  }

  private drop(file: ReplicaSegment): void {
    this.files.delete(file.segment);
    if (file.fd !== undefined) fs.closeSync(file.fd);
    file.fd = undefined;
  }
}

function readOnly(): never {
  throw new Error('a read replica does not write: writes go to the writing thread');
}

export class ReadReplica<A = unknown, P = unknown, B extends BucketRecord = BucketRecord> extends IndexReads<A, P, B> implements Store<A, P, B> {
  private constructor(
    index: ReturnType<typeof openIndex>,
    private readonly segments: ReplicaSegments,
    readContext: ConstructorParameters<typeof IndexReads>[1],
    bucketGeneration: Int32Array | undefined,
    private readonly writes: RemoteWrites | undefined,
  ) {
    super(index, readContext, bucketGeneration);
  }

  static async open<A, P, B extends BucketRecord>(options: ReplicaOptions): Promise<ReadReplica<A, P, B>> {
    const crc32c = await fastestCrc32c();
    const index = openIndex(options.dataDir, { readOnly: true });
    const segments = new ReplicaSegments(path.join(options.dataDir, 'segments'));
    const cache = options.readCacheBytes ? new BlockCache(options.readCacheBytes, SYNC_READ_MAX) : undefined;
    const writes = options.writes && new RemoteWrites(options.writes, segments, crc32c);
    // a failed check surfaces as the read's error; the writer counts corrupt blocks it finds itself
    return new ReadReplica<A, P, B>(index, segments, { files: segments, crc32c, onCorrupt: () => undefined, cache }, options.bucketGeneration, writes);
  }

  /**
   * Reads from here on see every commit acknowledged before this call. Called as a request starts:
   * lmdb-js otherwise keeps a read snapshot until a timer fires (1 ms or more), and a client that
   * got a write's answer from the writer thread must find the write on its next request here.
   */
  refresh(): void {
    this.index.env.resetReadTxn();
  }

  /** The writer deleted `segment` (compaction): drop its fd once no read holds it. */
  segmentRemoved(segment: number): void {
    this.segments.removed(segment);
  }

  createBucket(): Promise<'created' | 'exists'> {
    return readOnly();
  }
  putBucket(): Promise<void> {
    return readOnly();
  }
  updateBucket(): Promise<B> {
    return readOnly();
  }
  deleteBucket(): Promise<DeleteBucketResult> {
    return readOnly();
  }
  beginWrite(size: number): BodyWriter<A, P> {
    return this.writes ? this.writes.beginWrite<A, P>(size) : readOnly();
  }
  deleteObject(): Promise<DeleteOutcome<A>> {
    return readOnly();
  }
  copyObject(): Promise<ObjectVersion<A>> {
    return readOnly();
  }
  updateAttrs(): Promise<ObjectVersion<A>> {
    return readOnly();
  }
  dropBody(): Promise<boolean> {
    return readOnly();
  }
  createUpload(): Promise<Upload<A>> {
    return readOnly();
  }
  completeUpload(): Promise<ObjectVersion<A>> {
    return readOnly();
  }
  abortUpload(): Promise<boolean> {
    return readOnly();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writes?.close();
    this.segments.closeAll();
    await this.index.env.close();
  }
}
