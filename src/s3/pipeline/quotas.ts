// Per-bucket quotas (issue 13 §6), kept in <data-dir>/bucket-quotas.json. A bucket's usage is
// counted by listing it and cached for USAGE_TTL_MS, grown by each committed write in between: as
// MinIO's quotas, enforcement is close but not exact under concurrent writers (see README).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../../base/durable-file.js';
import { GenerationWatch } from '../../base/shared-generation.js';
import type { WriteQuota } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { objectSize } from '../sse/sse.js';
import type { S3Store } from '../object-attrs.js';
import { eachVersionPage } from '../version-pages.js';

export const QUOTAS_FILE = 'bucket-quotas.json';
const USAGE_TTL_MS = 10_000;
const LIST_PAGE = 1000;

export interface BucketQuota {
  maxBytes?: number;
  maxObjects?: number;
}

export interface BucketUsage {
  objects: number;
  bytes: number;
}

/**
 * Walks a listing a page at a time, letting requests run between pages (a bucket can hold millions
 * of keys): `page` reads the page that starts at `markers` and returns where the next one starts,
 * or undefined after the last.
 */
async function eachPage<M>(first: M, page: (markers: M) => M | undefined): Promise<void> {
  for (let markers = page(first); markers !== undefined; markers = page(markers)) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Objects and bytes of a bucket's current objects, by listing it a page at a time. */
export async function bucketUsage(store: S3Store, bucket: string): Promise<BucketUsage> {
  let objects = 0;
  let bytes = 0;
  await eachPage('', (startAfter) => {
    const page = store.list(bucket, { prefix: '', delimiter: '', startAfter, maxKeys: LIST_PAGE });
    for (const item of page.items) {
      if (item.kind !== 'object') continue;
      objects++;
      bytes += objectSize(item.record);
      startAfter = item.record.key;
    }
    return page.isTruncated && page.items.length > 0 ? startAfter : undefined;
  });
  return { objects, bytes };
}

/** Every entry ListObjectVersions would list (versions and delete markers), a page at a time. */
export async function versionCount(store: S3Store, bucket: string): Promise<number> {
  let n = 0;
  await eachVersionPage(store, bucket, LIST_PAGE, (items) => {
    n += items.length;
  });
  return n;
}

/** Multipart uploads begun and neither completed nor aborted, a page at a time. */
export async function incompleteUploadCount(store: S3Store, bucket: string): Promise<number> {
  let n = 0;
  await eachPage({ keyMarker: '', uploadIdMarker: '' }, (markers) => {
    const page = store.listUploads(bucket, { prefix: '', delimiter: '', ...markers, maxUploads: LIST_PAGE });
    n += page.items.length;
    const last = page.items.at(-1);
    if (!page.isTruncated || last?.kind !== 'upload') return undefined;
    return { keyMarker: last.upload.key, uploadIdMarker: last.upload.uploadId };
  });
  return n;
}

function readQuotas(path: string): Record<string, BucketQuota> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, BucketQuota>) : {};
}

/**
 * Which buckets have a quota, for a front-end thread (--threads N) that sends writes to those
 * buckets to the writer thread, where they are counted: re-read when the shared generation moves.
 */
export class QuotaView {
  private readonly path: string;
  private readonly changes: GenerationWatch;
  private buckets: Set<string>;

  constructor(dataDir: string, generation: Int32Array) {
    this.path = join(dataDir, QUOTAS_FILE);
    // watching before the first read: a change made in between is read again at the next look
    this.changes = new GenerationWatch(generation);
    this.buckets = this.read();
  }

  has(bucket: string): boolean {
    if (this.changes.moved()) this.buckets = this.read();
    return this.buckets.has(bucket);
  }

  private read(): Set<string> {
    return new Set(Object.keys(readQuotas(this.path)));
  }
}

export class BucketQuotas implements WriteQuota {
  private quotas: Record<string, BucketQuota>;
  private readonly usage = new Map<string, BucketUsage & { at: number }>();
  private readonly counting = new Map<string, Promise<BucketUsage & { at: number }>>();
  private readonly path: string;
  private readonly changes: GenerationWatch;

  constructor(
    dataDir: string,
    private readonly store: S3Store,
    /** bumped after every change, for the front-end threads' QuotaView */
    generation?: Int32Array,
  ) {
    this.path = join(dataDir, QUOTAS_FILE);
    this.quotas = readQuotas(this.path);
    this.changes = new GenerationWatch(generation);
  }

  get(bucket: string): BucketQuota | undefined {
    return this.quotas[bucket];
  }

  set(bucket: string, quota: BucketQuota): void {
    this.commit({ ...this.quotas, [bucket]: quota });
  }

  remove(bucket: string): boolean {
    if (!(bucket in this.quotas)) return false;
    const { [bucket]: _removed, ...rest } = this.quotas;
    this.commit(rest);
    return true;
  }

  async checkWrite(bucket: string, key: string, bytes: number): Promise<void> {
    const quota = this.quotas[bucket];
    if (!quota) return;
    const usage = await this.cachedUsage(bucket);
    const replaced = this.store.getObject(bucket, key);
    const objects = usage.objects + (replaced ? 0 : 1);
    const total = usage.bytes - (replaced ? objectSize(replaced) : 0) + bytes;
    if ((quota.maxObjects !== undefined && objects > quota.maxObjects) || (quota.maxBytes !== undefined && total > quota.maxBytes)) {
      throw new S3Error('QuotaExceeded', { BucketName: bucket }, { close: true });
    }
  }

  written(bucket: string, bytes: number): void {
    const usage = this.usage.get(bucket);
    if (!usage) return;
    // an overwrite counts in full until the next count: the error is on the safe side
    usage.objects++;
    usage.bytes += bytes;
  }

  /** The bucket's usage as last counted, counted again once USAGE_TTL_MS old (one count at a time per bucket). */
  private async cachedUsage(bucket: string): Promise<BucketUsage> {
    const cached = this.usage.get(bucket);
    if (cached && Date.now() - cached.at < USAGE_TTL_MS) return cached;
    let counting = this.counting.get(bucket);
    if (!counting) {
      const at = Date.now();
      counting = bucketUsage(this.store, bucket)
        .then((counted) => {
          const fresh = { ...counted, at };
          this.usage.set(bucket, fresh);
          return fresh;
        })
        .finally(() => this.counting.delete(bucket));
      this.counting.set(bucket, counting);
    }
    return counting;
  }

  private commit(next: Record<string, BucketQuota>): void {
    writeFileDurably(this.path, JSON.stringify(next, null, 2) + '\n');
    this.quotas = next;
    this.usage.clear();
    this.changes.bump();
  }
}
