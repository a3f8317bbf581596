import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58Decode, base58Encode } from '../../../../src/publisher/ledger/base58.js';

// Bitcoin Core src/test/data/base58_encode_decode.json
const VECTORS: [string, string][] = [
  ['', ''],
  ['61', '2g'],
  ['626262', 'a3gV'],
  ['636363', 'aPEr'],
  ['73696d706c792061206c6f6e6720737472696e67', '2cFupjhnEsSn59qHXstmK2ffpLv2'],
  ['00eb15231dfceb60925886b67d065299925915aeb172c06647', '1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L'],
  ['516b6fcd0f', 'ABnLTmg'],
  ['bf4f89001e670274dd', '3SEo3LWLoPntC'],
  ['572e4794', '3EFU7m'],
  ['ecac89cad93923c02321', 'EJDM8drfXA6uyA'],
  ['10c8511e', 'Rt5zm'],
  ['00000000000000000000', '1111111111'],
];

describe('base58 (Bitcoin alphabet)', () => {
  it.each(VECTORS)('encodes %s as %s and back', (hex, text) => {
    expect(base58Encode(Buffer.from(hex, 'hex'))).toBe(text);
    expect(Buffer.from(base58Decode(text)!).toString('hex')).toBe(hex);
  });

  it('decodes the Sui digest of walrus.md §9.4 to 32 bytes and re-encodes it', () => {
    const digest = '4XQHFa9S324wTzYHF3vsBSwpUZuLpmwTHYMFv9nsttSs';
    const bytes = base58Decode(digest)!;
    expect(bytes.length).toBe(32);
    expect(base58Encode(bytes)).toBe(digest);
  });

  it('round-trips random inputs, including leading zero bytes', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(i % 40);
      if (i % 3 === 0 && bytes.length > 2) bytes[0] = bytes[1] = 0;
      expect(Buffer.from(base58Decode(base58Encode(bytes))!)).toEqual(bytes);
    }
  });

  it('rejects characters outside the alphabet (0, O, I, l)', () => {
    for (const bad of ['0', 'O', 'I', 'l', 'ab+c', 'é']) expect(base58Decode(bad)).toBeUndefined();
  });
});
