// Request-time formats of SigV4 (s3.md §0.5, §2.5): `x-amz-date` / `X-Amz-Date` in ISO 8601 basic
// form (`20130524T000000Z`), `Date` in IMF-fixdate.

function digits(s: string, from: number, count: number): number {
  let v = 0;
  for (let i = from; i < from + count; i++) {
    const c = s.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Milliseconds since the epoch of a strict `YYYYMMDDTHHMMSSZ`, or NaN. */
export function parseAmzDate(s: string): number {
  if (s.length !== 16 || s.charCodeAt(8) !== 0x54 /* T */ || s.charCodeAt(15) !== 0x5a /* Z */) return NaN;
  const y = digits(s, 0, 4);
  const mo = digits(s, 4, 2);
  const d = digits(s, 6, 2);
  const h = digits(s, 9, 2);
  const mi = digits(s, 11, 2);
  const se = digits(s, 13, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) {
    return NaN;
  }
  const ms = Date.UTC(y, mo - 1, d, h, mi, se);
  // Reject dates that roll over (e.g. 20130231).
  return new Date(ms).getUTCDate() === d ? ms : NaN;
}

/** Milliseconds of an HTTP `Date` header (IMF-fixdate; the obsolete forms Date.parse also reads), or NaN. */
export function parseHttpDate(s: string): number {
  if (s.length === 0 || s.length > 64) return NaN;
  return Date.parse(s);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** `YYYYMMDDTHHMMSSZ` of a time in ms. */
export function toAmzDate(ms: number): string {
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}${pad2(d.getUTCSeconds())}Z`
  );
}

/** ISO 8601 extended form without milliseconds, as S3 prints `ServerTime`/`Expires` in auth errors. */
export function toIsoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
