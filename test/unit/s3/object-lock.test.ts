// Object-lock rules (s3.md §3.0.9, AWS Object Lock guide): retention changes, removal guard, and the
// lock of a new version from headers or the bucket's default.

import { describe, expect, it } from 'vitest';
import { lockedBecause, lockOfNewVersion, retentionChangeRefusal } from '../../../src/s3/object-lock.js';
import type { S3Object } from '../../../src/s3/object-attrs.js';
import type { S3Bucket } from '../../../src/s3/object-attrs.js';
import { S3Error } from '../../../src/s3/errors/errors.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const H = 3_600_000;
const gov = (until: number) => ({ mode: 'GOVERNANCE' as const, until });
const comp = (until: number) => ({ mode: 'COMPLIANCE' as const, until });

function codeOf(e: S3Error | undefined): string | undefined {
  return e?.code;
}

describe('retention changes', () => {
  it.each([
    ['extend GOVERNANCE', gov(NOW + H), gov(NOW + 2 * H), false, undefined],
    ['shorten GOVERNANCE without bypass', gov(NOW + 2 * H), gov(NOW + H), false, 'AccessDenied'],
    ['shorten GOVERNANCE with bypass', gov(NOW + 2 * H), gov(NOW + H), true, undefined],
    ['remove GOVERNANCE without bypass', gov(NOW + H), undefined, false, 'AccessDenied'],
    ['remove GOVERNANCE with bypass', gov(NOW + H), undefined, true, undefined],
    ['GOVERNANCE to COMPLIANCE without bypass', gov(NOW + H), comp(NOW + H), false, 'AccessDenied'],
    ['GOVERNANCE to COMPLIANCE with bypass', gov(NOW + H), comp(NOW + 2 * H), true, undefined],
    ['extend COMPLIANCE', comp(NOW + H), comp(NOW + 2 * H), false, undefined],
    ['shorten COMPLIANCE even with bypass', comp(NOW + 2 * H), comp(NOW + H), true, 'AccessDenied'],
    ['COMPLIANCE to GOVERNANCE even with bypass', comp(NOW + H), gov(NOW + 2 * H), true, 'AccessDenied'],
    ['remove COMPLIANCE', comp(NOW + H), undefined, true, 'AccessDenied'],
    ['anything once the date passed', comp(NOW - 1), gov(NOW + H), false, undefined],
    ['a date in the past', undefined, gov(NOW - 1), false, 'InvalidArgument'],
  ] as const)('%s', (_name, current, next, bypass, code) => {
    expect(codeOf(retentionChangeRefusal(current, next, NOW, bypass))).toBe(code);
  });
});

describe('removal', () => {
  const version = (attrs: Partial<S3Object['attrs']>, deleteMarker = false) => ({ deleteMarker, attrs }) as S3Object;
  it('legal hold and active retention protect; bypass only lifts GOVERNANCE; markers never', () => {
    expect(lockedBecause(version({ legalHold: true }), NOW, true)).toBe('legal hold');
    expect(lockedBecause(version({ retention: gov(NOW + H) }), NOW, false)).toBe('GOVERNANCE retention');
    expect(lockedBecause(version({ retention: gov(NOW + H) }), NOW, true)).toBeUndefined();
    expect(lockedBecause(version({ retention: comp(NOW + H) }), NOW, true)).toBe('COMPLIANCE retention');
    expect(lockedBecause(version({ retention: comp(NOW - 1) }), NOW, false)).toBeUndefined();
    expect(lockedBecause(version({ legalHold: true }, true), NOW, false)).toBeUndefined();
  });
});

describe('lock of a new version', () => {
  const lockBucket: S3Bucket = {
    name: 'b', owner: 'o', created: 0, acl: 'private', objectLock: true, versioning: 'Enabled',
    versionControl: { lockRule: { mode: 'COMPLIANCE', years: 1 } },
  };
  it('takes the default rule (a year is 365 days), headers win, legal hold from its header', () => {
    expect(lockOfNewVersion({}, lockBucket, NOW)).toEqual({ retention: comp(NOW + 365 * 24 * H) });
    const until = new Date(NOW + H).toISOString();
    expect(lockOfNewVersion({ 'x-amz-object-lock-mode': 'GOVERNANCE', 'x-amz-object-lock-retain-until-date': until, 'x-amz-object-lock-legal-hold': 'ON' }, lockBucket, NOW))
      .toEqual({ retention: gov(NOW + H), legalHold: true });
  });
  it('refuses lock headers on a bucket without lock, and half or bad headers', () => {
    const plain = { ...lockBucket, objectLock: false, versionControl: undefined };
    expect(() => lockOfNewVersion({ 'x-amz-object-lock-legal-hold': 'ON' }, plain, NOW)).toThrow('Bucket is missing Object Lock Configuration');
    expect(lockOfNewVersion({}, plain, NOW)).toEqual({});
    expect(() => lockOfNewVersion({ 'x-amz-object-lock-mode': 'GOVERNANCE' }, lockBucket, NOW)).toThrow(/must both be supplied/);
    expect(() => lockOfNewVersion({ 'x-amz-object-lock-mode': 'FOREVER', 'x-amz-object-lock-retain-until-date': '2031-01-01T00:00:00Z' }, lockBucket, NOW)).toThrow(S3Error);
    expect(() => lockOfNewVersion({ 'x-amz-object-lock-mode': 'GOVERNANCE', 'x-amz-object-lock-retain-until-date': 'tomorrow' }, lockBucket, NOW)).toThrow(S3Error);
  });
});
