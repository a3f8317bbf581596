// Bitrot: one byte of a stored body is flipped on disk. GET never returns the damaged block as a
// success (a small body answers 500 XTuskObjectDamaged, as a read of missing bytes does:
// segment-damage.test.ts; a streamed one ends before the block), other ranges still read, and
// `tusk scrub` names the object.

import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/child-process.js';
import { s3Client, s3Request } from './helpers/clients.js';
import { makeTempDirFixture, md5Hex } from './helpers/fixtures.js';
import { flipByteOf, markedBody as marked } from './helpers/segments.js';
import { startTusk, type TuskServer } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

const MIB = 1024 * 1024;
const dir = makeTempDirFixture();
afterAll(() => dir.remove());

describe('a corrupted byte on disk', () => {
  let server: TuskServer | undefined;
  afterAll(async () => server?.stop());

  it('is never served as good data, and tusk scrub names the object', async () => {
    const big = marked('big', 3 * MIB);
    const small = marked('small', 4000);
    const fine = marked('fine', 5000);
    server = await startTusk({ dataDir: dir.path });
    const client = s3Client(server);
    await s3Request(server, { method: 'PUT', bucket: 'rot' });
    await client.send(new PutObjectCommand({ Bucket: 'rot', Key: 'big/object', Body: big }));
    await client.send(new PutObjectCommand({ Bucket: 'rot', Key: 'small', Body: small }));
    await client.send(new PutObjectCommand({ Bucket: 'rot', Key: 'fine', Body: fine }));
    await server.stop();
    flipByteOf(dir.path, big.subarray(0, 64), MIB + 100); // in the second 1 MiB block
    flipByteOf(dir.path, small.subarray(0, 64), 10);

    server = await startTusk({ dataDir: dir.path });
    const client2 = s3Client(server, { maxAttempts: 1 });
    expectS3Error(await s3Request(server, { method: 'GET', bucket: 'rot', key: 'small' }), 500, 'XTuskObjectDamaged');
    // a streamed body: the response ends before the bad block, so the client never sees it complete
    let whole: Buffer | undefined;
    try {
      const got = await client2.send(new GetObjectCommand({ Bucket: 'rot', Key: 'big/object' }));
      whole = Buffer.from(await got.Body!.transformToByteArray());
    } catch {
      whole = undefined;
    }
    expect(whole === undefined || md5Hex(whole) !== md5Hex(big), 'the corrupted object was served whole').toBe(true);
    if (whole) expect(whole.length).toBeLessThan(big.length);
    // blocks that are intact still read, by range
    const first = await s3Request(server, { method: 'GET', bucket: 'rot', key: 'big/object', headers: { range: `bytes=0-${MIB - 1}` } });
    expect(first.status).toBe(206);
    expect(first.body.equals(big.subarray(0, MIB))).toBe(true);
    const bad = await s3Request(server, { method: 'GET', bucket: 'rot', key: 'big/object', headers: { range: `bytes=${MIB + 50}-${MIB + 150}` } });
    expectS3Error(bad, 500, 'XTuskObjectDamaged');
    const ok = await s3Request(server, { method: 'GET', bucket: 'rot', key: 'fine' });
    expect(ok.body.equals(fine)).toBe(true);
    expect(server.alive()).toBe(true);
    await server.stop();
    server = undefined;

    let out = '';
    let status = 0;
    try {
      out = execFileSync(process.execPath, [join(REPO_ROOT, 'bin/tusk.js'), 'scrub', '--data-dir', dir.path], { encoding: 'utf8' });
    } catch (e) {
      const err = e as { status: number; stdout: string };
      status = err.status;
      out = err.stdout;
    }
    expect(status, out).toBe(1);
    expect(out).toContain('CORRUPT rot/big/object');
    expect(out).toContain('CORRUPT rot/small');
    expect(out).not.toContain('rot/fine');
  }, 60_000);
});
