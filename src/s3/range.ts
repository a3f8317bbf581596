// The Range header of GetObject/HeadObject (s3.md §3.0.6).

import { S3Error } from './errors/errors.js';

export interface ByteRange {
  /** first byte */
  start: number;
  /** last byte, inclusive */
  end: number;
}

/**
 * undefined → serve the whole object (no Range, or a Range S3 ignores: bad syntax, other unit,
 * several ranges). Throws InvalidRange (416) when unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return undefined;
  const [, a, b] = m as unknown as [string, string, string];
  const unsatisfiable = (): never => {
    throw new S3Error('InvalidRange', { RangeRequested: header, ActualObjectSize: size }, {
      headers: { 'Content-Range': `bytes */${size}` },
    });
  };
  if (a === '') {
    if (b === '') return undefined;
    const n = Number(b);
    if (n === 0 || size === 0) return unsatisfiable();
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (b !== '' && Number(b) < start) return undefined;
  if (start >= size) return unsatisfiable();
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  return { start, end };
}
