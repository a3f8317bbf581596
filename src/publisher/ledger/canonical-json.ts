// The canonical serialization that transaction digests are computed over: JSON with object keys
// sorted by UTF-16 code units, no whitespace, integers only (amounts travel as decimal strings),
// no undefined. One value has exactly one serialization, so digests are reproducible.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError(`canonical JSON holds safe integers only, got ${value}`);
      return String(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      const entries = Object.keys(value)
        .sort()
        .map((k) => {
          const v = (value as Record<string, unknown>)[k];
          if (v === undefined) throw new TypeError(`canonical JSON has no undefined (key ${k})`);
          return `${JSON.stringify(k)}:${canonicalJson(v)}`;
        });
      return `{${entries.join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}
