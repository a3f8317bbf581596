// Large files from the other clients users bring, at their default settings unless the test says
// why not (s3.md §7): boto3's managed transfers with a small multipart threshold, s3cmd, rclone and
// minio-js. Each round trip is compared byte for byte. The Debian tools are installed by
// scripts/setup.mjs; a tool that cannot be installed skips its tests with a message.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as Minio from 'minio';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDebianTool, runProcess, s3Request } from './helpers/clients.js';
import { bucketName, makeTempDirFixture, md5OfFile, writeGeneratedFile } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { xmlAll } from './helpers/xml.js';

const ctx = useTusk();
const dir = makeTempDirFixture();
const MB = 1_000_000;
const MiB = 1024 * 1024;

const python = ensureDebianTool('/usr/bin/python3', 'python3-boto3');
const boto3Present = python !== undefined && ensureDebianTool('/usr/lib/python3/dist-packages/boto3/__init__.py', 'python3-boto3') !== undefined;
const s3cmd = ensureDebianTool('/usr/bin/s3cmd', 's3cmd');
const rclone = ensureDebianTool('/usr/bin/rclone', 'rclone');

afterAll(() => dir.remove());

async function ok(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 600_000) {
  const res = await runProcess(command, args, { env, timeoutMs, cwd: dir.path });
  expect(res.code, `${command} ${args.join(' ')}\n${res.stderr}\n${res.stdout.toString().slice(-2000)}`).toBe(0);
  return res;
}

async function newBucket(label: string): Promise<string> {
  const name = bucketName(label);
  expect((await s3Request(ctx.server, { method: 'PUT', bucket: name })).status).toBe(200);
  return name;
}

async function keysOf(bucket: string): Promise<string[]> {
  const res = await s3Request(ctx.server, { method: 'GET', bucket, query: { 'list-type': '2' } });
  return xmlAll(res.text(), 'Key');
}

const BOTO3_SCRIPT = `
import sys, boto3
from boto3.s3.transfer import TransferConfig
endpoint, region, ak, sk, bucket, src, down, copied = sys.argv[1:9]
s3 = boto3.client('s3', endpoint_url=endpoint, region_name=region, aws_access_key_id=ak, aws_secret_access_key=sk)
# a small threshold so that a 23 MB file goes multipart (5 MiB parts, parallel) and the copy uses UploadPartCopy
cfg = TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024)
s3.upload_file(src, bucket, 'boto/up load+1.bin', Config=cfg)
head = s3.head_object(Bucket=bucket, Key='boto/up load+1.bin')
assert head['ETag'].endswith('-5"'), head['ETag']
s3.download_file(bucket, 'boto/up load+1.bin', down, Config=cfg)
s3.copy({'Bucket': bucket, 'Key': 'boto/up load+1.bin'}, bucket, 'boto/copy.bin', Config=cfg)
s3.download_file(bucket, 'boto/copy.bin', copied, Config=cfg)
tags = s3.get_object_tagging(Bucket=bucket, Key='boto/copy.bin')
assert tags['TagSet'] == [], tags
print('ok')
`;

describe.skipIf(!boto3Present)('boto3 managed transfers', () => {
  it('upload_file, download_file and copy with a small multipart threshold, byte-identical', async () => {
    const bucket = await newBucket('boto');
    const src = join(dir.path, 'boto-src.bin');
    const md5 = await writeGeneratedFile(src, 23 * MB);
    const script = join(dir.path, 'boto.py');
    writeFileSync(script, BOTO3_SCRIPT);
    const { root, endpoint, region } = ctx.server;
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin', HOME: dir.path, AWS_EC2_METADATA_DISABLED: 'true' };
    const down = join(dir.path, 'boto-down.bin');
    const copied = join(dir.path, 'boto-copy.bin');
    const res = await ok(python!, [script, endpoint, region, root.accessKeyId, root.secretAccessKey, bucket, src, down, copied], env);
    expect(res.stdout.toString().trim()).toBe('ok');
    expect(await md5OfFile(down)).toBe(md5);
    expect(await md5OfFile(copied)).toBe(md5);
  }, 600_000);
});

describe.skipIf(!s3cmd)('s3cmd', () => {
  it('put of a 100 MB file (multipart), get, cp, mv, del --recursive', async () => {
    const bucket = await newBucket('s3cmd');
    const cfg = join(dir.path, 's3cfg');
    const host = `127.0.0.1:${ctx.server.port}`;
    writeFileSync(cfg, [
      '[default]', `access_key = ${ctx.server.root.accessKeyId}`, `secret_key = ${ctx.server.root.secretAccessKey}`,
      `host_base = ${host}`, `host_bucket = ${host}`, 'use_https = False', `bucket_location = ${ctx.server.region}`, 'signature_v2 = False', '',
    ].join('\n'));
    const run = (...args: string[]) => ok(s3cmd!, ['-c', cfg, '--no-progress', ...args], { ...process.env, HOME: dir.path });
    const src = join(dir.path, 's3cmd-src.bin');
    const md5 = await writeGeneratedFile(src, 100 * MB);
    await run('put', src, `s3://${bucket}/dir/big file.bin`);
    const etag = (await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'dir/big file.bin' })).headers['etag'];
    expect(etag).toMatch(/-7"$/); // 15 MiB chunks
    const down = join(dir.path, 's3cmd-down.bin');
    await run('get', `s3://${bucket}/dir/big file.bin`, down);
    expect(await md5OfFile(down)).toBe(md5);
    await run('cp', `s3://${bucket}/dir/big file.bin`, `s3://${bucket}/dir/copy.bin`);
    await run('mv', `s3://${bucket}/dir/copy.bin`, `s3://${bucket}/other/moved.bin`);
    expect((await keysOf(bucket)).sort()).toEqual(['dir/big file.bin', 'other/moved.bin']);
    const moved = join(dir.path, 's3cmd-moved.bin');
    await run('get', `s3://${bucket}/other/moved.bin`, moved);
    expect(await md5OfFile(moved)).toBe(md5);
    await run('del', '--recursive', '--force', `s3://${bucket}/`);
    expect(await keysOf(bucket)).toEqual([]);
  }, 600_000);
});

describe.skipIf(!rclone)('rclone', () => {
  it('copy, sync and check of a tree with a file above the 200 MiB upload cutoff', async () => {
    const bucket = await newBucket('rclone');
    const tree = join(dir.path, 'rclone-tree');
    mkdirSync(join(tree, 'sub dir'), { recursive: true });
    await writeGeneratedFile(join(tree, 'large.bin'), 210 * MiB);
    await writeGeneratedFile(join(tree, 'sub dir', 'small+1.txt'), 1234);
    await writeGeneratedFile(join(tree, 'empty'), 0);
    const conf = join(dir.path, 'rclone.conf');
    writeFileSync(conf, '');
    // the machine's AWS_* variables (a CA bundle, a profile) are not this remote's
    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
    Object.assign(env, {
      HOME: dir.path, RCLONE_CONFIG: conf,
      RCLONE_CONFIG_TUSK_TYPE: 's3', RCLONE_CONFIG_TUSK_PROVIDER: 'Other', RCLONE_CONFIG_TUSK_ENDPOINT: ctx.server.endpoint,
      RCLONE_CONFIG_TUSK_ACCESS_KEY_ID: ctx.server.root.accessKeyId, RCLONE_CONFIG_TUSK_SECRET_ACCESS_KEY: ctx.server.root.secretAccessKey,
      RCLONE_CONFIG_TUSK_REGION: ctx.server.region,
    });
    await ok(rclone!, ['copy', tree, `tusk:${bucket}/tree`], env);
    const etag = (await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'tree/large.bin' })).headers['etag'];
    expect(etag).toMatch(/-\d+"$/);
    await ok(rclone!, ['check', tree, `tusk:${bucket}/tree`, '--download'], env);
    const back = join(dir.path, 'rclone-back');
    await ok(rclone!, ['sync', `tusk:${bucket}/tree`, back], env);
    for (const name of ['large.bin', join('sub dir', 'small+1.txt'), 'empty']) {
      expect(await md5OfFile(join(back, name)), name).toBe(await md5OfFile(join(tree, name)));
    }
    // a sync that deletes on the remote side
    await ok(rclone!, ['sync', join(tree, 'sub dir'), `tusk:${bucket}/tree`], env);
    expect((await keysOf(bucket)).sort()).toEqual(['tree/small+1.txt']);
    expect(readdirSync(back).sort()).toEqual(['empty', 'large.bin', 'sub dir']);
  }, 900_000);
});

describe('minio-js', () => {
  it('fPutObject of 100 MB (multipart), fGetObject, removeObjects', async () => {
    const bucket = await newBucket('minio');
    const client = new Minio.Client({
      endPoint: '127.0.0.1', port: ctx.server.port, useSSL: false, pathStyle: true, region: ctx.server.region,
      accessKey: ctx.server.root.accessKeyId, secretKey: ctx.server.root.secretAccessKey,
    });
    const src = join(dir.path, 'minio-src.bin');
    const md5 = await writeGeneratedFile(src, 100 * MB);
    const put = await client.fPutObject(bucket, 'big/object.bin', src, { 'Content-Type': 'application/x-test' });
    expect(put.etag).toMatch(/-\d+$/);
    const down = join(dir.path, 'minio-down.bin');
    await client.fGetObject(bucket, 'big/object.bin', down);
    expect(await md5OfFile(down)).toBe(md5);
    const small = Array.from({ length: 5 }, (_, i) => `small/${i} +`);
    for (const k of small) await client.putObject(bucket, k, Buffer.from(k));
    const removed = await client.removeObjects(bucket, ['big/object.bin', ...small]);
    expect(removed.filter((r) => r && ('Error' in r || 'Code' in r))).toEqual([]);
    expect(await keysOf(bucket)).toEqual([]);
  }, 600_000);
});
