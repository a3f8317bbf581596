// Shared fixtures for the storage engine tests: a temp data dir, a bucket, object metadata, and
// helpers that write and read whole bodies through the streaming API.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openStore, type SegmentStore, type StoreInternals } from '../../../src/store/index.js';
import { internalObjectMeta } from '../../../src/store/object-meta.js';
import type { BucketRecord, ObjectVersion, StoreOptions, VersionInput, WriteCondition } from '../../../src/store/types.js';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-store-'));
}

export async function open(
  dataDir: string,
  options: Partial<StoreOptions> = {},
  internals?: StoreInternals,
): Promise<SegmentStore> {
  return openStore({ dataDir, durability: 'strict', ...options }, internals);
}

export function bucket(name: string, owner = 'owner-1'): BucketRecord {
  return { name, owner, created: 1_700_000_000_000, acl: 'private', objectLock: false, versioning: 'Unversioned' };
}

/**
 * For each test of the calling `describe`: a fresh store in a temp dir (opened with `options`)
 * with `buckets` created, handed to `use` before the test; closed and removed after it.
 */
export function storeForEachTest(
  buckets: BucketRecord[],
  use: (store: SegmentStore, dir: string) => void,
  options: Partial<StoreOptions> = {},
): void {
  let store: SegmentStore | undefined;
  let dir = '';
  beforeEach(async () => {
    dir = tempDir();
    store = await open(dir, options);
    for (const record of buckets) await store.createBucket(record);
    use(store, dir);
  });
  afterEach(async () => {
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

/** What a test commits: an etag, a fixed time, and `attrs` (the size argument documents the call). */
export function meta(etag: string, _size?: number, attrs?: unknown): VersionInput {
  return { ...internalObjectMeta(etag, 1_700_000_000_000), attrs };
}

/** Writes `body` in chunks of `chunkSize` and commits it. */
export async function put(
  store: SegmentStore,
  bucketName: string,
  key: string,
  body: Buffer,
  options: { chunkSize?: number; etag?: string; condition?: WriteCondition } = {},
): Promise<ObjectVersion> {
  const writer = store.beginWrite(body.length);
  const chunkSize = options.chunkSize ?? 16 * 1024;
  for (let i = 0; i < body.length; i += chunkSize) await writer.write(Buffer.from(body.subarray(i, i + chunkSize)));
  return writer.commit(bucketName, key, meta(options.etag ?? `etag-${key}`, body.length), options.condition);
}

export async function readAll(
  store: SegmentStore,
  record: ObjectVersion,
  start = 0,
  end = record.size,
  maxBytes = 64 * 1024,
): Promise<Buffer> {
  const reader = store.openRead(record, start, end);
  const parts: Buffer[] = [];
  try {
    for (let chunk = await reader.read(maxBytes); chunk; chunk = await reader.read(maxBytes)) {
      parts.push(Buffer.from(chunk)); // the reader reuses its buffer
    }
  } finally {
    reader.close();
  }
  return Buffer.concat(parts);
}

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Compiles src/store to plain JavaScript in a fresh folder, for a child process that a test kills; returns the folder. */
export function compileStoreForChild(name: string): string {
  const outDir = path.join(ROOT, 'node_modules/.cache', `${name}-${process.pid}`);
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), 'src/store/index.ts', '--outDir', outDir, '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--target', 'es2022', '--skipLibCheck', '--types', 'node'],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return outDir;
}

/** Bytes of the segment files of a data directory. */
export function segmentBytes(dataDir: string): number {
  const dir = path.join(dataDir, 'segments');
  return fs.readdirSync(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
}
