// Response header fields as RFC 9110 §5 allows them (src/http/header-fields.ts).
import { describe, expect, it } from 'vitest';
import { isFieldName, isSafeFieldValue, safeFieldValue } from '../../../src/http/header-fields.js';

describe('response header fields', () => {
  it('keeps ordinary values as they are, tabs and non-ASCII included', () => {
    for (const v of ['text/plain; charset=utf-8', '"d41d8cd98f00b204e9800998ecf8427e"', 'a\tb', 'attachment; filename="ü.txt"', '']) {
      expect(safeFieldValue(v)).toBe(v);
      expect(isSafeFieldValue(v)).toBe(true);
    }
  });

  it('turns CR, LF, NUL, DEL and the other controls into spaces, so a value can never end its header', () => {
    expect(safeFieldValue('text/plain\r\nX-Injected: yes')).toBe('text/plain  X-Injected: yes');
    expect(safeFieldValue('a\nb\rc\0d\x7fe\x1bf')).toBe('a b c d e f');
    expect(isSafeFieldValue('a\r\nb')).toBe(false);
    expect(isSafeFieldValue('\x01')).toBe(false);
  });

  it('accepts only tokens as names', () => {
    for (const name of ['Content-Type', 'x-amz-meta-who', "x-amz-meta-a!#$%&'*+.^_`|~9"]) expect(isFieldName(name)).toBe(true);
    for (const name of ['', 'x-amz-meta-a b', 'x-amz-meta-a\r\nX-Injected', 'a:b', 'ü', 'a"b']) expect(isFieldName(name)).toBe(false);
  });
});
