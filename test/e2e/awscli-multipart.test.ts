// Debian's aws-cli at default settings with large files (s3.md §3.17–3.26): `aws s3 cp` up and
// down of a large file (multipart both ways: ranged GETs), `sync` of a tree from 0 bytes to
// 100 MB, server-side `cp s3://… s3://…` (UploadPartCopy above 8 MiB), `mv`, `rm --recursive`
// (DeleteObjects). Every round trip is compared byte for byte (MD5 of the files).

import { mkdirSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAwsCli, runAws } from './helpers/clients.js';
import { bucketName, makeTempDirFixture, md5OfFile, writeGeneratedFile } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';

const ctx = useTusk();
const dir = makeTempDirFixture();
const bucket = bucketName('cli-mp');
const MB = 1_000_000;
/** 1 GiB as the issue asks; TUSK_E2E_LARGE_MB lowers it on a slow machine. */
const LARGE = Number(process.env['TUSK_E2E_LARGE_MB'] ?? 1024) * 1024 * 1024;
const TREE: Record<string, number> = {
  'empty': 0, 'one': 1, 'a/small.txt': 1000, 'a/b/8m-edge': 8 * 1024 * 1024, 'a/b/9m': 9 * MB, 'c d/+%/100mb': 100 * MB,
};

async function ok(args: string[], timeoutMs = 600_000) {
  const res = await runAws(ctx.server, args, { timeoutMs });
  expect(res.code, `aws ${args.join(' ')}\n${res.stderr}`).toBe(0);
  return res;
}

function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

beforeAll(async () => {
  ensureAwsCli();
  await ok(['s3', 'mb', `s3://${bucket}`]);
}, 300_000);
afterAll(() => dir.remove());

describe('aws s3 with large files', () => {
  it(`cp up and down of a ${LARGE / 1024 / 1024} MiB file, byte-identical; cp s3→s3 and mv of it`, async () => {
    const up = join(dir.path, 'large.bin');
    const md5 = await writeGeneratedFile(up, LARGE);
    await ok(['s3', 'cp', up, `s3://${bucket}/large/file.bin`]);
    const head = JSON.parse((await ok(['s3api', 'head-object', '--bucket', bucket, '--key', 'large/file.bin'])).stdout.toString());
    expect(head.ContentLength).toBe(LARGE);
    expect(head.ETag).toMatch(/-\d+"$/);
    const down = join(dir.path, 'large.down');
    await ok(['s3', 'cp', `s3://${bucket}/large/file.bin`, down]);
    expect(await md5OfFile(down)).toBe(md5);

    await ok(['s3', 'cp', `s3://${bucket}/large/file.bin`, `s3://${bucket}/large/copy.bin`]);
    await ok(['s3', 'mv', `s3://${bucket}/large/copy.bin`, `s3://${bucket}/large/moved.bin`]);
    const moved = join(dir.path, 'moved.down');
    await ok(['s3', 'cp', `s3://${bucket}/large/moved.bin`, moved]);
    expect(await md5OfFile(moved)).toBe(md5);
    const ls = (await ok(['s3', 'ls', `s3://${bucket}/large/`])).stdout.toString();
    expect(ls).toContain('moved.bin');
    expect(ls).not.toContain('copy.bin');
    const uploads = JSON.parse((await ok(['s3api', 'list-multipart-uploads', '--bucket', bucket])).stdout.toString() || '{}');
    expect(uploads.Uploads ?? []).toEqual([]);
  }, 1_200_000);

  it('sync of a tree with files from 0 bytes to 100 MB, both ways, then rm --recursive', async () => {
    const src = join(dir.path, 'tree');
    const sums: Record<string, string> = {};
    for (const [name, size] of Object.entries(TREE)) {
      const p = join(src, name);
      mkdirSync(join(p, '..'), { recursive: true });
      sums[name] = await writeGeneratedFile(p, size);
      // S3 dates have whole seconds: a file written in the second it is uploaded would look newer
      // than its copy to aws-cli's sync, which compares the local mtime with LastModified
      const earlier = new Date(Date.now() - 5_000);
      utimesSync(p, earlier, earlier);
    }
    await ok(['s3', 'sync', src, `s3://${bucket}/tree/`]);
    const back = join(dir.path, 'tree-back');
    await ok(['s3', 'sync', `s3://${bucket}/tree/`, back]);
    expect(filesUnder(back)).toEqual(Object.keys(TREE).sort());
    for (const name of Object.keys(TREE)) expect(await md5OfFile(join(back, name)), name).toBe(sums[name]);
    // a second sync finds nothing to do
    expect((await ok(['s3', 'sync', src, `s3://${bucket}/tree/`])).stdout.toString()).toBe('');

    await ok(['s3', 'rm', '--recursive', `s3://${bucket}/`]);
    expect((await ok(['s3', 'ls', '--recursive', `s3://${bucket}/`])).stdout.toString()).toBe('');
  }, 1_200_000);
});
