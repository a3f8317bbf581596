// The lifecycle worker over the engine directly: incomplete uploads aborted after N days (there
// is no S3 multipart API on this branch yet), tag filters, and expiration dates.

import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLifecycleWorker, type LifecycleWorker } from '../../../src/s3/lifecycle/worker.js';
import type { LifecycleRule } from '../../../src/s3/lifecycle/rules.js';
import type { S3ObjectAttrs, S3Store } from '../../../src/s3/object-attrs.js';
import type { LifecycleAction, S3AccessLogging } from '../../../src/s3/context.js';
import type { SegmentStore } from '../../../src/store/index.js';
import { bucket, open, tempDir } from '../store/helpers.js';

const DAY = 1000;
const NOW = Date.parse('2030-06-01T00:00:00Z');

function attrs(tags?: Array<[string, string]>): S3ObjectAttrs {
  return { contentType: 'x', storageClass: 'STANDARD', acl: 'private', headers: {}, meta: {}, ...(tags ? { tags } : {}) } as S3ObjectAttrs;
}

describe('lifecycle worker', () => {
  let dir: string;
  let engine: SegmentStore;
  let store: S3Store;
  let worker: LifecycleWorker;

  beforeEach(async () => {
    dir = tempDir();
    engine = await open(dir);
    store = engine as unknown as S3Store;
    worker = startLifecycleWorker(store, { intervalMs: 3_600_000, dayMs: DAY }, () => undefined);
  });
  afterEach(async () => {
    await worker.stop();
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function withRules(name: string, rules: LifecycleRule[]): Promise<void> {
    await store.createBucket({ ...bucket(name), versionControl: { lifecycle: rules } });
  }

  async function put(b: string, key: string, a: S3ObjectAttrs, lastModified: number): Promise<void> {
    const w = store.beginWrite(1);
    await w.write(Buffer.from('x'));
    await w.commit(b, key, { etag: 'e', lastModified, attrs: a });
  }

  it('aborts incomplete uploads older than DaysAfterInitiation under the rule prefix only', async () => {
    await withRules('mpu', [{ id: 'a', enabled: true, filter: { prefix: 'up/', tags: [], form: 'filter' }, abortIncompleteDays: 2 }]);
    const old = await store.createUpload('mpu', 'up/old', attrs(), NOW - 3 * DAY);
    const young = await store.createUpload('mpu', 'up/young', attrs(), NOW - DAY);
    const other = await store.createUpload('mpu', 'elsewhere', attrs(), NOW - 10 * DAY);
    await worker.runOnce(NOW);
    expect(store.getUpload('mpu', 'up/old', old.uploadId)).toBeUndefined();
    expect(store.getUpload('mpu', 'up/young', young.uploadId)).toBeDefined();
    expect(store.getUpload('mpu', 'elsewhere', other.uploadId)).toBeDefined();
    expect(worker.stats.uploadsAborted).toBe(1);
  });

  it('expires by tag filter and by date', async () => {
    const tagged: LifecycleRule = { id: 't', enabled: true, filter: { prefix: '', tags: [{ key: 'class', value: 'tmp' }], form: 'filter' }, expiration: { days: 1 } };
    const dated: LifecycleRule = { id: 'd', enabled: true, filter: { prefix: 'd/', tags: [], form: 'filter' }, expiration: { date: NOW + 5 * DAY } };
    await withRules('tags', [tagged, dated]);
    await put('tags', 'tmp', attrs([['class', 'tmp'], ['x', 'y']]), NOW - 3 * DAY);
    await put('tags', 'keep', attrs([['class', 'gold']]), NOW - 3 * DAY);
    await put('tags', 'untagged', attrs(), NOW - 3 * DAY);
    await put('tags', 'd/x', attrs(), NOW - 30 * DAY);
    await worker.runOnce(NOW);
    expect(['tmp', 'keep', 'untagged', 'd/x'].map((k) => store.getObject('tags', k) !== undefined)).toEqual([false, true, true, true]);
    await worker.runOnce(NOW + 5 * DAY);
    expect(store.getObject('tags', 'd/x')).toBeUndefined();
  });

  it('skips a disabled rule and a locked object in an unversioned pass', async () => {
    await withRules('off', [{ id: 'x', enabled: false, filter: { prefix: '', tags: [], form: 'prefix' }, expiration: { days: 1 } }]);
    await put('off', 'k', attrs(), NOW - 3 * DAY);
    await withRules('held', [{ id: 'x', enabled: true, filter: { prefix: '', tags: [], form: 'prefix' }, expiration: { days: 1 } }]);
    await put('held', 'k', { ...attrs(), legalHold: true }, NOW - 3 * DAY);
    await worker.runOnce(NOW);
    expect(store.getObject('off', 'k')).toBeDefined();
    expect(store.getObject('held', 'k')).toBeDefined();
    expect(worker.stats.lockedSkipped).toBe(1);
  });
});

describe('lifecycle worker: server access log records of what it did', () => {
  it('journals each committed action of a logged bucket (expiry, delete marker, noncurrent removal, upload abort), none of an unlogged one', async () => {
    const dir = tempDir();
    const engine = await open(dir);
    const store = engine as unknown as S3Store;
    const seen: Array<[string, LifecycleAction]> = [];
    const accessLog = { watch: () => { throw new Error('no requests here'); }, lifecycle: (b, a) => void seen.push([b.name, a]) } as S3AccessLogging;
    const worker = startLifecycleWorker(store, { intervalMs: 3_600_000, dayMs: DAY }, () => undefined, () => undefined, () => accessLog);
    const logging = { targetBucket: 'logs', targetPrefix: '' };
    const rules = (extra: Partial<LifecycleRule> = {}) => ({ lifecycle: [{ id: 'x', enabled: true, filter: { prefix: '', tags: [], form: 'prefix' }, expiration: { days: 1 }, ...extra }] });
    const put = async (b: string, key: string, lastModified: number) => {
      const w = store.beginWrite(3);
      await w.write(Buffer.from('abc'));
      return w.commit(b, key, { etag: `e${lastModified}`, lastModified, attrs: attrs() });
    };
    try {
      await store.createBucket({ ...bucket('plain'), logging, versionControl: rules({ abortIncompleteDays: 1 }) } as never);
      await store.createBucket({ ...bucket('versioned'), versioning: 'Enabled', logging, versionControl: rules({ noncurrentExpiration: { days: 1 } }) } as never);
      await store.createBucket({ ...bucket('quiet'), versionControl: rules() });
      await put('plain', 'old', NOW - 3 * DAY);
      await put('plain', 'young', NOW);
      await store.createUpload('plain', 'up', attrs(), NOW - 3 * DAY);
      const first = await put('versioned', 'v', NOW - 9 * DAY);
      await put('versioned', 'v', NOW - 3 * DAY);
      await put('quiet', 'q', NOW - 3 * DAY);
      await worker.runOnce(NOW);
      const marker = store.getObject('versioned', 'v');
      expect(marker?.deleteMarker).toBe(true);
      expect(seen).toEqual([
        ['plain', { operation: 'expire', key: 'old', versionId: undefined, objectSize: 3 }],
        ['plain', { operation: 'abortUpload', key: 'up', versionId: undefined, objectSize: undefined }],
        ['versioned', { operation: 'expire', key: 'v', versionId: first.versionId, objectSize: 3 }],
        ['versioned', { operation: 'deleteMarker', key: 'v', versionId: marker!.versionId, objectSize: undefined }],
      ]);
      expect(store.getObject('quiet', 'q')).toBeUndefined();
    } finally {
      await worker.stop();
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lifecycle worker passes', () => {
  it('runs again after a pass that found nothing to do', async () => {
    const dir = tempDir();
    const engine = await open(dir);
    const store = engine as unknown as S3Store;
    const worker = startLifecycleWorker(store, { intervalMs: 3_600_000, dayMs: DAY }, () => undefined);
    try {
      await worker.runOnce(NOW);
      await store.createBucket({
        ...bucket('later'),
        versionControl: { lifecycle: [{ id: 'x', enabled: true, filter: { prefix: '', tags: [], form: 'prefix' }, expiration: { days: 1 } }] },
      });
      const w = store.beginWrite(1);
      await w.write(Buffer.from('x'));
      await w.commit('later', 'k', { etag: 'e', lastModified: NOW - 3 * DAY, attrs: attrs() });
      await worker.runOnce(NOW);
      expect(store.getObject('later', 'k')).toBeUndefined();
      expect(worker.stats.passes).toBe(2);
    } finally {
      await worker.stop();
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
