// Debian's aws-cli against a real server (style.md §11): s3 high-level commands below the multipart
// threshold and s3api calls for every operation in scope, with nasty keys.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAwsCli, runAws, s3Request } from './helpers/clients.js';
import { bucketName, makeTempDirFixture, md5Hex, randomBody } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';

const ctx = useTusk();
const dir = makeTempDirFixture();
const bucket = bucketName('cli');
// each aws-cli start costs seconds on 2 cores: few invocations, each covering several nasty-key traits
// every test starts aws-cli several times (the first one seventeen): past 60 s when CI's other
// files load both cores (it failed so once)
const AWS_CLI_TIMEOUT = { timeout: 180_000 };
const KEYS = ['dir/with space+plus%.txt', 'dir/sub//double', '/leading/\u{1F418}\u{10348}' + 'k'.repeat(1007)];

async function aws(args: string[], input?: Buffer) {
  const res = await runAws(ctx.server, args, { input });
  return res;
}

async function ok(args: string[], input?: Buffer) {
  const res = await aws(args, input);
  expect(res.code, `aws ${args.join(' ')}\n${res.stderr}`).toBe(0);
  return res;
}

beforeAll(() => {
  ensureAwsCli();
}, 300_000);
afterAll(() => dir.remove());

describe('aws s3 (high-level commands)', AWS_CLI_TIMEOUT, () => {
  it('mb, cp up, ls, cp down, rm, rb', async () => {
    expect((await ok(['s3', 'mb', `s3://${bucket}`])).stdout.toString()).toContain(`make_bucket: ${bucket}`);
    const files: Record<string, Buffer> = {};
    for (const [i, key] of KEYS.entries()) {
      const data = randomBody(1000 * (i + 1));
      const path = join(dir.path, `up-${i}`);
      writeFileSync(path, data);
      files[key] = data;
      await ok(['s3', 'cp', path, `s3://${bucket}/${key}`]);
    }
    const ls = (await ok(['s3', 'ls', `s3://${bucket}/dir/`])).stdout.toString();
    expect(ls).toContain('with space+plus%.txt');
    expect(ls).toMatch(/PRE sub\//);
    const rec = (await ok(['s3', 'ls', '--recursive', `s3://${bucket}/`])).stdout.toString();
    for (const key of KEYS) expect(rec).toContain(key);
    expect(Buffer.byteLength(KEYS[2]!)).toBe(1024);
    expect((await ok(['s3', 'ls'])).stdout.toString()).toContain(bucket);

    for (const key of KEYS) {
      const down = await ok(['s3', 'cp', `s3://${bucket}/${key}`, '-']);
      expect(md5Hex(down.stdout), key).toBe(md5Hex(files[key]!));
    }
    const target = join(dir.path, 'down');
    await ok(['s3', 'cp', `s3://${bucket}/${KEYS[0]}`, target]);
    expect(md5Hex(readFileSync(target))).toBe(md5Hex(files[KEYS[0]!]!));

    const rb = await aws(['s3', 'rb', `s3://${bucket}`]);
    expect(rb.code).not.toBe(0);
    expect(rb.stderr).toContain('BucketNotEmpty');
    await ok(['s3', 'rm', `s3://${bucket}/${KEYS[0]}`]);
    await ok(['s3', 'rm', '--recursive', `s3://${bucket}/`]);
    expect((await ok(['s3', 'ls', '--recursive', `s3://${bucket}/`])).stdout.toString()).toBe('');
    await ok(['s3', 'rb', `s3://${bucket}`]);
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket })).status).toBe(404);
  });
});

describe('aws s3api', AWS_CLI_TIMEOUT, () => {
  const b = bucketName('api');
  const body = randomBody(5000);
  const bodyPath = () => join(dir.path, 'api-body');

  beforeAll(async () => {
    writeFileSync(bodyPath(), body);
    const created = await ok(['s3api', 'create-bucket', '--bucket', b, '--acl', 'public-read']);
    expect(JSON.parse(created.stdout.toString()).Location).toBe(`/${b}`);
  });

  it('head-bucket, get-bucket-location, list-buckets', async () => {
    await ok(['s3api', 'head-bucket', '--bucket', b]);
    const loc = JSON.parse((await ok(['s3api', 'get-bucket-location', '--bucket', b])).stdout.toString());
    expect(loc.LocationConstraint ?? null).toBeNull();
    const list = JSON.parse((await ok(['s3api', 'list-buckets'])).stdout.toString());
    expect(list.Buckets.map((x: { Name: string }) => x.Name)).toContain(b);
  });

  it('put-object with metadata and storage class, head-object, get-object with --range', async () => {
    const key = 'api/a b+c%d/\u{1F418}';
    const put = JSON.parse(
      (
        await ok([
          's3api', 'put-object', '--bucket', b, '--key', key, '--body', bodyPath(),
          '--content-type', 'text/plain', '--storage-class', 'STANDARD_IA', '--metadata', 'color=blue',
        ])
      ).stdout.toString(),
    );
    expect(put.ETag).toBe(`"${md5Hex(body)}"`);
    const head = JSON.parse((await ok(['s3api', 'head-object', '--bucket', b, '--key', key])).stdout.toString());
    expect(head.ContentLength).toBe(body.length);
    expect(head.ContentType).toBe('text/plain');
    expect(head.StorageClass).toBe('STANDARD_IA');
    expect(head.Metadata).toEqual({ color: 'blue' });

    const out = join(dir.path, 'range-out');
    const got = JSON.parse((await ok(['s3api', 'get-object', '--bucket', b, '--key', key, '--range', 'bytes=100-199', out])).stdout.toString());
    expect(got.ContentRange).toBe(`bytes 100-199/${body.length}`);
    expect(readFileSync(out).equals(body.subarray(100, 200))).toBe(true);
    const suffix = JSON.parse((await ok(['s3api', 'get-object', '--bucket', b, '--key', key, '--range', 'bytes=-10', out])).stdout.toString());
    expect(suffix.ContentLength).toBe(10);
    expect(readFileSync(out).equals(body.subarray(body.length - 10))).toBe(true);

    const bad = await aws(['s3api', 'get-object', '--bucket', b, '--key', key, '--range', `bytes=${body.length}-`, out]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('InvalidRange');
    const missing = await aws(['s3api', 'get-object', '--bucket', b, '--key', 'nope', out]);
    expect(missing.stderr).toContain('NoSuchKey');
  });

  it('list-objects-v2 and list-objects with prefix, delimiter and paging', async () => {
    const local = join(dir.path, 'tree');
    for (const name of ['a+1', 'b 2', 'sub/c', 'sub/d', 'z']) {
      mkdirSync(dirname(join(local, name)), { recursive: true });
      writeFileSync(join(local, name), body);
    }
    await ok(['s3', 'cp', '--recursive', local, `s3://${b}/l/`]);
    const v2 = JSON.parse((await ok(['s3api', 'list-objects-v2', '--bucket', b, '--prefix', 'l/', '--delimiter', '/'])).stdout.toString());
    expect(v2.Contents.map((c: { Key: string }) => c.Key)).toEqual(['l/a+1', 'l/b 2', 'l/z']);
    expect(v2.CommonPrefixes).toEqual([{ Prefix: 'l/sub/' }]);
    // --page-size forces continuation tokens; the CLI follows them
    const paged = JSON.parse((await ok(['s3api', 'list-objects-v2', '--bucket', b, '--prefix', 'l/', '--page-size', '2'])).stdout.toString());
    expect(paged.Contents.map((c: { Key: string }) => c.Key)).toEqual(['l/a+1', 'l/b 2', 'l/sub/c', 'l/sub/d', 'l/z']);
    const after = JSON.parse((await ok(['s3api', 'list-objects-v2', '--bucket', b, '--prefix', 'l/', '--start-after', 'l/sub/c'])).stdout.toString());
    expect(after.Contents.map((c: { Key: string }) => c.Key)).toEqual(['l/sub/d', 'l/z']);
    const v1 = JSON.parse((await ok(['s3api', 'list-objects', '--bucket', b, '--prefix', 'l/', '--marker', 'l/b 2', '--delimiter', '/'])).stdout.toString());
    expect(v1.Contents.map((c: { Key: string }) => c.Key)).toEqual(['l/z']);
    expect(v1.CommonPrefixes).toEqual([{ Prefix: 'l/sub/' }]);
  });

  it('delete-object is idempotent; delete-bucket needs an empty bucket', async () => {
    await ok(['s3api', 'put-object', '--bucket', b, '--key', 'del me', '--body', bodyPath()]);
    await ok(['s3api', 'delete-object', '--bucket', b, '--key', 'del me']);
    await ok(['s3api', 'delete-object', '--bucket', b, '--key', 'del me']);
    const head = await aws(['s3api', 'head-object', '--bucket', b, '--key', 'del me']);
    expect(head.code).not.toBe(0);
    const notEmpty = await aws(['s3api', 'delete-bucket', '--bucket', b]);
    expect(notEmpty.stderr).toContain('BucketNotEmpty');
  });

  it('anonymous reads of a public-read bucket listing work with --no-sign-request', async () => {
    const res = await aws(['s3api', 'list-objects-v2', '--bucket', b, '--no-sign-request', '--max-items', '1']);
    expect(res.code, res.stderr).toBe(0);
    const priv = await aws(['s3api', 'get-object', '--bucket', b, '--key', 'l/z', '--no-sign-request', join(dir.path, 'anon')]);
    expect(priv.stderr).toContain('AccessDenied');
  });
});
