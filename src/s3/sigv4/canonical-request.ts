// The SigV4 canonical request, S3 variant (s3.md §2.3).

import { canonicalEncode, decodeQueryComponent } from './uri-encode.js';

/** One `name=value` item of the raw query string. */
export interface QueryItem {
  /** raw (still percent-encoded) name and value as sent */
  readonly rawName: string;
  readonly rawValue: string;
  /** decoded name (`+` → space), used to find the presign parameters */
  readonly name: string;
}

/** Splits the raw query on `&` (empty items skipped) and each item at its first `=`. */
export function parseQuery(rawQuery: string): QueryItem[] {
  const items: QueryItem[] = [];
  if (rawQuery.length === 0) return items;
  let start = 0;
  while (start <= rawQuery.length) {
    let end = rawQuery.indexOf('&', start);
    if (end === -1) end = rawQuery.length;
    if (end > start) {
      const eq = rawQuery.indexOf('=', start);
      const hasValue = eq !== -1 && eq < end;
      const rawName = rawQuery.slice(start, hasValue ? eq : end);
      const rawValue = hasValue ? rawQuery.slice(eq + 1, end) : '';
      items.push({ rawName, rawValue, name: decodeQueryComponent(rawName) });
    }
    start = end + 1;
  }
  return items;
}

/** First item with this decoded name. */
export function findQueryItem(items: readonly QueryItem[], name: string): QueryItem | undefined {
  for (const item of items) if (item.name === name) return item;
  return undefined;
}

/**
 * CanonicalURI: the raw path split on a literal `/`, each segment decoded and re-encoded once, so a
 * client's `%2F` stays `%2F` and `//`, `.` and `..` are kept (S3 never normalises, s3.md §2.3).
 */
export function canonicalUri(rawPath: string): string {
  if (rawPath.length === 0) return '/';
  let out = '';
  let start = 0;
  for (;;) {
    const slash = rawPath.indexOf('/', start);
    const end = slash === -1 ? rawPath.length : slash;
    if (end > start) out += canonicalEncode(rawPath.slice(start, end), false);
    if (slash === -1) break;
    out += '/';
    start = slash + 1;
  }
  return out;
}

/**
 * CanonicalQueryString: every item decoded (`+` → space) and re-encoded, sorted by encoded name then
 * encoded value (byte order = code-unit order, the encoded text being ASCII); valueless items as
 * `name=`. `omitName` drops the presigned `X-Amz-Signature` (s3.md §2.9).
 */
export function canonicalQueryString(items: readonly QueryItem[], omitName?: string): string {
  if (items.length === 0) return '';
  const pairs: string[][] = [];
  for (const item of items) {
    if (omitName !== undefined && item.name === omitName) continue;
    pairs.push([canonicalEncode(item.rawName, true), canonicalEncode(item.rawValue, true)]);
  }
  if (pairs.length > 1) {
    pairs.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[1]! < b[1]! ? -1 : a[1]! > b[1]! ? 1 : 0));
  }
  let out = '';
  for (let i = 0; i < pairs.length; i++) {
    if (i > 0) out += '&';
    out += `${pairs[i]![0]}=${pairs[i]![1]}`;
  }
  return out;
}

/** Trims spaces/tabs at both ends and collapses inner whitespace runs to one space (AWS SigV4 rule). */
export function normalizeHeaderValue(v: string): string {
  if (v.length === 0) return v;
  const first = v.charCodeAt(0);
  const last = v.charCodeAt(v.length - 1);
  const needsCollapse =
    first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09 || v.includes('  ') || v.includes('\t');
  if (!needsCollapse) return v;
  let out = '';
  let pendingSpace = false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x20 || c === 0x09) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) {
      out += ' ';
      pendingSpace = false;
    }
    out += v[i];
  }
  return out;
}

/**
 * CanonicalHeaders for the names of SignedHeaders, in that order: every occurrence of the header in
 * arrival order, normalised and joined by `,`. Returns the name of a signed header the request
 * lacks instead of text (→ SignatureDoesNotMatch, s3.md §2.3).
 */
export function canonicalHeaders(
  headerList: ReadonlyArray<readonly [string, string]>,
  signedNames: readonly string[],
): { text: string } | { missing: string } {
  const values: (string | undefined)[] = new Array(signedNames.length);
  for (const [name, value] of headerList) {
    const idx = signedNames.indexOf(name);
    if (idx === -1) continue;
    const v = normalizeHeaderValue(value);
    const prev = values[idx];
    values[idx] = prev === undefined ? v : `${prev},${v}`;
  }
  let text = '';
  for (let i = 0; i < signedNames.length; i++) {
    const v = values[i];
    if (v === undefined) return { missing: signedNames[i]! };
    text += `${signedNames[i]}:${v}\n`;
  }
  return { text };
}

export function joinCanonicalRequest(
  method: string,
  uri: string,
  query: string,
  headers: string,
  signedHeaders: string,
  hashedPayload: string,
): string {
  return `${method}\n${uri}\n${query}\n${headers}\n${signedHeaders}\n${hashedPayload}`;
}
