// Bucket-policy compilation and evaluation (AWS *IAM JSON policy elements reference*, *Policy
// evaluation logic*, *Condition operators*).

import { describe, expect, it } from 'vitest';
import { compilePolicy, evaluatePolicy, type ConditionValues, type PolicyPrincipal } from '../../../src/s3/authz/policy.js';
import { S3Error } from '../../../src/s3/errors/errors.js';

const B = 'bkt';
const ARN = `arn:aws:s3:::${B}`;
const owner: PolicyPrincipal = { anonymous: false, accountId: '123456789012', canonicalId: 'a'.repeat(64) };
const partner: PolicyPrincipal = { anonymous: false, accountId: '111122223333', canonicalId: 'b'.repeat(64) };
const anonymous: PolicyPrincipal = { anonymous: true };
const none: ConditionValues = () => undefined;
const values = (v: Record<string, string | string[]>): ConditionValues => (k) => v[k];
const policy = (...Statement: object[]) => JSON.stringify({ Version: '2012-10-17', Statement });
const evaluate = (text: string, p: PolicyPrincipal, action: string, arn: string, v: ConditionValues = none) => evaluatePolicy(compilePolicy(text, B), p, action, arn, v);

describe('compilePolicy rejects what AWS rejects (MalformedPolicy)', () => {
  it.each([
    ['not JSON', '{'],
    ['no Statement', JSON.stringify({ Version: '2012-10-17' })],
    ['bad Version', JSON.stringify({ Version: '2020-01-01', Statement: [] })],
    ['bad Effect', policy({ Effect: 'allow', Principal: '*', Action: 's3:GetObject', Resource: `${ARN}/*` })],
    ['no Principal', policy({ Effect: 'Allow', Action: 's3:GetObject', Resource: `${ARN}/*` })],
    ['non-S3 action', policy({ Effect: 'Allow', Principal: '*', Action: 'iam:PassRole', Resource: `${ARN}/*` })],
    ['another bucket', policy({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::other/*' })],
    ['unknown operator', policy({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${ARN}/*`, Condition: { StringSort: { 's3:prefix': 'a' } } })],
    ['bad CIDR', policy({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${ARN}/*`, Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/40' } } })],
    ['bad date', policy({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${ARN}/*`, Condition: { DateLessThan: { 'aws:CurrentTime': 'soon' } } })],
    ['bad principal', policy({ Effect: 'Allow', Principal: { AWS: 'bob' }, Action: 's3:GetObject', Resource: `${ARN}/*` })],
    ['unknown principal kind', policy({ Effect: 'Allow', Principal: { Robot: 'r2d2' }, Action: 's3:GetObject', Resource: `${ARN}/*` })],
    ['empty service principal', policy({ Effect: 'Allow', Principal: { Service: '' }, Action: 's3:GetObject', Resource: `${ARN}/*` })],
    ['unknown field', policy({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${ARN}/*`, Extra: 1 })],
  ])('%s', (_n, text) => {
    let err: unknown;
    try {
      compilePolicy(text, B);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(S3Error);
    expect((err as S3Error).code).toBe('MalformedPolicy');
  });
});

describe('matching', () => {
  it('wildcard actions (case-insensitive) and resources, NotAction, NotResource, NotPrincipal', () => {
    const text = policy(
      { Effect: 'Allow', Principal: { AWS: partner.accountId }, Action: 's3:get*', Resource: `${ARN}/docs/*.pdf` },
      { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${partner.accountId}:root` }, NotAction: 's3:Delete*', Resource: `${ARN}/tmp/?` },
      { Effect: 'Deny', NotPrincipal: { AWS: owner.accountId }, Action: 's3:*', NotResource: [`${ARN}/docs/*`, `${ARN}/tmp/*`] },
    );
    expect(evaluate(text, partner, 's3:GetObject', `${ARN}/docs/a/b.pdf`)).toBe('allow');
    expect(evaluate(text, partner, 's3:GetObject', `${ARN}/docs/a/b.txt`)).toBe('none');
    expect(evaluate(text, partner, 's3:PutObject', `${ARN}/tmp/x`)).toBe('allow');
    expect(evaluate(text, partner, 's3:DeleteObject', `${ARN}/tmp/x`)).toBe('none');
    expect(evaluate(text, partner, 's3:PutObject', `${ARN}/tmp/xy`)).toBe('none');
    expect(evaluate(text, partner, 's3:GetObject', `${ARN}/other`)).toBe('deny');
    expect(evaluate(text, owner, 's3:GetObject', `${ARN}/other`)).toBe('none');
    expect(evaluate(text, anonymous, 's3:GetObject', `${ARN}/docs/x.pdf`)).toBe('none');
  });

  it('a service or federated principal is valid and matches no caller of this server (a log-delivery policy)', () => {
    const text = policy({
      Sid: 'S3ServerAccessLogsPolicy',
      Effect: 'Allow',
      Principal: { Service: 'logging.s3.amazonaws.com', Federated: 'cognito-identity.amazonaws.com' },
      Action: 's3:PutObject',
      Resource: `${ARN}/log/*`,
      Condition: { ArnLike: { 'aws:SourceArn': 'arn:aws:s3:::src' }, StringEquals: { 'aws:SourceAccount': owner.accountId } },
    });
    for (const p of [owner, partner, anonymous]) expect(evaluate(text, p, 's3:PutObject', `${ARN}/log/x`)).toBe('none');
    const denyOthers = policy({ Effect: 'Deny', NotPrincipal: { Service: ['logging.s3.amazonaws.com'] }, Action: 's3:PutObject', Resource: `${ARN}/log/*` });
    expect(evaluate(denyOthers, owner, 's3:PutObject', `${ARN}/log/x`)).toBe('deny');
  });

  it('explicit deny wins over any allow', () => {
    const text = policy(
      { Effect: 'Allow', Principal: '*', Action: 's3:*', Resource: `${ARN}/*` },
      { Effect: 'Deny', Principal: '*', Action: 's3:DeleteObject', Resource: `${ARN}/*` },
    );
    expect(evaluate(text, partner, 's3:DeleteObject', `${ARN}/k`)).toBe('deny');
    expect(evaluate(text, anonymous, 's3:GetObject', `${ARN}/k`)).toBe('allow-public');
  });
});

describe('conditions', () => {
  const allowIf = (Condition: object) => policy({ Effect: 'Allow', Principal: '*', Action: 's3:ListBucket', Resource: ARN, Condition });
  const check = (Condition: object, v: ConditionValues) => evaluate(allowIf(Condition), partner, 's3:ListBucket', ARN, v) !== 'none';

  it('String operators, IgnoreCase, Like, and a missing key (negated operators hold)', () => {
    expect(check({ StringEquals: { 's3:prefix': ['a/', 'b/'] } }, values({ 's3:prefix': 'b/' }))).toBe(true);
    expect(check({ StringEquals: { 's3:prefix': 'a/' } }, values({ 's3:prefix': 'A/' }))).toBe(false);
    expect(check({ StringEqualsIgnoreCase: { 's3:prefix': 'a/' } }, values({ 's3:prefix': 'A/' }))).toBe(true);
    expect(check({ StringLike: { 's3:prefix': 'home/*/docs/' } }, values({ 's3:prefix': 'home/ann/docs/' }))).toBe(true);
    expect(check({ StringNotLike: { 's3:prefix': 'private/*' } }, values({ 's3:prefix': 'private/x' }))).toBe(false);
    expect(check({ StringEquals: { 's3:prefix': 'a/' } }, none)).toBe(false);
    expect(check({ StringNotEquals: { 's3:prefix': 'a/' } }, none)).toBe(true);
    expect(check({ StringEqualsIfExists: { 's3:prefix': 'a/' } }, none)).toBe(true);
    expect(check({ StringEqualsIfExists: { 's3:prefix': 'a/' } }, values({ 's3:prefix': 'b/' }))).toBe(false);
    expect(check({ Null: { 's3:prefix': 'true' } }, none)).toBe(true);
    expect(check({ Null: { 's3:prefix': 'false' } }, none)).toBe(false);
  });

  it('Numeric, Date, Bool, IpAddress / NotIpAddress (IPv4, mapped IPv4, IPv6), every block must hold', () => {
    expect(check({ NumericLessThanEquals: { 's3:max-keys': '10' } }, values({ 's3:max-keys': '10' }))).toBe(true);
    expect(check({ NumericLessThan: { 's3:max-keys': '10' } }, values({ 's3:max-keys': '11' }))).toBe(false);
    expect(check({ DateLessThan: { 'aws:currenttime': '2030-01-01T00:00:00Z' } }, values({ 'aws:currenttime': '2029-12-31T23:59:59Z' }))).toBe(true);
    expect(check({ DateGreaterThan: { 'aws:currenttime': '2030-01-01T00:00:00Z' } }, values({ 'aws:currenttime': '2029-12-31T23:59:59Z' }))).toBe(false);
    expect(check({ Bool: { 'aws:SecureTransport': 'false' } }, values({ 'aws:securetransport': 'false' }))).toBe(true);
    expect(check({ IpAddress: { 'aws:SourceIp': '10.1.0.0/16' } }, values({ 'aws:sourceip': '10.1.200.3' }))).toBe(true);
    expect(check({ IpAddress: { 'aws:SourceIp': '10.1.0.0/16' } }, values({ 'aws:sourceip': '::ffff:10.1.2.3' }))).toBe(true);
    expect(check({ IpAddress: { 'aws:SourceIp': '10.1.0.0/16' } }, values({ 'aws:sourceip': '10.2.0.1' }))).toBe(false);
    expect(check({ IpAddress: { 'aws:SourceIp': '2001:db8::/32' } }, values({ 'aws:sourceip': '2001:db8:1::5' }))).toBe(true);
    expect(check({ NotIpAddress: { 'aws:SourceIp': ['127.0.0.0/8', '::1/128'] } }, values({ 'aws:sourceip': '::1' }))).toBe(false);
    expect(check({ StringEquals: { 's3:prefix': 'a/' }, NumericLessThan: { 's3:max-keys': '5' } }, values({ 's3:prefix': 'a/', 's3:max-keys': '9' }))).toBe(false);
  });

  it('several expected values: any one matches, a negated operator holds only if none does; dates in epoch seconds; ? and Arn operators', () => {
    expect(check({ StringNotEquals: { 's3:prefix': ['a/', 'b/'] } }, values({ 's3:prefix': 'b/' }))).toBe(false);
    expect(check({ StringNotEquals: { 's3:prefix': ['a/', 'b/'] } }, values({ 's3:prefix': 'c/' }))).toBe(true);
    expect(check({ StringLike: { 's3:prefix': ['x/*', 'log-??/'] } }, values({ 's3:prefix': 'log-07/' }))).toBe(true);
    expect(check({ StringLike: { 's3:prefix': ['x/*', 'log-??/'] } }, values({ 's3:prefix': 'log-7/' }))).toBe(false);
    expect(check({ NumericEquals: { 's3:max-keys': ['5', '10'] } }, values({ 's3:max-keys': '10' }))).toBe(true);
    expect(check({ NumericNotEquals: { 's3:max-keys': ['5', '10'] } }, values({ 's3:max-keys': '10' }))).toBe(false);
    expect(check({ NumericGreaterThan: { 's3:max-keys': '10' } }, values({ 's3:max-keys': 'ten' }))).toBe(false);
    expect(check({ DateGreaterThanEquals: { 'aws:epochtime': '1893456000' } }, values({ 'aws:epochtime': '2030-01-01T00:00:00Z' }))).toBe(true);
    expect(check({ DateEquals: { 'aws:currenttime': '2030-01-01T00:00:00Z' } }, values({ 'aws:currenttime': '1893456000' }))).toBe(true);
    expect(check({ DateNotEquals: { 'aws:currenttime': '2030-01-01T00:00:00Z' } }, values({ 'aws:currenttime': '1893456001' }))).toBe(true);
    expect(check({ ArnLike: { 'aws:sourcearn': 'arn:aws:sns:*:123456789012:topic-?' } }, values({ 'aws:sourcearn': 'arn:aws:sns:us-east-1:123456789012:topic-a' }))).toBe(true);
    expect(check({ ArnNotEquals: { 'aws:sourcearn': 'arn:aws:sns:us-east-1:123456789012:t' } }, values({ 'aws:sourcearn': 'arn:aws:sns:us-east-1:123456789012:t' }))).toBe(false);
    expect(check({ 'ForAllValues:StringLike': { 'aws:tagkeys': ['team-*'] } }, values({ 'aws:tagkeys': ['team-a', 'team-b'] }))).toBe(true);
    expect(check({ 'ForAnyValue:StringNotEquals': { 'aws:tagkeys': 'a' } }, values({ 'aws:tagkeys': ['a', 'b'] }))).toBe(true);
    expect(check({ 'ForAnyValue:StringNotEquals': { 'aws:tagkeys': ['a', 'b'] } }, values({ 'aws:tagkeys': ['a', 'b'] }))).toBe(false);
  });

  it('ForAnyValue / ForAllValues over multi-valued keys', () => {
    expect(check({ 'ForAnyValue:StringEquals': { 'aws:tagkeys': ['a', 'z'] } }, values({ 'aws:tagkeys': ['x', 'a'] }))).toBe(true);
    expect(check({ 'ForAllValues:StringEquals': { 'aws:tagkeys': ['a', 'b'] } }, values({ 'aws:tagkeys': ['a', 'c'] }))).toBe(false);
    expect(check({ 'ForAllValues:StringEquals': { 'aws:tagkeys': ['a', 'b'] } }, values({ 'aws:tagkeys': ['b', 'a'] }))).toBe(true);
  });
});

describe('public policies (AWS "The meaning of public")', () => {
  it('an Allow to everyone is public unless a condition pins the caller', () => {
    expect(compilePolicy(policy({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${ARN}/*` }), B).isPublic).toBe(true);
    expect(compilePolicy(policy({ Effect: 'Allow', Principal: { AWS: '*' }, Action: 's3:GetObject', Resource: `${ARN}/*`, Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } }), B).isPublic).toBe(false);
    expect(compilePolicy(policy({ Effect: 'Allow', Principal: { AWS: partner.accountId }, Action: 's3:GetObject', Resource: `${ARN}/*` }), B).isPublic).toBe(false);
    expect(compilePolicy(policy({ Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: `${ARN}/*` }), B).isPublic).toBe(false);
  });
});
