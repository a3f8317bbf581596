// S3's query string (s3.md §1.2): parameters decoded, an undecodable one an InvalidURI.

import { percentDecode } from '../http/query.js';
import { S3Error } from './errors/errors.js';

/** Decoded query parameters; a name without '=' has the value ''. The first occurrence of a name wins. */
export function parseQuery(rawQuery: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!rawQuery) return out;
  for (const item of rawQuery.split('&')) {
    if (!item) continue;
    const eq = item.indexOf('=');
    const rawName = eq < 0 ? item : item.slice(0, eq);
    const rawValue = eq < 0 ? '' : item.slice(eq + 1);
    const name = percentDecode(rawName, true);
    const value = percentDecode(rawValue, true);
    if (name === undefined || value === undefined) throw new S3Error('InvalidURI');
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}
