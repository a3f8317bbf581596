// SigV4 canonical percent-encoding (s3.md §2.3): decode `%XX` once, then re-encode every byte that
// is not `A–Z a–z 0–9 - . _ ~` as upper-case `%XX`. Decoding and re-encoding are fused into one
// pass over the raw text so that no byte buffer is built per component.

const HEX = '0123456789ABCDEF';

/** Table: byte → its canonical form (`'a'` or `'%2F'`). */
const ENCODED: readonly string[] = Array.from({ length: 256 }, (_, b) =>
  isUnreservedByte(b) ? String.fromCharCode(b) : `%${HEX[b >> 4]}${HEX[b & 15]}`,
);

function isUnreservedByte(b: number): boolean {
  return (
    (b >= 0x41 && b <= 0x5a) || // A-Z
    (b >= 0x61 && b <= 0x7a) || // a-z
    (b >= 0x30 && b <= 0x39) || // 0-9
    b === 0x2d || // -
    b === 0x2e || // .
    b === 0x5f || // _
    b === 0x7e // ~
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function isAllUnreserved(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7e || !isUnreservedByte(c)) return false;
  }
  return true;
}

/**
 * Canonical form of one raw path segment or query name/value.
 * `plusIsSpace`: query components decode `+` to a space; in the path `+` is a literal plus (s3.md §1.2).
 * An invalid `%` escape is kept as a literal `%` (encoded `%25`): the router rejects bad paths with
 * InvalidURI before authentication (s3.md §1.10), and clients never sign such text.
 * Characters above U+007F that arrive unescaped are encoded as their UTF-8 bytes.
 */
export function canonicalEncode(raw: string, plusIsSpace: boolean): string {
  if (isAllUnreserved(raw)) return raw;
  let out = '';
  const n = raw.length;
  for (let i = 0; i < n; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 /* % */ && i + 2 < n) {
      const hi = hexValue(raw.charCodeAt(i + 1));
      const lo = hexValue(raw.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        out += ENCODED[(hi << 4) | lo];
        i += 2;
        continue;
      }
      out += ENCODED[c];
    } else if (c < 0x80) {
      out += plusIsSpace && c === 0x2b ? '%20' : ENCODED[c];
    } else if (c < 0x800) {
      out += ENCODED[0xc0 | (c >> 6)]! + ENCODED[0x80 | (c & 63)];
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = raw.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        out +=
          ENCODED[0xf0 | (cp >> 18)]! +
          ENCODED[0x80 | ((cp >> 12) & 63)] +
          ENCODED[0x80 | ((cp >> 6) & 63)] +
          ENCODED[0x80 | (cp & 63)];
        i++;
      } else {
        out += encodeBmp(0xfffd);
      }
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // Lone surrogate: what a UTF-8 encoder (Buffer.from) would write.
      out += encodeBmp(0xfffd);
    } else {
      out += encodeBmp(c);
    }
  }
  return out;
}

function encodeBmp(c: number): string {
  return ENCODED[0xe0 | (c >> 12)]! + ENCODED[0x80 | ((c >> 6) & 63)] + ENCODED[0x80 | (c & 63)];
}

/**
 * Decoded text of a query component (`+` → space, `%XX` → UTF-8), for reading presign parameters
 * and hoisted `x-amz-*` values. Invalid escapes are kept literally.
 */
export function decodeQueryComponent(raw: string): string {
  let s = raw;
  if (s.indexOf('+') !== -1) s = s.replaceAll('+', ' ');
  if (s.indexOf('%') === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return decodeLenient(s);
  }
}

function decodeLenient(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25 && i + 2 < s.length) {
      const hi = hexValue(s.charCodeAt(i + 1));
      const lo = hexValue(s.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        bytes.push((hi << 4) | lo);
        i += 2;
        continue;
      }
    }
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) bytes.push(b);
  }
  return Buffer.from(bytes).toString('utf8');
}
