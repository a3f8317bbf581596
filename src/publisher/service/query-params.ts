// Query strings as Walrus's serde parses them: decoded names and values, no duplicates, booleans
// spelled exactly `true` or `false`.

import { percentDecode } from '../../http/query.js';
import { PublisherError } from './errors.js';

/** serde booleans: exactly `true` or `false`. */
export function parseBool(params: Map<string, string>, name: string): boolean | undefined {
  const value = params.get(name);
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new PublisherError('MALFORMED_REQUEST', `${name} must be true or false, got '${value}'`, { parameter: name });
}

/** Decoded name → value; a repeated name is an error (serde rejects duplicate fields). */
export function splitQuery(rawQuery: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!rawQuery) return out;
  for (const item of rawQuery.split('&')) {
    if (!item) continue;
    const eq = item.indexOf('=');
    const name = percentDecode(eq < 0 ? item : item.slice(0, eq), true);
    const value = percentDecode(eq < 0 ? '' : item.slice(eq + 1), true);
    if (name === undefined || value === undefined) throw new PublisherError('MALFORMED_REQUEST', 'invalid percent-encoding in the query string');
    if (out.has(name)) throw new PublisherError('MALFORMED_REQUEST', `duplicate query parameter '${name}'`, { parameter: name });
    out.set(name, value);
  }
  return out;
}

/** serde's `deny_unknown_fields`, which every Walrus daemon query type declares (walrus.md §10.2, §11). */
export function refuseUnknown(params: Map<string, string>, known: ReadonlySet<string>): void {
  for (const name of params.keys()) {
    if (!known.has(name)) throw new PublisherError('MALFORMED_REQUEST', `unknown query parameter '${name}'`, { parameter: name });
  }
}
