// S3's query string (s3.md §1.2): parameters decoded, an undecodable one an InvalidURI.

import { percentDecode } from '../http/query.js';
import { S3Error } from './errors/errors.js';

/** One `name=value` item decoded; a name without '=' has the value ''. */
function decodeItem(item: string): [string, string] {
  const eq = item.indexOf('=');
  const name = percentDecode(eq < 0 ? item : item.slice(0, eq), true);
  const value = percentDecode(eq < 0 ? '' : item.slice(eq + 1), true);
  if (name === undefined || value === undefined) throw new S3Error('InvalidURI');
  return [name, value];
}

/** Decoded query parameters; a name without '=' has the value ''. The first occurrence of a name wins. */
export function parseQuery(rawQuery: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!rawQuery) return out;
  for (const item of rawQuery.split('&')) {
    if (!item) continue;
    const [name, value] = decodeItem(item);
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}

/** Every value of the parameter `name`, in order (a repeated parameter: MinIO's `events`). */
export function queryValues(rawQuery: string, name: string): string[] {
  const out: string[] = [];
  for (const item of rawQuery ? rawQuery.split('&') : []) {
    if (!item) continue;
    const [n, value] = decodeItem(item);
    if (n === name) out.push(value);
  }
  return out;
}
