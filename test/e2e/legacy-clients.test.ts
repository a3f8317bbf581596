// Signature Version 2 with real old-style clients: Debian's s3cmd with `signature_v2 = True` and
// Debian's boto3 with `signature_version='s3'` (header and presigned query) put, get, list and delete.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { bucketName, randomBody } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';
import { makeTempDir } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

const ctx = useTusk();
const S3CMD = '/usr/bin/s3cmd';
const PYTHON = '/usr/bin/python3';

function run(cmd: string, args: string[], input?: string): string {
  return execFileSync(cmd, args, { encoding: 'utf8', input, timeout: 60_000, env: { ...process.env, HOME: makeTempDir('tusk-home-') } });
}

describe.skipIf(!existsSync(S3CMD))('s3cmd with signature_v2', () => {
  it('mb, put, ls, get, setacl, del', async () => {
    const dir = makeTempDir('tusk-s3cmd-');
    const cfg = join(dir, 's3cfg');
    const host = `127.0.0.1:${ctx.server.port}`;
    writeFileSync(cfg, [
      '[default]',
      `access_key = ${ctx.server.root.accessKeyId}`,
      `secret_key = ${ctx.server.root.secretAccessKey}`,
      `host_base = ${host}`,
      `host_bucket = ${host}`,
      'use_https = False',
      'signature_v2 = True',
      'check_ssl_certificate = False',
      '',
    ].join('\n'));
    const s3 = (...args: string[]) => run(S3CMD, ['-c', cfg, '--no-progress', ...args]);
    const b = bucketName('s3cmd');
    const body = randomBody(100_000);
    writeFileSync(join(dir, 'up.bin'), body);
    s3('mb', `s3://${b}`);
    s3('put', join(dir, 'up.bin'), `s3://${b}/dir/with space+plus.bin`);
    expect(s3('ls', '-r', `s3://${b}`)).toContain(`s3://${b}/dir/with space+plus.bin`);
    s3('get', `s3://${b}/dir/with space+plus.bin`, join(dir, 'down.bin'));
    expect(readFileSync(join(dir, 'down.bin')).equals(body)).toBe(true);
    // GET ?acl then PUT ?acl with an AccessControlPolicy body, both V2-signed with the sub-resource
    s3('setacl', '--acl-public', `s3://${b}/dir/with space+plus.bin`);
    const anonymous = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'dir/with space+plus.bin', credentials: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.equals(body)).toBe(true);
    s3('del', `s3://${b}/dir/with space+plus.bin`);
    expect(s3('ls', '-r', `s3://${b}`)).not.toContain('plus.bin');
    s3('rb', `s3://${b}`);
  });
});

const BOTO_SCRIPT = String.raw`
import sys, json, urllib.request
import boto3
from botocore.config import Config
endpoint, ak, sk, bucket = sys.argv[1:5]
s3 = boto3.client('s3', endpoint_url=endpoint, aws_access_key_id=ak, aws_secret_access_key=sk, region_name='us-east-1',
                  config=Config(signature_version='s3', s3={'addressing_style': 'path'}))
out = {}
s3.create_bucket(Bucket=bucket)
s3.put_object(Bucket=bucket, Key='a/b c.txt', Body=b'hello v2', ContentType='text/plain', Metadata={'who': 'boto'})
got = s3.get_object(Bucket=bucket, Key='a/b c.txt')
out['body'] = got['Body'].read().decode()
out['meta'] = got['Metadata']
out['keys'] = [o['Key'] for o in s3.list_objects(Bucket=bucket, Prefix='a/').get('Contents', [])]
# no ?acl (or other sub-resource) calls: Debian's botocore 1.29 signs them with the sub-resource twice
# under 's3' ("/b/k?acl?acl"); s3cmd covers V2 sub-resource signing below
url = s3.generate_presigned_url('get_object', Params={'Bucket': bucket, 'Key': 'a/b c.txt'}, ExpiresIn=300)
out['presigned_query'] = 'AWSAccessKeyId=' in url and 'Signature=' in url
out['presigned_body'] = urllib.request.urlopen(url).read().decode()
s3.delete_object(Bucket=bucket, Key='a/b c.txt')
out['after_delete'] = s3.list_objects(Bucket=bucket).get('Contents', [])
s3.delete_bucket(Bucket=bucket)
print(json.dumps(out))
`;

describe.skipIf(!existsSync(PYTHON))('boto3 with signature_version="s3"', () => {
  it('put, get, list, presigned GET, delete', async () => {
    const b = bucketName('boto');
    const out = JSON.parse(run(PYTHON, ['-c', BOTO_SCRIPT, ctx.server.endpoint, ctx.server.root.accessKeyId, ctx.server.root.secretAccessKey, b])) as Record<string, unknown>;
    expect(out).toEqual({
      body: 'hello v2',
      meta: { who: 'boto' },
      keys: ['a/b c.txt'],
      presigned_query: true,
      presigned_body: 'hello v2',
      after_delete: [],
    });
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket: b })).status).toBe(404);
  });
});

describe('SigV2 errors through HTTP', () => {
  const sign = (toSign: string) => createHmac('sha1', ctx.server.root.secretAccessKey).update(toSign).digest('base64');

  it('a valid presigned V2 GET works; expired, incomplete and mis-signed ones are refused', async () => {
    const b = bucketName('v2err');
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: b, key: 'k', body: 'v2 body' })).status).toBe(200);
    const url = (expires: number, signature = sign(`GET\n\n\n${expires}\n/${b}/k`)) => ({
      AWSAccessKeyId: ctx.server.root.accessKeyId, Expires: String(expires), Signature: signature,
    });
    const future = Math.floor(Date.now() / 1000) + 300;
    const ok = await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null, query: url(future) });
    expect(ok.text()).toBe('v2 body');
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null, query: url(past) }), 403, 'AccessDenied');
    expect(expired.message).toBe('Request has expired');
    const missing = expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null, query: { AWSAccessKeyId: ctx.server.root.accessKeyId, Signature: 'x' } }), 403, 'AccessDenied');
    expect(missing.message).toBe('Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null, query: url(future, sign('something else')) }), 403, 'SignatureDoesNotMatch');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: b, key: 'k', credentials: null, query: { ...url(future), AWSAccessKeyId: 'NOSUCHKEY' } }), 403, 'InvalidAccessKeyId');
  });

  it('header auth: no date is AccessDenied, a stale date RequestTimeTooSkewed, a malformed header InvalidArgument', async () => {
    const ak = ctx.server.root.accessKeyId;
    const noDate = expectS3Error(await s3Request(ctx.server, { method: 'GET', credentials: null, headers: { authorization: `AWS ${ak}:${sign('x')}` } }), 403, 'AccessDenied');
    expect(noDate.message).toBe('AWS authentication requires a valid Date or x-amz-date header');
    const old = new Date(Date.now() - 3600_000).toUTCString();
    expectS3Error(await s3Request(ctx.server, { method: 'GET', credentials: null, headers: { date: old, authorization: `AWS ${ak}:${sign(`GET\n\n\n${old}\n/`)}` } }), 403, 'RequestTimeTooSkewed');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', credentials: null, headers: { date: new Date().toUTCString(), authorization: `AWS ${ak}` } }), 400, 'InvalidArgument');
    const now = new Date().toUTCString();
    const list = await s3Request(ctx.server, { method: 'GET', credentials: null, headers: { date: now, authorization: `AWS ${ak}:${sign(`GET\n\n\n${now}\n/`)}` } });
    expect(list.status).toBe(200);
    expect(list.text()).toContain('<ListAllMyBucketsResult');
  });
});
