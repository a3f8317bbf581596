// Virtual-hosted-style addressing (s3.md §1.1): the SDK with forcePathStyle=false against base
// domain s3.test, whose names resolve to 127.0.0.1 through an Agent lookup override, and raw
// requests with chosen Host headers.

import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, DeleteObjectCommand, HeadBucketCommand } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Agent } from 'node:http';
import type { LookupFunction } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';

const ctx = useTusk({ domains: ['s3.test', 'eu.s3.test'] });
const bucket = bucketName('vhost');
const dotted = `logs.2024.${bucketName('dots')}`.slice(0, 63);

/** Resolves every *.s3.test name to loopback, so the SDK can address buckets as host names. */
const loopbackLookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
  if (!hostname.endsWith('s3.test')) return callback(new Error(`unexpected host ${hostname}`));
  if (options?.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  return callback(null, '127.0.0.1', 4);
}) as unknown as LookupFunction;

function vhostClient() {
  return s3Client(ctx.server, {
    endpoint: `http://s3.test:${ctx.server.port}`,
    forcePathStyle: false,
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, lookup: loopbackLookup } as ConstructorParameters<typeof Agent>[0]) }),
  });
}

beforeAll(async () => {
  const s3 = vhostClient();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new CreateBucketCommand({ Bucket: dotted }));
});

describe('virtual-hosted style through the SDK', () => {
  it('round-trips nasty keys and lists them', async () => {
    const s3 = vhostClient();
    const keys = ['a b+c%', '/leading', 'x//y', '\u{1F418}/z'];
    for (const key of keys) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body of ${key}` }));
    for (const key of keys) {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      expect(await got.Body!.transformToString()).toBe(`body of ${key}`);
    }
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents!.map((c) => c.Key).sort()).toEqual([...keys].sort());
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    const del = await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: keys[0] }));
    expect(del.$metadata.httpStatusCode).toBe(204);
  });
});

describe('Host header resolution (§1.1)', () => {
  const port = () => ctx.server.port;

  beforeAll(async () => {
    expect((await s3Request(ctx.server, { method: 'PUT', bucket, key: 'hosted', body: 'via path style' })).status).toBe(200);
    expect((await s3Request(ctx.server, { method: 'PUT', bucket: dotted, key: 'k', body: 'dotted' })).status).toBe(200);
  });

  it('bucket = host minus the base domain; the path is the key', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', path: '/hosted', host: `${bucket}.s3.test:${port()}` });
    expect(res.status, res.text()).toBe(200);
    expect(res.text()).toBe('via path style');
  });

  it('the base domain itself is path style', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', path: `/${bucket}/hosted`, host: `s3.test:${port()}` });
    expect(res.text()).toBe('via path style');
  });

  it('a bucket name with dots is the whole remainder', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', path: '/k', host: `${dotted}.s3.test:${port()}` });
    expect(res.status, res.text()).toBe(200);
    expect(res.text()).toBe('dotted');
  });

  it('the longest base domain wins', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', path: '/hosted', host: `${bucket}.eu.s3.test:${port()}` });
    expect(res.text()).toBe('via path style');
  });

  it('virtual-host root lists the bucket; //a addresses key /a', async () => {
    const list = await s3Request(ctx.server, { method: 'GET', path: '/', query: { 'list-type': '2' }, host: `${bucket}.s3.test:${port()}` });
    expect(list.status).toBe(200);
    expect(list.text()).toContain('<Key>hosted</Key>');
    const slash = await s3Request(ctx.server, { method: 'GET', path: '//leading', host: `${bucket}.s3.test:${port()}` });
    expect(slash.text()).toBe('body of /leading');
  });

  it('host names are case-insensitive and ignore a trailing dot', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', path: '/hosted', host: `${bucket.toUpperCase()}.S3.TEST.:${port()}` });
    expect(res.status, res.text()).toBe(200);
  });

  it('unknown host names fall back to path style', async () => {
    const res = await s3Request(ctx.server, { method: 'GET', path: `/${bucket}/hosted`, host: `elsewhere.example:${port()}` });
    expect(res.text()).toBe('via path style');
  });
});
