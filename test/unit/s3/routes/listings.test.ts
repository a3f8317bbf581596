import { describe, expect, it } from 'vitest';
import { encodeToken } from '../../../../src/s3/routes/continuation-token.js';
import {
  MAX_LISTED,
  parseListMultipartUploads,
  parseListObjects,
  parseListObjectsV2,
  parseListObjectVersions,
  parseListParts,
} from '../../../../src/s3/routes/listings.js';
import { errorOf, input } from './helpers.js';

const BAD = { code: 'InvalidArgument' };

describe('ListObjects parameters (s3.md §3.7)', () => {
  it('defaults: no prefix, delimiter or marker, 1000 keys, no encoding, XML', () => {
    expect(parseListObjects(input())).toEqual({ prefix: '', delimiter: '', maxKeys: MAX_LISTED, url: false, marker: '', json: false });
  });

  it('reads each parameter; max-keys is capped at 1000; Accept picks JSON by its first media range', () => {
    const p = parseListObjects(input(
      { prefix: 'a/', delimiter: '/', marker: 'a/b', 'max-keys': '5000', 'encoding-type': 'url' },
      { accept: 'Application/JSON; q=1, text/xml' },
    ));
    expect(p).toEqual({ prefix: 'a/', delimiter: '/', maxKeys: MAX_LISTED, url: true, marker: 'a/b', json: true });
    expect(parseListObjects(input({ 'max-keys': '0' }, { accept: 'text/xml, application/json' }))).toMatchObject({ maxKeys: 0, json: false });
  });

  it('refuses start-after (a V2 parameter) before anything else', () => {
    expect(errorOf(() => parseListObjects(input({ 'start-after': 'a', 'max-keys': 'x' })))).toMatchObject({
      ...BAD, argument: 'start-after', message: 'startAfter only supported in REST.GET.BUCKET with list-type=2',
    });
  });

  it('refuses a max-keys that is not a non-negative integer, before a bad encoding-type', () => {
    for (const v of ['-1', '1.5', 'ten', '']) {
      expect(errorOf(() => parseListObjects(input({ 'max-keys': v, 'encoding-type': 'x' })))).toMatchObject({ ...BAD, argument: 'max-keys' });
    }
  });

  it('refuses an encoding-type other than url', () => {
    expect(errorOf(() => parseListObjects(input({ 'encoding-type': 'URL' })))).toMatchObject({
      ...BAD, argument: 'encoding-type', message: 'Invalid Encoding Method specified in Request',
    });
  });
});

describe('ListObjectsV2 parameters (s3.md §3.6)', () => {
  it('defaults', () => {
    expect(parseListObjectsV2(input())).toEqual({
      prefix: '', delimiter: '', maxKeys: MAX_LISTED, url: false, continuationToken: undefined, start: '', startAfter: undefined,
      fetchOwner: false, json: false,
    });
  });

  it('starts after start-after, or after the token\'s item when there is one (start-after still echoed)', () => {
    expect(parseListObjectsV2(input({ 'start-after': 'm' }))).toMatchObject({ start: 'm', startAfter: 'm' });
    const token = encodeToken('k');
    expect(parseListObjectsV2(input({ 'start-after': 'm', 'continuation-token': token }))).toMatchObject({
      start: 'k', startAfter: 'm', continuationToken: token,
    });
    // an empty token is none, but echoed
    expect(parseListObjectsV2(input({ 'continuation-token': '', 'start-after': 'm' }))).toMatchObject({ start: 'm', continuationToken: '' });
  });

  it('fetch-owner only when exactly true', () => {
    expect(parseListObjectsV2(input({ 'fetch-owner': 'true' })).fetchOwner).toBe(true);
    expect(parseListObjectsV2(input({ 'fetch-owner': 'TRUE' })).fetchOwner).toBe(false);
  });

  it('refuses an altered token before a bad max-keys', () => {
    const token = encodeToken('k');
    const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(errorOf(() => parseListObjectsV2(input({ 'continuation-token': altered, 'max-keys': 'x' })))).toMatchObject({
      ...BAD, argument: 'continuation-token', message: 'The continuation token provided is incorrect',
    });
    expect(errorOf(() => parseListObjectsV2(input({ 'max-keys': 'x', 'encoding-type': 'x' })))).toMatchObject({ ...BAD, argument: 'max-keys' });
    expect(errorOf(() => parseListObjectsV2(input({ 'encoding-type': 'x' })))).toMatchObject({ ...BAD, argument: 'encoding-type' });
  });
});

describe('ListObjectVersions parameters (s3.md §3.8)', () => {
  it('reads each parameter', () => {
    expect(parseListObjectVersions(input({
      prefix: 'p', delimiter: '/', 'key-marker': 'k', 'version-id-marker': 'v', 'max-keys': '2', 'encoding-type': 'url',
    }))).toEqual({ prefix: 'p', delimiter: '/', keyMarker: 'k', versionIdMarker: 'v', maxKeys: 2, url: true });
  });

  it('refuses a version-id marker without a key marker, before a bad max-keys, then max-keys, then encoding-type', () => {
    expect(errorOf(() => parseListObjectVersions(input({ 'version-id-marker': 'v', 'max-keys': 'x' })))).toMatchObject({
      ...BAD, argument: 'version-id-marker', message: 'A version-id marker cannot be specified without a key marker.',
    });
    expect(errorOf(() => parseListObjectVersions(input({ 'max-keys': 'x', 'encoding-type': 'x' })))).toMatchObject({ ...BAD, argument: 'max-keys' });
    expect(errorOf(() => parseListObjectVersions(input({ 'encoding-type': 'x' })))).toMatchObject({ ...BAD, argument: 'encoding-type' });
  });
});

describe('ListMultipartUploads parameters (s3.md §3.26)', () => {
  it('reads each parameter; upload-id-marker counts only with a key-marker', () => {
    expect(parseListMultipartUploads(input({
      prefix: 'p', delimiter: '/', 'key-marker': 'k', 'upload-id-marker': 'u', 'max-uploads': '7', 'encoding-type': 'url',
    }))).toEqual({ prefix: 'p', delimiter: '/', keyMarker: 'k', uploadIdMarker: 'u', maxUploads: 7, url: true });
    expect(parseListMultipartUploads(input({ 'upload-id-marker': 'u', 'max-uploads': '2000' }))).toMatchObject({
      uploadIdMarker: '', maxUploads: MAX_LISTED,
    });
  });

  it('refuses a bad max-uploads before a bad encoding-type', () => {
    for (const v of ['-1', '12345678901', 'x']) {
      expect(errorOf(() => parseListMultipartUploads(input({ 'max-uploads': v, 'encoding-type': 'x' })))).toMatchObject({
        ...BAD, argument: 'max-uploads', message: 'Provided max-uploads not an integer or within integer range',
      });
    }
    expect(errorOf(() => parseListMultipartUploads(input({ 'encoding-type': 'x' })))).toMatchObject({ ...BAD, argument: 'encoding-type' });
  });
});

describe('ListParts parameters (s3.md §3.25)', () => {
  it('defaults, and max-parts capped at 1000 (the marker is not)', () => {
    expect(parseListParts(input())).toEqual({ partNumberMarker: 0, maxParts: MAX_LISTED });
    expect(parseListParts(input({ 'part-number-marker': '5000', 'max-parts': '5000' }))).toEqual({ partNumberMarker: 5000, maxParts: MAX_LISTED });
  });

  it('refuses a bad part-number-marker before a bad max-parts', () => {
    expect(errorOf(() => parseListParts(input({ 'part-number-marker': 'x', 'max-parts': 'y' })))).toMatchObject({ ...BAD, argument: 'part-number-marker' });
    expect(errorOf(() => parseListParts(input({ 'max-parts': '-2' })))).toMatchObject({ ...BAD, argument: 'max-parts' });
  });
});
