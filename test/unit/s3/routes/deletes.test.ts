import { describe, expect, it } from 'vitest';
import { parseDeleteObject, parseDeleteObjects, parseMfa } from '../../../../src/s3/routes/deletes.js';
import { errorOf, input } from './helpers.js';

const VERSION = 'a'.repeat(32);

describe('delete parameters (s3.md §2.14, §3.0.9, §3.16)', () => {
  it('x-amz-mfa is passed on unchecked: its validity is the owner\'s devices\' to say', () => {
    expect(parseMfa(input())).toEqual({ mfa: undefined });
    expect(parseMfa(input({}, { 'x-amz-mfa': 'serial 123456' }))).toEqual({ mfa: 'serial 123456' });
  });

  it('x-amz-bypass-governance-retention: absent, true (any case, trimmed), or anything else false', () => {
    expect(parseDeleteObjects(input())).toEqual({ mfa: undefined, bypassGovernance: undefined });
    expect(parseDeleteObjects(input({}, { 'x-amz-bypass-governance-retention': ' TRUE ' })).bypassGovernance).toBe(true);
    // present but not true: still refused on a bucket without object lock, so it is kept apart from absent
    expect(parseDeleteObjects(input({}, { 'x-amz-bypass-governance-retention': 'no' })).bypassGovernance).toBe(false);
  });

  it('DeleteObject reads version id, bypass, MFA and If-Match', () => {
    expect(parseDeleteObject(input())).toEqual({ versionId: undefined, mfa: undefined, bypassGovernance: undefined, ifMatch: undefined });
    expect(parseDeleteObject(input(
      { versionId: VERSION },
      { 'x-amz-mfa': 'm', 'x-amz-bypass-governance-retention': 'true', 'if-match': '"e"' },
    ))).toEqual({ versionId: VERSION, mfa: 'm', bypassGovernance: true, ifMatch: '"e"' });
    expect(parseDeleteObject(input({}, { 'x-amz-version-id': 'null' })).versionId).toBe('null');
  });

  it('DeleteObject refuses a malformed or conflicting version id', () => {
    expect(errorOf(() => parseDeleteObject(input({ versionId: 'bad' }, { 'x-amz-bypass-governance-retention': 'true' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'versionId', message: 'Invalid version id specified',
    });
    expect(errorOf(() => parseDeleteObject(input({ versionId: VERSION }, { 'x-amz-version-id': 'null' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'versionId', message: 'The versionId query parameter and the x-amz-version-id header do not match',
    });
  });
});
