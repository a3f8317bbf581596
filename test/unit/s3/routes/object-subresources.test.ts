import { describe, expect, it } from 'vitest';
import { parseGetObjectAttributes, parseVersioned } from '../../../../src/s3/routes/object-subresources.js';
import { errorOf, input } from './helpers.js';

const VERSION = 'a'.repeat(32);

describe('object sub-resource parameters: tagging, ACL (s3.md §3.0.7)', () => {
  it('reads the version id from the query or the header', () => {
    expect(parseVersioned(input())).toEqual({ versionId: undefined });
    expect(parseVersioned(input({ versionId: VERSION }))).toEqual({ versionId: VERSION });
    expect(parseVersioned(input({}, { 'x-amz-version-id': 'null' }))).toEqual({ versionId: 'null' });
  });

  it('refuses a malformed or conflicting version id', () => {
    expect(errorOf(() => parseVersioned(input({ versionId: 'bad' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'versionId', message: 'Invalid version id specified',
    });
    expect(errorOf(() => parseVersioned(input({ versionId: VERSION }, { 'x-amz-version-id': 'null' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'versionId',
    });
  });
});

describe('GetObjectAttributes parameters', () => {
  const attrs = { 'x-amz-object-attributes': 'ETag, ObjectSize,ETag' };

  it('reads the attributes (a set), the parts page and the version id; max-parts above 1000 is capped', () => {
    expect(parseGetObjectAttributes(input({}, attrs))).toEqual({
      attributes: new Set(['ETag', 'ObjectSize']), maxParts: 1000, partNumberMarker: 0, versionId: undefined,
    });
    expect(parseGetObjectAttributes(input({ versionId: VERSION }, {
      'x-amz-object-attributes': 'ObjectParts', 'x-amz-max-parts': ' 5 ', 'x-amz-part-number-marker': '2',
    }))).toEqual({ attributes: new Set(['ObjectParts']), maxParts: 5, partNumberMarker: 2, versionId: VERSION });
    expect(parseGetObjectAttributes(input({}, { ...attrs, 'x-amz-max-parts': '5000' })).maxParts).toBe(1000);
  });

  it('refuses, in order: missing or unknown attributes, bad max-parts, bad part-number-marker, bad version id', () => {
    const bad = { 'x-amz-max-parts': '-1', 'x-amz-part-number-marker': 'x' };
    expect(errorOf(() => parseGetObjectAttributes(input({ versionId: 'bad' }, { ...bad, 'x-amz-object-attributes': ' ' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'x-amz-object-attributes', message: 'Missing required header for this request: x-amz-object-attributes',
    });
    expect(errorOf(() => parseGetObjectAttributes(input({ versionId: 'bad' }, { ...bad, 'x-amz-object-attributes': 'ETag,Size' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'x-amz-object-attributes', message: 'Invalid attribute name specified.',
    });
    expect(errorOf(() => parseGetObjectAttributes(input({ versionId: 'bad' }, { ...attrs, ...bad })))).toMatchObject({
      code: 'InvalidArgument', argument: 'x-amz-max-parts',
    });
    expect(errorOf(() => parseGetObjectAttributes(input({ versionId: 'bad' }, { ...attrs, 'x-amz-part-number-marker': 'x' })))).toMatchObject({
      code: 'InvalidArgument', argument: 'x-amz-part-number-marker',
    });
    expect(errorOf(() => parseGetObjectAttributes(input({ versionId: 'bad' }, attrs)))).toMatchObject({
      code: 'InvalidArgument', argument: 'versionId',
    });
  });
});
