// Server access logging's protocol details: the record line of AWS's format (field order,
// quoting, `-` for absent fields), the log object key formats, and BucketLoggingStatus checks.

import { describe, expect, it } from 'vitest';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { logDeliveryAllowed, parseBucketLoggingStatus } from '../../../src/s3/logging/config.js';
import { batchDeleteRecords, encodedKey, formatLogRecord, lifecycleRecord, logObjectKey, logTime, quoted, type LogRecordFields } from '../../../src/s3/logging/record.js';
import type { S3Bucket } from '../../../src/s3/object-attrs.js';
import { AWS_LOG_RECORD } from '../../e2e/helpers/access-log-record.js';

const T = Date.UTC(2019, 1, 6, 0, 0, 38);

const full: LogRecordFields = {
  bucketOwner: '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be',
  bucket: 'amzn-s3-demo-bucket1',
  time: T,
  remoteIp: '192.0.2.3',
  requester: '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be',
  requestId: '3E57427F3EXAMPLE',
  operation: 'REST.GET.VERSIONING',
  requestUri: 'GET /amzn-s3-demo-bucket1?versioning HTTP/1.1',
  status: 200,
  bytesSent: 113,
  totalTimeMs: 7,
  turnAroundTimeMs: 6.6,
  userAgent: 'S3Console/0.4',
  hostId: 's9lzHYrFp76ZVxRcpX9+5cjAnEH2ROuNkd2BHfIa6UkFVdtjf5mKR3/eTPFvsiP/XV/VLi31234=',
  signatureVersion: 'SigV4',
  cipherSuite: 'ECDHE-RSA-AES128-GCM-SHA256',
  authType: 'AuthHeader',
  hostHeader: 'amzn-s3-demo-bucket1.s3.us-west-1.amazonaws.com',
  tlsVersion: 'TLSV1.2',
};

describe('log record (AWS *Amazon S3 server access log format*)', () => {
  it("renders AWS's documented example line field for field", () => {
    expect(formatLogRecord(full)).toBe(
      '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be amzn-s3-demo-bucket1 [06/Feb/2019:00:00:38 +0000] 192.0.2.3 ' +
        '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be 3E57427F3EXAMPLE REST.GET.VERSIONING - "GET /amzn-s3-demo-bucket1?versioning HTTP/1.1" ' +
        '200 - 113 - 7 7 "-" "S3Console/0.4" - s9lzHYrFp76ZVxRcpX9+5cjAnEH2ROuNkd2BHfIa6UkFVdtjf5mKR3/eTPFvsiP/XV/VLi31234= SigV4 ' +
        'ECDHE-RSA-AES128-GCM-SHA256 AuthHeader amzn-s3-demo-bucket1.s3.us-west-1.amazonaws.com TLSV1.2 - -',
    );
    expect(AWS_LOG_RECORD.test(formatLogRecord(full))).toBe(true);
  });

  it('writes Yes in ACL Required, the last field, when an ACL grant allowed the request', () => {
    expect(formatLogRecord({ ...full, aclRequired: true }).endsWith(' - Yes')).toBe(true);
    expect(formatLogRecord({ ...full, aclRequired: false }).endsWith(' - -')).toBe(true);
    expect(AWS_LOG_RECORD.exec(formatLogRecord({ ...full, aclRequired: true }))![26]).toBe('Yes');
  });

  it('writes - for every absent field (anonymous, no key, no error, nothing sent, no TLS)', () => {
    const line = formatLogRecord({
      bucketOwner: 'o', bucket: 'b', time: T, requestId: 'R', operation: 'REST.HEAD.OBJECT', requestUri: 'HEAD /b/k HTTP/1.1',
      status: 404, errorCode: 'NoSuchKey', bytesSent: 0, totalTimeMs: 1, hostId: 'H',
    });
    const m = AWS_LOG_RECORD.exec(line)!;
    expect(m).not.toBeNull();
    // remote IP, requester, key, bytes sent, object size, turn-around, referer, UA, version, sig, cipher, auth, host, TLS, ARN, ACL
    expect([m[4], m[5], m[8], m[11], m[12], m[13], m[15], m[16], m[17], m[18], m[20], m[21], m[22], m[23], m[24], m[25], m[26]]).toEqual(
      ['-', '-', '-', 'NoSuchKey', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-'],
    );
  });

  it('quotes with backslash escapes and keeps one record on one line', () => {
    expect(quoted('say "hi" \\ there')).toBe('"say \\"hi\\" \\\\ there"');
    expect(quoted('a\nb\tc')).toBe('"a\\x0ab\\x09c"');
    const line = formatLogRecord({ ...full, userAgent: 'evil"\nagent', referer: 'x y', remoteIp: 'a b' });
    expect(line.split('\n')).toHaveLength(1);
    const m = AWS_LOG_RECORD.exec(line)!;
    expect([m[4], m[16], m[17]]).toEqual(['a%20b', 'x y', 'evil\\"\\x0aagent']);
  });

  it('URL-encodes the key, slashes kept', () => {
    expect(encodedKey('photos/2019/08/puppy.jpg')).toBe('photos/2019/08/puppy.jpg');
    expect(encodedKey('a b+c%/d"e[f]\u{1F600}')).toBe('a%20b%2Bc%25/d%22e%5Bf%5D%F0%9F%98%80');
    expect(encodedKey(undefined)).toBe('-');
  });

  it('times are UTC in brackets', () => {
    expect(logTime(Date.UTC(2026, 10, 29, 23, 59, 59, 999))).toBe('[29/Nov/2026:23:59:59 +0000]');
  });
});

describe('DeleteObjects: one BATCH.DELETE.OBJECT record per object deleted', () => {
  const post: LogRecordFields = {
    ...full, operation: 'REST.POST.MULTI_OBJECT_DELETE', requestUri: 'POST /amzn-s3-demo-bucket1?delete HTTP/1.1', bytesSent: 250,
    referer: 'https://example.com/', versionId: 'v-of-post', aclRequired: true,
  };

  it("keeps the request's requester, time, request id and signature; -, 204 and the object's size for the rest", () => {
    const [removed, marker] = batchDeleteRecords(post, [{ key: 'photos/a b.jpg', size: 1234 }, { key: 'x', versionId: 'M1' }]);
    expect(removed).toBe(
      '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be amzn-s3-demo-bucket1 [06/Feb/2019:00:00:38 +0000] 192.0.2.3 ' +
        '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be 3E57427F3EXAMPLE BATCH.DELETE.OBJECT photos/a%20b.jpg "-" ' +
        '204 - - 1234 - - "-" "-" - s9lzHYrFp76ZVxRcpX9+5cjAnEH2ROuNkd2BHfIa6UkFVdtjf5mKR3/eTPFvsiP/XV/VLi31234= SigV4 ' +
        'ECDHE-RSA-AES128-GCM-SHA256 AuthHeader amzn-s3-demo-bucket1.s3.us-west-1.amazonaws.com TLSV1.2 - Yes',
    );
    const m = AWS_LOG_RECORD.exec(marker!)!;
    // operation, key, status, object size (a marker has none), version id
    expect([m[7], m[8], m[10], m[13], m[18]]).toEqual(['BATCH.DELETE.OBJECT', 'x', '204', '-', 'M1']);
  });

  it('none when nothing was deleted', () => {
    expect(batchDeleteRecords(post, [])).toEqual([]);
  });
});

describe('lifecycle actions (AWS *How S3 Lifecycle interacts with other bucket configurations*)', () => {
  const source = { name: 'amzn-s3-demo-bucket1', owner: full.bucketOwner };
  const ids = { requestId: '3E57427F3EXAMPLE', hostId: 'aG9zdA==' };

  it('S3.EXPIRE.OBJECT: requester AmazonS3, no IP, request line, status, bytes or times; the size and version removed', () => {
    const line = lifecycleRecord(source, { operation: 'expire', key: 'logs/a b.txt', versionId: 'V1', objectSize: 48393 }, T, ids);
    expect(line).toBe(
      '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be amzn-s3-demo-bucket1 [06/Feb/2019:00:00:38 +0000] - AmazonS3 ' +
        '3E57427F3EXAMPLE S3.EXPIRE.OBJECT logs/a%20b.txt "-" - - - 48393 - - "-" "-" V1 aG9zdA== - - - - - - -',
    );
    expect(AWS_LOG_RECORD.test(line)).toBe(true);
  });

  it('S3.CREATE.DELETEMARKER, S3.TRANSITION_WALRUS.OBJECT and S3.DELETE.UPLOAD name their operation, key, size and version', () => {
    const fields = (a: Parameters<typeof lifecycleRecord>[1]) => {
      const m = AWS_LOG_RECORD.exec(lifecycleRecord(source, a, T, ids))!;
      // requester, operation, key, status, object size, version id
      return [m[5], m[7], m[8], m[10], m[13], m[18]];
    };
    expect(fields({ operation: 'deleteMarker', key: 'k', versionId: 'M1' })).toEqual(['AmazonS3', 'S3.CREATE.DELETEMARKER', 'k', '-', '-', 'M1']);
    expect(fields({ operation: 'transition', key: 'k', versionId: 'V2', objectSize: 7 })).toEqual(['AmazonS3', 'S3.TRANSITION_WALRUS.OBJECT', 'k', '-', '7', 'V2']);
    expect(fields({ operation: 'abortUpload', key: 'up/big' })).toEqual(['AmazonS3', 'S3.DELETE.UPLOAD', 'up/big', '-', '-', '-']);
  });
});

describe('log object keys (AWS *Log object key format*)', () => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5);
  it('SimplePrefix: [prefix]YYYY-mm-DD-HH-MM-SS-[UniqueString]', () => {
    expect(logObjectKey({ prefix: 'log/', deliveredAt: at, unique: 'ABCDEF0123456789' })).toBe('log/2026-01-02-03-04-05-ABCDEF0123456789');
    expect(logObjectKey({ prefix: '', deliveredAt: at })).toMatch(/^2026-01-02-03-04-05-[0-9A-F]{16}$/);
  });
  it('PartitionedPrefix: [prefix][account]/[region]/[bucket]/YYYY/mm/DD/ then the simple name', () => {
    const eventDay = Date.UTC(2025, 11, 31, 23, 0, 0);
    expect(logObjectKey({ prefix: 'log/', deliveredAt: at, unique: 'U', partitioned: { accountId: '123456789012', region: 'us-east-1', sourceBucket: 'src', partitionTime: eventDay } }))
      .toBe('log/123456789012/us-east-1/src/2025/12/31/2026-01-02-03-04-05-U');
  });
});

describe('BucketLoggingStatus', () => {
  const code = (xml: string): string => {
    try {
      parseBucketLoggingStatus(xml);
      return 'ok';
    } catch (e) {
      return (e as S3Error).code;
    }
  };
  const enabled = (inner: string) => `<BucketLoggingStatus><LoggingEnabled>${inner}</LoggingEnabled></BucketLoggingStatus>`;

  it('an empty status disables; TargetBucket and TargetPrefix are required', () => {
    expect(parseBucketLoggingStatus('<BucketLoggingStatus xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>')).toBeUndefined();
    expect(code(enabled('<TargetPrefix>p</TargetPrefix>'))).toBe('MalformedXML');
    expect(code(enabled('<TargetBucket>t</TargetBucket>'))).toBe('MalformedXML');
    expect(parseBucketLoggingStatus(enabled('<TargetBucket>t</TargetBucket><TargetPrefix></TargetPrefix>'))).toEqual({ targetBucket: 't', targetPrefix: '' });
  });

  it('key formats: SimplePrefix, PartitionedPrefix by EventTime or DeliveryTime; anything else is MalformedXML', () => {
    const base = '<TargetBucket>t</TargetBucket><TargetPrefix>p/</TargetPrefix>';
    expect(parseBucketLoggingStatus(enabled(`${base}<TargetObjectKeyFormat><SimplePrefix/></TargetObjectKeyFormat>`))).toEqual({ targetBucket: 't', targetPrefix: 'p/' });
    expect(parseBucketLoggingStatus(enabled(`${base}<TargetObjectKeyFormat><PartitionedPrefix><PartitionDateSource>DeliveryTime</PartitionDateSource></PartitionedPrefix></TargetObjectKeyFormat>`))?.partitioned)
      .toEqual({ dateSource: 'DeliveryTime' });
    expect(code(enabled(`${base}<TargetObjectKeyFormat><PartitionedPrefix><PartitionDateSource>kaboom</PartitionDateSource></PartitionedPrefix></TargetObjectKeyFormat>`))).toBe('MalformedXML');
    expect(code(enabled(`${base}<TargetObjectKeyFormat><SimplePrefix/><PartitionedPrefix/></TargetObjectKeyFormat>`))).toBe('MalformedXML');
    expect(code(enabled(`${base}<TargetGrants><Grant><Permission>READ_ACP</Permission></Grant></TargetGrants>`))).toBe('MalformedXML');
    expect(code('<NotLogging/>')).toBe('MalformedXML');
  });

  it("log delivery may write by the target's policy (service principal, prefix, source conditions) or its LogDelivery ACL", () => {
    const target: S3Bucket = { name: 'logs', owner: 'o'.repeat(64), created: 0, acl: 'private', objectLock: false, versioning: 'Unversioned' };
    const source = { bucket: 'src', accountIds: ['123456789012'] };
    expect(logDeliveryAllowed(target, 'log/', source)).toBe(false);
    expect(logDeliveryAllowed({ ...target, acl: 'log-delivery-write' }, 'log/', source)).toBe(true);
    const policy = (statement: object) => ({ ...target, access: { policy: JSON.stringify({ Version: '2012-10-17', Statement: [statement] }) } });
    const allow = {
      Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' }, Action: 's3:PutObject', Resource: 'arn:aws:s3:::logs/log/*',
      Condition: { ArnLike: { 'aws:SourceArn': 'arn:aws:s3:::src' }, StringEquals: { 'aws:SourceAccount': '123456789012' } },
    };
    expect(logDeliveryAllowed(policy(allow), 'log/', source)).toBe(true);
    expect(logDeliveryAllowed(policy(allow), 'other/', source)).toBe(false);
    expect(logDeliveryAllowed(policy(allow), 'log/', { ...source, bucket: 'elsewhere' })).toBe(false);
    expect(logDeliveryAllowed(policy(allow), 'log/', { ...source, accountIds: ['999999999999'] })).toBe(false);
    expect(logDeliveryAllowed(policy({ ...allow, Principal: { Service: 'logging.s3.amazonaws.comkaboom' } }), 'log/', source)).toBe(false);
    expect(logDeliveryAllowed(policy({ ...allow, Action: 's3:GetObject' }), 'log/', source)).toBe(false);
    // an explicit Deny wins over the ACL
    expect(logDeliveryAllowed({ ...policy({ ...allow, Effect: 'Deny' }), acl: 'log-delivery-write' }, 'log/', source)).toBe(false);
  });
});
