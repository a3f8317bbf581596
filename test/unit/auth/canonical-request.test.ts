// Canonical URI / query / header rules of s3.md §2.3, pinned directly.

import { describe, expect, it } from 'vitest';
import {
  canonicalHeaders,
  canonicalQueryString,
  canonicalUri,
  normalizeHeaderValue,
  parseQuery,
} from '../../../src/s3/sigv4/canonical-request.js';
import { canonicalEncode, decodeQueryComponent } from '../../../src/s3/sigv4/uri-encode.js';

describe('canonicalUri', () => {
  it.each([
    ['', '/'],
    ['/', '/'],
    ['/bucket/key', '/bucket/key'],
    ['/b/a%2Fb', '/b/a%2Fb'], // a client's %2F stays encoded, never a separator
    ['/b/a%2fb', '/b/a%2Fb'], // upper-case hex
    ['/b/a+b', '/b/a%2Bb'], // + in the path is a literal plus (s3.md §1.2)
    ['/b/a%2Bb', '/b/a%2Bb'],
    ['/b/a%20b', '/b/a%20b'],
    ['/b/%41%7e%2D', '/b/A~-'], // unreserved escapes decoded: encode once, no double encoding
    ['/b//a', '/b//a'], // no slash normalisation
    ['/b/./../x/', '/b/./../x/'], // no dot-segment removal
    ['/b/$&=;:@,', '/b/%24%26%3D%3B%3A%40%2C'],
    ['/b/%E2%82%AC', '/b/%E2%82%AC'],
    ['/b/€', '/b/%E2%82%AC'], // raw UTF-8 characters
    ['/b/😀', '/b/%F0%9F%98%80'], // non-BMP
    ['/b/%zz%4', '/b/%25zz%254'], // invalid escapes are literal percent signs
    ['/b/%C3', '/b/%C3'], // byte-wise: invalid UTF-8 passes through as bytes
  ])('%j → %j', (raw, canonical) => {
    expect(canonicalUri(raw)).toBe(canonical);
  });
});

describe('canonicalQueryString', () => {
  it.each([
    ['', ''],
    ['acl', 'acl='],
    ['acl=', 'acl='],
    ['&&a=1&&', 'a=1'],
    ['b=2&a=1&c', 'a=1&b=2&c='],
    ['a=2&a=10&a=1', 'a=1&a=10&a=2'], // byte order of the encoded values
    ['prefix=a+b%2Bc', 'prefix=a%20b%2Bc'], // + is a space in queries
    ['k=a=b', 'k=a%3Db'], // split at the first '='
    ['k=/x/', 'k=%2Fx%2F'],
    ['k=%7E%41', 'k=~A'],
    ['Z=1&a=1&_=1&~=1', 'Z=1&_=1&a=1&~=1'],
    ['k=%F0%9F%98%80', 'k=%F0%9F%98%80'],
  ])('%j → %j', (raw, canonical) => {
    expect(canonicalQueryString(parseQuery(raw))).toBe(canonical);
  });

  it('drops X-Amz-Signature (exact name) for presigned requests', () => {
    expect(canonicalQueryString(parseQuery('X-Amz-Signature=abc&b=1&x-amz-signature=2'), 'X-Amz-Signature')).toBe(
      'b=1&x-amz-signature=2',
    );
  });
});

describe('canonical headers', () => {
  it('normalises values', () => {
    expect(normalizeHeaderValue('plain')).toBe('plain');
    expect(normalizeHeaderValue('  a   b\t\tc  ')).toBe('a b c');
    expect(normalizeHeaderValue('"a  b"')).toBe('"a b"');
    expect(normalizeHeaderValue('   ')).toBe('');
  });

  it('joins repeated headers in arrival order and reports a missing one', () => {
    const list = [
      ['host', 'h'],
      ['x-amz-meta-a', 'b '],
      ['other', 'x'],
      ['x-amz-meta-a', ' a'],
    ] as const;
    expect(canonicalHeaders(list, ['host', 'x-amz-meta-a'])).toEqual({ text: 'host:h\nx-amz-meta-a:b,a\n' });
    expect(canonicalHeaders(list, ['host', 'range'])).toEqual({ missing: 'range' });
  });
});

describe('query component helpers', () => {
  it('canonicalEncode distinguishes path and query + handling', () => {
    expect(canonicalEncode('a+b', false)).toBe('a%2Bb');
    expect(canonicalEncode('a+b', true)).toBe('a%20b');
  });

  it('decodeQueryComponent', () => {
    expect(decodeQueryComponent('AK%2F2013%2Fus-east-1')).toBe('AK/2013/us-east-1');
    expect(decodeQueryComponent('a+b%20c')).toBe('a b c');
    expect(decodeQueryComponent('%zz%41%F0%9F%98%80')).toBe('%zzA😀');
  });
});
