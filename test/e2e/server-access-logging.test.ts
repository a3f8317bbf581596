// Server access logging end to end (AWS *Logging requests with server access logging*): boto3
// configures PutBucketLogging and makes requests; the log objects arrive in the target bucket with
// AWS's key formats and every line parses as AWS's record format with the right operation, key
// and status. Then kill -9 during logged writes: every acknowledged request's record arrives
// after the restart.

import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runBoto3 } from './helpers/boto3.js';
import { s3Request } from './helpers/clients.js';
import { bucketName, makeTempDirFixture } from './helpers/fixtures.js';
import { randomCredentials, startTusk, type TuskServer } from './helpers/server.js';
import { AWS_LOG_RECORD } from './helpers/access-log-record.js';

type LogRecord = Record<string, string>;

/** Every record line of the log objects under `prefix` of `bucket`. */
async function logLines(server: TuskServer, bucket: string, prefix = ''): Promise<string[]> {
  const list = await s3Request(server, { method: 'GET', bucket, query: { 'list-type': '2', prefix } });
  const keys = [...list.text().matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!);
  const lines: string[] = [];
  for (const key of keys) lines.push(...(await s3Request(server, { method: 'GET', bucket, key })).text().split('\n').filter(Boolean));
  return lines;
}

describe('server access logging with boto3', () => {
  let server: TuskServer;
  afterAll(() => server?.dispose());

  it('delivers AWS-format records of each request to the target bucket, simple and partitioned keys', async () => {
    server = await startTusk({ extraArgs: ['--server-access-log-interval', '500ms'] });
    const [src, part, logs] = [bucketName('src'), bucketName('part'), bucketName('logs')];
    const out = (await runBoto3(server, 'server_access_logging.py', { SRC: src, PART: part, LOGS: logs })) as { records: LogRecord[]; keys: string[]; etag: string };
    const of = (bucket: string) => out.records.filter((r) => r.bucket === bucket).map((r) => [r.operation, r.key, r.status, r.error]);
    // the request that enabled logging found it off: its own record is not kept
    expect(of(src)).toEqual(
      expect.arrayContaining([
        ['REST.GET.LOGGING_STATUS', '-', '200', '-'],
        ['REST.PUT.OBJECT', 'dir/a%20b%2Bc.txt', '200', '-'],
        ['REST.GET.OBJECT', 'dir/a%20b%2Bc.txt', '200', '-'],
        ['REST.HEAD.OBJECT', 'missing', '404', 'NoSuchKey'],
        ['REST.GET.BUCKET', '-', '200', '-'],
        ['REST.DELETE.OBJECT', 'dir/a%20b%2Bc.txt', '204', '-'],
      ]),
    );
    // DeleteObjects: its own record, then one BATCH.DELETE.OBJECT per object deleted (AWS *Logging options for
    // Amazon S3*), with the request's id; none for the key that was not there nor for the entry in error
    const post = out.records.find((r) => r.operation === 'REST.POST.MULTI_OBJECT_DELETE')!;
    expect([post.key, post.status]).toEqual(['-', '200']);
    expect(post.uri).toMatch(new RegExp(`^POST /${src}\\?delete=? HTTP/1.1$`));
    const batch = out.records.filter((r) => r.operation === 'BATCH.DELETE.OBJECT');
    expect(batch.map((r) => [r.key, r.status, r.objectSize, r.requestId, r.uri, r.requester]).sort()).toEqual([
      ['batch/1', '204', '3', post.requestId, '-', post.requester],
      ['batch/2%20x', '204', '3', post.requestId, '-', post.requester],
    ]);
    const put = out.records.find((r) => r.operation === 'REST.PUT.OBJECT' && r.key === 'dir/a%20b%2Bc.txt')!;
    expect(put).toMatchObject({ objectSize: '5', sigVersion: 'SigV4', authType: 'AuthHeader', ip: '127.0.0.1', host: `127.0.0.1:${server.port}` });
    expect(put.uri).toBe(`PUT /${src}/dir/a%20b%2Bc.txt HTTP/1.1`);
    expect(put.userAgent).toMatch(/Boto3|botocore/);
    const get = out.records.find((r) => r.operation === 'REST.GET.OBJECT')!;
    expect([get.bytesSent, get.objectSize]).toEqual(['5', '5']);
    expect(out.records.every((r) => r.owner === put.requester)).toBe(true);
    for (const key of out.keys) expect(key).toMatch(/^simple\/\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9A-F]{16}$/);
    // the log bucket's own requests are not logged (it has no logging)
    expect(out.records.some((r) => r.bucket === logs)).toBe(false);

    // PartitionedPrefix (raw requests: Debian's botocore predates TargetObjectKeyFormat); the policy the scenario set allows `part`
    expect((await s3Request(server, { method: 'PUT', bucket: part })).status).toBe(200);
    const format = '<TargetObjectKeyFormat><PartitionedPrefix><PartitionDateSource>EventTime</PartitionDateSource></PartitionedPrefix></TargetObjectKeyFormat>';
    const config = `<BucketLoggingStatus><LoggingEnabled><TargetBucket>${logs}</TargetBucket><TargetPrefix>part/</TargetPrefix>${format}</LoggingEnabled></BucketLoggingStatus>`;
    expect((await putLogging(server, part, config)).status).toBe(200);
    expect((await s3Request(server, { method: 'GET', bucket: part, query: 'logging' })).text()).toContain(`<TargetPrefix>part/</TargetPrefix>${format}</LoggingEnabled>`);
    expect((await s3Request(server, { method: 'PUT', bucket: part, key: 'p.txt', body: 'partitioned' })).status).toBe(200);
    // an empty BucketLoggingStatus turns logging off: what follows is not logged
    expect((await putLogging(server, part, '<BucketLoggingStatus/>')).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: part, key: 'after-off.txt', body: 'x' })).status).toBe(200);
    let lines: string[] = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && lines.length < 3; await new Promise((r) => setTimeout(r, 200))) {
      lines = await logLines(server, logs, 'part/');
    }
    // in any order: with front-end threads each thread's records come in a log object of its own
    const records = lines.map((l) => AWS_LOG_RECORD.exec(l)!).map((m) => [m[2], m[7], m[8], m[10]]);
    expect(records).toHaveLength(3);
    expect(records).toEqual(
      expect.arrayContaining([
        [part, 'REST.GET.LOGGING_STATUS', '-', '200'],
        [part, 'REST.PUT.OBJECT', 'p.txt', '200'],
        [part, 'REST.PUT.LOGGING_STATUS', '-', '200'],
      ]),
    );
    const list = (await s3Request(server, { method: 'GET', bucket: logs, query: { 'list-type': '2', prefix: 'part/' } })).text();
    const day = new Date().toISOString().slice(0, 10).replace(/-/g, '/');
    expect(list).toMatch(new RegExp(`<Key>part/\\d{12}/us-east-1/${part}/${day}/\\d{4}-\\d{2}-\\d{2}-\\d{2}-\\d{2}-\\d{2}-[0-9A-F]{16}</Key>`));
  });
});

describe('server access logging: ACL required', () => {
  let server: TuskServer;
  afterAll(() => server?.dispose());

  // AWS *Amazon S3 server access log format*, ACL Required: `Yes` when an ACL grant was what
  // allowed the request, `-` when ownership or a bucket policy did (or nothing did)
  it('says Yes for a request a bucket or object ACL allowed, - for the owner and for one a policy allows', async () => {
    const other = { displayName: 'other', ...randomCredentials('OTHR') };
    server = await startTusk({ extraAccounts: [other], extraArgs: ['--server-access-log-interval', '300ms'] });
    const [src, logs] = [bucketName('aclreq'), bucketName('aclreqlogs')];
    expect((await s3Request(server, { method: 'PUT', bucket: src, headers: { 'x-amz-acl': 'public-read' } })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: logs })).status).toBe(200);
    const deliver = { Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' }, Action: 's3:PutObject', Resource: `arn:aws:s3:::${logs}/*` };
    expect((await putPolicy(server, logs, [deliver])).status).toBe(204);
    expect((await s3Request(server, { method: 'PUT', bucket: src, key: 'pub', body: 'p', headers: { 'x-amz-acl': 'public-read' } })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: src, key: 'private', body: 'q' })).status).toBe(200);
    expect((await putLogging(server, src, `<BucketLoggingStatus><LoggingEnabled><TargetBucket>${logs}</TargetBucket><TargetPrefix>l/</TargetPrefix></LoggingEnabled></BucketLoggingStatus>`)).status).toBe(200);

    const wanted = new Map<string, string>();
    const request = async (name: string, expected: string, opts: Parameters<typeof s3Request>[1], status = 200): Promise<void> => {
      const res = await s3Request(server, opts);
      expect(res.status, name).toBe(status);
      wanted.set(res.headers['x-amz-request-id']!, `${name}: ${expected}`);
    };
    const list = { method: 'GET', bucket: src, query: { 'list-type': '2' } } as const;
    await request('other lists by the bucket ACL', 'Yes', { ...list, credentials: other });
    await request('anonymous lists by the bucket ACL', 'Yes', { ...list, credentials: null });
    await request('other reads by the object ACL', 'Yes', { method: 'GET', bucket: src, key: 'pub', credentials: other });
    await request('the owner lists', '-', list);
    await request('the owner reads', '-', { method: 'GET', bucket: src, key: 'pub' });
    await request('other refused', '-', { method: 'GET', bucket: src, key: 'private', credentials: other }, 403);
    const allowAll = { Effect: 'Allow', Principal: { AWS: '*' }, Action: ['s3:ListBucket', 's3:GetObject'], Resource: [`arn:aws:s3:::${src}`, `arn:aws:s3:::${src}/*`] };
    expect((await putPolicy(server, src, [allowAll])).status).toBe(204);
    await request('other lists by the policy', '-', { ...list, credentials: other });
    await request('other reads by the policy', '-', { method: 'GET', bucket: src, key: 'pub', credentials: other });

    const got = new Map<string, string>();
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && [...wanted.keys()].some((id) => !got.has(id)); await new Promise((r) => setTimeout(r, 200))) {
      for (const line of await logLines(server, logs, 'l/')) {
        const m = AWS_LOG_RECORD.exec(line)!;
        got.set(m[6]!, m[26]!);
      }
    }
    expect([...wanted].map(([id, w]) => `${w.split(':')[0]}: ${got.get(id)}`)).toEqual([...wanted.values()]);
  });
});

describe('server access logging of lifecycle actions', () => {
  let server: TuskServer;
  afterAll(() => server?.dispose());

  // AWS user guide *How S3 Lifecycle interacts with other bucket configurations*: an expiration is
  // logged as S3.EXPIRE.OBJECT, with S3 itself as the requester and no request behind it
  it('delivers an S3.EXPIRE.OBJECT record for an object lifecycle expired', async () => {
    server = await startTusk({ extraArgs: ['--lifecycle-day', '1s', '--lifecycle-interval', '300ms', '--server-access-log-interval', '300ms'] });
    const [src, logs] = [bucketName('lcsrc'), bucketName('lclogs')];
    for (const b of [src, logs]) expect((await s3Request(server, { method: 'PUT', bucket: b })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: logs, headers: { 'x-amz-acl': 'log-delivery-write' } })).status).toBe(200);
    const rules = '<LifecycleConfiguration><Rule><ID>tmp</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>';
    const put = await s3Request(server, { method: 'PUT', bucket: src, query: 'lifecycle', body: rules, headers: { 'content-md5': createHash('md5').update(rules).digest('base64') } });
    expect(put.status, put.text()).toBe(200);
    expect((await putLogging(server, src, `<BucketLoggingStatus><LoggingEnabled><TargetBucket>${logs}</TargetBucket><TargetPrefix>l/</TargetPrefix></LoggingEnabled></BucketLoggingStatus>`)).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: src, key: 'tmp/a b', body: 'gone soon' })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: src, key: 'kept', body: 'x' })).status).toBe(200);

    let expired: RegExpExecArray[] = [];
    for (const deadline = Date.now() + 15_000; Date.now() < deadline && expired.length === 0; await new Promise((r) => setTimeout(r, 300))) {
      const lines = await logLines(server, logs, 'l/');
      for (const line of lines) expect(AWS_LOG_RECORD.test(line), line).toBe(true);
      expired = lines.map((l) => AWS_LOG_RECORD.exec(l)!).filter((m) => m[7]!.startsWith('S3.'));
    }
    // bucket, remote IP, requester, operation, key, request line, status, bytes sent, object size, version id
    expect(expired.map((m) => [m[2], m[4], m[5], m[7], m[8], m[9], m[10], m[12], m[13], m[18]])).toEqual([
      [src, '-', 'AmazonS3', 'S3.EXPIRE.OBJECT', 'tmp/a%20b', '-', '-', '-', '9', '-'],
    ]);
    expect((await s3Request(server, { method: 'HEAD', bucket: src, key: 'tmp/a b' })).status).toBe(404);
  });
});

describe('server access logging across kill -9', () => {
  const dir = makeTempDirFixture();
  afterAll(() => dir.remove());

  it('delivers the record of every acknowledged request after the restart', async () => {
    const root = randomCredentials();
    // a long interval: at the kill every record is still in the journal
    const args = ['--server-access-log-interval', '1h'];
    let server = await startTusk({ dataDir: dir.path, root, extraArgs: args });
    try {
      const [src, logs] = ['crash-src', 'crash-logs'];
      for (const b of [src, logs]) expect((await s3Request(server, { method: 'PUT', bucket: b })).status).toBe(200);
      expect((await s3Request(server, { method: 'PUT', bucket: logs, headers: { 'x-amz-acl': 'log-delivery-write' } })).status).toBe(200);
      const config = `<BucketLoggingStatus><LoggingEnabled><TargetBucket>${logs}</TargetBucket><TargetPrefix>l/</TargetPrefix></LoggingEnabled></BucketLoggingStatus>`;
      const enable = await putLogging(server, src, config);
      expect(enable.status, enable.text()).toBe(200);

      const acked: string[] = [];
      let stop = false;
      const writer = async (w: number): Promise<void> => {
        for (let n = 0; !stop; n++) {
          try {
            const res = n % 2 ? await s3Request(server, { method: 'GET', bucket: src, key: `w${w}/${n - 1}` }) : await s3Request(server, { method: 'PUT', bucket: src, key: `w${w}/${n}`, body: 'x' });
            acked.push(res.headers['x-amz-request-id']!);
          } catch {
            return; // the connection died with the server
          }
        }
      };
      const writers = [0, 1, 2].map(writer);
      await new Promise((r) => setTimeout(r, 800));
      await server.kill9();
      stop = true;
      await Promise.allSettled(writers);
      expect(acked.length).toBeGreaterThan(0);

      server = await startTusk({ dataDir: dir.path, root, extraArgs: args });
      // the records an earlier run journaled are delivered at start
      let ids = new Set<string>();
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
        const lines = await logLines(server, logs, 'l/');
        for (const line of lines) expect(AWS_LOG_RECORD.test(line), line).toBe(true);
        ids = new Set(lines.map((l) => AWS_LOG_RECORD.exec(l)![6]!));
        if (acked.every((id) => ids.has(id))) break;
      }
      expect(acked.filter((id) => !ids.has(id))).toEqual([]);
    } finally {
      await server.dispose();
    }
  });
});

function putLogging(server: TuskServer, bucket: string, status: string) {
  return s3Request(server, { method: 'PUT', bucket, query: 'logging', body: status, headers: { 'content-md5': createHash('md5').update(status).digest('base64') } });
}

function putPolicy(server: TuskServer, bucket: string, statements: object[]) {
  return s3Request(server, { method: 'PUT', bucket, query: 'policy', body: JSON.stringify({ Version: '2012-10-17', Statement: statements }) });
}
