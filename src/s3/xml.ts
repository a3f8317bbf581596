// XML response bodies (s3.md §4) and the one error renderer (§1.9). Element order is fixed.

import type { S3Error } from './errors/errors.js';

export const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';
export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/**
 * Escapes text content: the five XML entities, CR as &#xD; (a parser would turn a raw CR into LF)
 * and characters XML 1.0 does not allow as numeric references (s3.md §1.4).
 */
export function escapeXml(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[&<>"'\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff\ud800-\udfff]/.test(s)) return s;
  let out = '';
  // runs of characters that need nothing are copied as slices
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let entity: string;
    switch (c) {
      case 0x26: entity = '&amp;'; break;
      case 0x3c: entity = '&lt;'; break;
      case 0x3e: entity = '&gt;'; break;
      case 0x22: entity = '&quot;'; break;
      case 0x27: entity = '&apos;'; break;
      default:
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
          const d = s.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            i++; // a whole surrogate pair is one character
            continue;
          }
        }
        if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || c === 0xfffe || c === 0xffff || (c >= 0xd800 && c <= 0xdfff)) {
          entity = `&#x${c.toString(16).toUpperCase()};`;
        } else continue;
    }
    out += s.slice(from, i) + entity;
    from = i + 1;
  }
  return out + s.slice(from);
}

/** `<ETag>"etag"</ETag>`, its quotes written as entities, as S3 writes them. */
export function etagEl(etag: string): string {
  return `<ETag>&quot;${escapeXml(etag)}&quot;</ETag>`;
}

/** `<name>text</name>`, escaped. */
export function el(name: string, value: string | number | boolean): string {
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** A root element with the S3 namespace; empty children → self-closing. */
export function doc(root: string, children: string): string {
  return children
    ? `${XML_DECL}<${root} xmlns="${S3_NS}">${children}</${root}>`
    : `${XML_DECL}<${root} xmlns="${S3_NS}"/>`;
}

export function renderError(err: S3Error, requestId: string, hostId: string): string {
  let extras = '';
  for (const [k, v] of Object.entries(err.extras)) if (v !== undefined) extras += el(k, v);
  return (
    `${XML_DECL}<Error>${el('Code', err.code)}${el('Message', err.message)}${extras}` +
    `${el('RequestId', requestId)}${el('HostId', hostId)}</Error>`
  );
}

/** Seconds whose text a date format keeps: the busiest objects' Last-Modified and the current second. */
const SECONDS_KEPT = 4096;

/**
 * A date format of whole seconds that remembers its recent answers: most answers name a second
 * named before (the response's Date, Last-Modified of the objects read most, the objects of a
 * listing, mostly written together), and formatting a Date is ~1 µs.
 */
function secondsCached(format: (d: Date) => string): (ms: number) => string {
  const texts = new Map<number, string>();
  return (ms) => {
    const second = Math.floor(ms / 1000);
    let text = texts.get(second);
    if (text === undefined) {
      if (texts.size >= SECONDS_KEPT) texts.clear();
      text = format(new Date(second * 1000));
      texts.set(second, text);
    }
    return text;
  };
}

/** ISO 8601 UTC with milliseconds, truncated to whole seconds (s3.md §0.5). */
export const isoSeconds = secondsCached((d) => d.toISOString());

/** IMF-fixdate of the whole second. */
export const httpDate = secondsCached((d) => d.toUTCString());

export interface OwnerXml {
  id: string;
  displayName: string;
}

export function ownerXml(owner: OwnerXml, tag = 'Owner'): string {
  return `<${tag}>${el('ID', owner.id)}${el('DisplayName', owner.displayName)}</${tag}>`;
}
