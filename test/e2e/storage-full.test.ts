// A full disk (s3.md §5; issue "Storage engine 2", full disks): on a small file system the test
// makes, the PUT that does not fit gets 507 with an S3 error body, earlier objects read back, the
// server stays up, and after deletes and compaction new PUTs succeed.

import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { md5Hex, randomBody } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const MIB = 1024 * 1024;

/** A 48 MiB tmpfs, or undefined where this machine does not let the test mount one. */
function smallFileSystem(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

const mountPoint = smallFileSystem();

describe.skipIf(!mountPoint)('a full disk', () => {
  let server: TuskServer;

  beforeAll(async () => {
    server = await startTusk({
      dataDir: mountPoint!,
      durability: 'strict',
      extraArgs: ['--disk-reserve', '8MiB', '--segment-size', '4MiB', '--compaction-interval', '200ms', '--compaction-dead', '0.05'],
    });
  });
  afterAll(async () => {
    await server?.stop();
    execFileSync('umount', [mountPoint!]);
    rmSync(mountPoint!, { recursive: true, force: true });
  });

  it('answers 507 XTuskStorageFull when a PUT does not fit, keeps serving, and takes writes again once space is freed', async () => {
    const client = s3Client(server);
    expect((await s3Request(server, { method: 'PUT', bucket: 'full' })).status).toBe(200);
    const stored = new Map<string, string>();
    let refused = 0;
    // the SDK sends Expect: 100-continue, so the refusal comes before the body (s3.md §1.7)
    for (let i = 0; i < 30 && refused === 0; i++) {
      const body = randomBody(3 * MIB);
      try {
        await client.send(new PutObjectCommand({ Bucket: 'full', Key: `o${i}`, Body: body }));
        stored.set(`o${i}`, md5Hex(body));
      } catch (e) {
        // the SDK parsed the XML error body: Code, Message and a RequestId equal to the header's
        const err = e as { Code?: string; RequestId?: string; message?: string; $metadata: { httpStatusCode?: number; requestId?: string } };
        expect(err).toMatchObject({ Code: 'XTuskStorageFull', $metadata: { httpStatusCode: 507 } });
        expect(err.RequestId).toMatch(/^[0-9A-F]{16}$/);
        expect(err.RequestId).toBe(err.$metadata.requestId);
        expect(err.message).toMatch(/not enough free space/);
        refused++;
      }
    }
    expect(refused, 'the disk never filled').toBe(1);
    expect(stored.size).toBeGreaterThan(5);
    // reads and deletes keep working at the reserve
    for (const [key, md5] of stored) {
      const got = await client.send(new GetObjectCommand({ Bucket: 'full', Key: key }));
      expect(md5Hex(Buffer.from(await got.Body!.transformToByteArray()))).toBe(md5);
    }
    const keys = [...stored.keys()];
    for (const key of keys.slice(0, keys.length - 2)) {
      await client.send(new DeleteObjectCommand({ Bucket: 'full', Key: key }));
      stored.delete(key);
    }
    // compaction gives the space back (in the background, every 200 ms): writes resume
    const deadline = Date.now() + 20_000;
    let accepted = 0;
    while (accepted < 4 && Date.now() < deadline) {
      try {
        await client.send(new PutObjectCommand({ Bucket: 'full', Key: `again${accepted}`, Body: randomBody(3 * MIB) }));
        accepted++;
      } catch (e) {
        expect((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(507);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    expect(accepted, server.output()).toBe(4);
    for (const [key, md5] of stored) {
      const got = await client.send(new GetObjectCommand({ Bucket: 'full', Key: key }));
      expect(md5Hex(Buffer.from(await got.Body!.transformToByteArray()))).toBe(md5);
    }
    expect(server.alive()).toBe(true);
  }, 90_000);
});
