// Acknowledged bytes cut off a segment's end while the server is stopped (a disk or file system
// fault, as `truncate -s -N` does): the damage is loud. Start-up recovery logs it at error level
// naming the segment and every object whose bytes are missing, the metrics and the readiness
// probe show it, every read of a damaged object (HEAD, GET, a range, the source of CopyObject and
// UploadPartCopy) is refused with 500 XTuskObjectDamaged and nothing is copied, intact objects
// read as before, and `tusk scrub` lists the damaged objects and exits 1.

import { truncateSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runTuskToExit } from './helpers/child-process.js';
import { s3Request } from './helpers/clients.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { metricSample } from './helpers/metrics.js';
import { findInSegments, markedBody } from './helpers/segments.js';
import { startTusk, type TuskServer } from './helpers/server.js';
import { expectS3Error, xmlAll, xmlText } from './helpers/xml.js';

const MIB = 1024 * 1024;
const BUCKET = 'dmg';
const DAMAGED = 'XTuskObjectDamaged';
const dir = makeTempDirFixture();
afterAll(() => dir.remove());

/** Log lines at warn level or above (pino: 40 warn, 50 error). */
function loudLines(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((l) => l.level >= 40)
    .map((l) => l.msg);
}

describe('bytes cut off the end of a segment', () => {
  let server: TuskServer | undefined;
  afterAll(async () => server?.stop());

  it('are reported at start-up, in metrics, health and scrub, and every read of the damaged objects is refused', async () => {
    const keep = markedBody('keep', 5000);
    const big = markedBody('big', 3 * MIB);
    const small = markedBody('small', 4000);
    const start = () => startTusk({ dataDir: dir.path, durability: 'strict', extraArgs: ['--compaction-interval', 'off'] });
    server = await start();
    expect((await s3Request(server, { method: 'PUT', bucket: BUCKET })).status).toBe(200);
    const versioning = '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>';
    expect((await s3Request(server, { method: 'PUT', bucket: BUCKET, query: 'versioning', body: versioning })).status).toBe(200);
    const versionOf = async (key: string, body: Buffer): Promise<string> => {
      const res = await s3Request(server!, { method: 'PUT', bucket: BUCKET, key, body });
      expect(res.status).toBe(200);
      return res.headers['x-amz-version-id']!;
    };
    await versionOf('keep', keep);
    const bigVersion = await versionOf('big/object', big);
    const copied = await s3Request(server, { method: 'PUT', bucket: BUCKET, key: 'copy-of-big', headers: { 'x-amz-copy-source': `/${BUCKET}/big/object` } });
    expect(copied.status).toBe(200);
    await versionOf('small', small);
    await server.stop();

    // cut big's body after 2 MiB, and small whole (front-end threads may have put it before big)
    const { file, at: bigAt } = findInSegments(dir.path, big.subarray(0, 64));
    const smallAt = findInSegments(dir.path, small.subarray(0, 64)).at;
    const cutAt = Math.min(bigAt + 2 * MIB, smallAt);
    expect(findInSegments(dir.path, keep.subarray(0, 64)).at + keep.length).toBeLessThanOrEqual(cutAt);
    const missingBytes = Math.min(big.length, bigAt + big.length - cutAt) + small.length;
    const size = statSync(file).size;
    const cut = size - cutAt;
    truncateSync(file, cutAt);

    server = await start();
    const loud = loudLines(server.output()).join('\n');
    const segment = file.slice(file.lastIndexOf('/') + 1, -'.seg'.length).replace(/^0+/, '');
    expect(loud).toMatch(new RegExp(`segment ${segment}\\b.*${cut} bytes shorter`));
    expect(loud).toContain(`${BUCKET}/big/object (version ${bigVersion})`);
    expect(loud).toContain(`${BUCKET}/copy-of-big`);
    expect(loud).toContain(`${BUCKET}/small`);
    expect(loud).not.toContain(`${BUCKET}/keep`);

    const metrics = await (await fetch(`${server.endpoint}/tusk/metrics`)).text();
    expect(metricSample(metrics, 'tusk_store_damaged_objects')).toBe(3);
    expect(metricSample(metrics, 'tusk_store_missing_bytes')).toBe(missingBytes);
    const ready = await fetch(`${server.endpoint}/tusk/health/ready`);
    const health = (await ready.json()) as { status: string; ready: boolean; degraded: string[] };
    // still serving the intact objects, but not healthy
    expect(ready.status).toBe(200);
    expect(health).toMatchObject({ status: 'degraded', ready: true });
    expect(health.degraded.join(' ')).toMatch(new RegExp(`^3 objects \\(versions or parts\\) with missing bytes \\(${missingBytes} bytes lost\\)`));

    const get = (key: string, headers: Record<string, string> = {}) => s3Request(server!, { method: 'GET', bucket: BUCKET, key, headers });
    for (const key of ['big/object', 'copy-of-big', 'small']) {
      const head = await s3Request(server, { method: 'HEAD', bucket: BUCKET, key });
      expectS3Error(head, 500, DAMAGED, 'HEAD');
      expect(head.headers['x-tusk-error-code']).toBe(DAMAGED);
      expectS3Error(await get(key), 500, DAMAGED);
      // even a range whose bytes are intact: the object as a whole is not what was stored
      expectS3Error(await get(key, { range: 'bytes=0-99' }), 500, DAMAGED);
    }
    expectS3Error(await s3Request(server, { method: 'GET', bucket: BUCKET, key: 'big/object', query: { versionId: bigVersion } }), 500, DAMAGED);
    expectS3Error(
      await s3Request(server, { method: 'GET', bucket: BUCKET, key: 'big/object', query: 'attributes', headers: { 'x-amz-object-attributes': 'ETag,ObjectSize' } }),
      500,
      DAMAGED,
    );

    // a copy of a damaged object never succeeds
    const copy = await s3Request(server, { method: 'PUT', bucket: BUCKET, key: 'copy-2', headers: { 'x-amz-copy-source': `/${BUCKET}/big/object` } });
    expectS3Error(copy, 500, DAMAGED);
    expect((await s3Request(server, { method: 'HEAD', bucket: BUCKET, key: 'copy-2' })).status).toBe(404);
    const created = await s3Request(server, { method: 'POST', bucket: BUCKET, key: 'mp', query: 'uploads' });
    const uploadId = xmlText(created.text(), 'UploadId')!;
    const partCopy = await s3Request(server, {
      method: 'PUT',
      bucket: BUCKET,
      key: 'mp',
      query: { partNumber: '1', uploadId },
      headers: { 'x-amz-copy-source': `/${BUCKET}/small` },
    });
    expectS3Error(partCopy, 500, DAMAGED);
    const parts = await s3Request(server, { method: 'GET', bucket: BUCKET, key: 'mp', query: { uploadId } });
    expect(xmlAll(parts.text(), 'PartNumber')).toEqual([]);

    // intact objects read, the store takes new writes, and a damaged object can be deleted
    const kept = await get('keep');
    expect(kept.status).toBe(200);
    expect(kept.body.equals(keep)).toBe(true);
    expect((await s3Request(server, { method: 'PUT', bucket: BUCKET, key: 'after', body: 'fresh' })).status).toBe(200);
    expect((await get('after')).text()).toBe('fresh');
    const smallVersions = await s3Request(server, { method: 'GET', bucket: BUCKET, query: { versions: '', prefix: 'small' } });
    const smallVersion = xmlText(smallVersions.text(), 'VersionId')!;
    expect((await s3Request(server, { method: 'DELETE', bucket: BUCKET, key: 'small', query: { versionId: smallVersion } })).status).toBe(204);
    const after = await (await fetch(`${server.endpoint}/tusk/metrics`)).text();
    expect(metricSample(after, 'tusk_store_damaged_objects')).toBe(2);
    expect(server.alive()).toBe(true);
    await server.stop();
    server = undefined;

    const scrub = runTuskToExit(['scrub', '--data-dir', dir.path]);
    expect(scrub.status, scrub.output).toBe(1);
    expect(scrub.output).toContain(`MISSING ${BUCKET}/big/object (version ${bigVersion})`);
    expect(scrub.output).toContain(`MISSING ${BUCKET}/copy-of-big`);
    expect(scrub.output).not.toContain(`${BUCKET}/small`);
    expect(scrub.output).not.toContain(`${BUCKET}/keep`);

    // compaction moves what is intact and leaves the damage; the next start still knows it
    const compact = runTuskToExit(['compact', '--data-dir', dir.path, '--min-dead', '0']);
    expect(compact.status, compact.output).toBe(0);
    server = await start();
    expect(loudLines(server.output()).join('\n')).toContain(`${BUCKET}/big/object (version ${bigVersion})`);
    expect(metricSample(await (await fetch(`${server.endpoint}/tusk/metrics`)).text(), 'tusk_store_damaged_objects')).toBe(2);
    expectS3Error(await get('big/object'), 500, DAMAGED);
    expect((await get('keep')).body.equals(keep)).toBe(true);
    expect((await get('after')).text()).toBe('fresh');
  }, 180_000);
});
