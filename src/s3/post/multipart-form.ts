// A streaming reader of the multipart/form-data body of a browser POST upload (RFC 7578; AWS
// *Browser-based uploads using POST*). Fields before the file are collected (bounded); the file
// part is handed on as a stream of exactly known length, never held whole.
//
// Hand-written rather than a parser library: the store reserves a body's extent up front, so the
// file's exact size is needed before its first byte, and that is the request length minus the
// offset where the file data starts minus the closing delimiter — offsets a library does not expose.
// So the file must be the last part (S3 ignores anything after it) and the body must end with the
// closing delimiter and CRLF, as browsers, curl and the SDK-style form encoders send it.

import { S3Error } from '../errors/errors.js';

/** S3's limit on the form fields before the file (MaxPostPreDataLengthExceededError). */
export const MAX_PRE_DATA_BYTES = 20 * 1024;
const MAX_PART_HEADER_BYTES = 8 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

export interface FormFile {
  /** the field name of the file part: `file`, in any case */
  field: string;
  filename: string;
  contentType?: string;
  /** exact data length */
  size: number;
  /** data chunks in order; null at the end, after the closing delimiter was checked */
  next(): Promise<Buffer | null>;
}

export interface FormHead {
  /** lower-cased field name → value (the first of repeated names) */
  fields: Map<string, string>;
  file?: FormFile;
}

function malformed(): never {
  throw new S3Error('MalformedPOSTRequest');
}

/** The boundary of a `multipart/form-data` Content-Type, or undefined for another type. */
export function formBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  if (!b || b.length > 70) malformed();
  return b;
}

interface Disposition {
  name: string;
  filename?: string;
}

function parsePartHeaders(raw: string): { disposition: Disposition; contentType?: string } {
  let disposition: Disposition | undefined;
  let contentType: string | undefined;
  for (const line of raw.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) malformed();
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-type') contentType = value;
    if (name !== 'content-disposition') continue;
    if (!/^form-data\s*(;|$)/i.test(value)) malformed();
    const params = new Map<string, string>();
    // browsers percent-encode '"', CR and LF in names and filenames and leave backslashes as they are (HTML
    // "multipart/form-data encoding algorithm"), so a Windows path arrives verbatim
    for (const m of value.matchAll(/;\s*([A-Za-z*]+)\s*=\s*(?:"([^"]*)"|([^;\s]*))/g)) {
      const v = m[2] !== undefined ? m[2].replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n') : m[3]!;
      params.set(m[1]!.toLowerCase(), v);
    }
    const fieldName = params.get('name');
    if (fieldName === undefined) malformed();
    disposition = { name: fieldName, ...(params.has('filename') ? { filename: params.get('filename')! } : {}) };
  }
  if (!disposition) malformed();
  return { disposition, ...(contentType !== undefined ? { contentType } : {}) };
}

/**
 * Reads the fields up to the file part. `totalLength` is the request's Content-Length; `next`
 * yields the raw body chunks.
 */
export async function readFormHead(boundary: string, totalLength: number, next: () => Promise<Buffer | null>): Promise<FormHead> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const closing = Buffer.from(`\r\n--${boundary}--\r\n`);
  let buf: Buffer = Buffer.alloc(0);
  /** body bytes before `buf` */
  let consumed = 0;
  let ended = false;

  async function more(): Promise<void> {
    if (ended) malformed();
    const chunk = await next();
    if (chunk === null) {
      ended = true;
      malformed();
    }
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
  }
  function take(n: number): Buffer {
    const out = buf.subarray(0, n);
    buf = buf.subarray(n);
    consumed += n;
    return out;
  }
  /** Index of `needle` in buf, reading more as needed, giving up past `limit` bytes. */
  async function find(needle: Buffer, limit: number): Promise<number> {
    for (;;) {
      const i = buf.indexOf(needle);
      if (i >= 0) return i;
      if (buf.length > limit + needle.length) throw new S3Error('MaxPostPreDataLengthExceededError');
      await more();
    }
  }

  // the body starts with "--boundary" (after an optional preamble): seed a CRLF, not counted, so
  // that the first delimiter looks like every other one
  buf = Buffer.from(CRLF);
  consumed = -CRLF.length;
  take(await find(delimiter, MAX_PRE_DATA_BYTES) + delimiter.length);
  const fields = new Map<string, string>();
  let preData = 0;
  for (;;) {
    while (buf.length < 2) await more();
    const after = take(2).toString('latin1');
    if (after === '--') return { fields };
    if (after !== '\r\n') malformed();
    const headerEnd = await find(HEADER_END, MAX_PART_HEADER_BYTES);
    const { disposition, contentType } = parsePartHeaders(take(headerEnd).toString('utf8'));
    take(HEADER_END.length);
    // The upload is the part named `file`, as S3 reads forms; other parts are fields even when they
    // carry a filename (Python's requests gives every part passed as `files=` one).
    if (disposition.name.toLowerCase() === 'file') {
      const size = totalLength - consumed - closing.length;
      if (size < 0) malformed();
      return { fields, file: fileStream(disposition, contentType, size) };
    }
    const end = await find(delimiter, MAX_PRE_DATA_BYTES - preData);
    preData += end;
    if (preData > MAX_PRE_DATA_BYTES) throw new S3Error('MaxPostPreDataLengthExceededError');
    const value = take(end).toString('utf8');
    take(delimiter.length);
    const name = disposition.name.toLowerCase();
    if (!fields.has(name)) fields.set(name, value);
  }

  function fileStream(d: Disposition, contentType: string | undefined, size: number): FormFile {
    let left = size;
    let done = false;
    return {
      field: d.name,
      filename: d.filename ?? '',
      ...(contentType !== undefined ? { contentType } : {}),
      size,
      async next() {
        if (done) return null;
        if (left > 0) {
          if (buf.length === 0) await more();
          const n = Math.min(left, buf.length);
          left -= n;
          // a copy: `buf` may be a view of a chunk the transport reuses
          return Buffer.from(take(n));
        }
        // the file must end exactly at the closing delimiter
        while (buf.length < closing.length) await more();
        if (!buf.subarray(0, closing.length).equals(closing) || buf.length > closing.length) malformed();
        const rest = await next();
        if (rest !== null && rest.length > 0) malformed();
        done = true;
        return null;
      },
    };
  }
}
