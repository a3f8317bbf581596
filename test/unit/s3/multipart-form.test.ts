// The streaming multipart/form-data reader of POST uploads: every chunking of the body gives the
// same fields and file bytes; malformed bodies are MalformedPOSTRequest.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formBoundary, readFormHead } from '../../../src/s3/post/multipart-form.js';
import { S3Error } from '../../../src/s3/errors/errors.js';

const BOUNDARY = '----WebKitFormBoundaryAbC123';

function body(fields: Array<[string, string]>, file: Buffer, filename = 'a "b".bin'): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of fields) parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename.replace(/"/g, '%22')}"\r\nContent-Type: image/png\r\n\r\n`));
  return Buffer.concat([...parts, file, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

function chunked(data: Buffer, size: number): () => Promise<Buffer | null> {
  let at = 0;
  return async () => {
    if (at >= data.length) return null;
    const c = data.subarray(at, at + size);
    at += size;
    return Buffer.from(c);
  };
}

async function readAll(data: Buffer, size: number) {
  const head = await readFormHead(BOUNDARY, data.length, chunked(data, size));
  const parts: Buffer[] = [];
  if (head.file) for (let c = await head.file.next(); c; c = await head.file.next()) parts.push(c);
  return { head, file: Buffer.concat(parts) };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof S3Error) return e.code;
    throw e;
  }
  return 'ok';
}

describe('readFormHead', () => {
  // the file holds the boundary text and CRLFs: its length, not a search, ends it
  const file = Buffer.concat([randomBytes(3000), Buffer.from(`\r\n--${BOUNDARY}\r\n`), randomBytes(100)]);
  const data = body([['key', 'uploads/${filename}'], ['X-Amz-Meta-Note', 'a\r\nb'], ['acl', 'private']], file);

  it.each([1, 2, 3, 7, 64, 1000, data.length])('chunks of %i bytes', async (size) => {
    const { head, file: got } = await readAll(data, size);
    expect([...head.fields]).toEqual([['key', 'uploads/${filename}'], ['x-amz-meta-note', 'a\r\nb'], ['acl', 'private']]);
    expect(head.file).toMatchObject({ field: 'file', filename: 'a "b".bin', contentType: 'image/png', size: file.length });
    expect(got.equals(file)).toBe(true);
  });

  it('the upload is the part named file: other parts are fields even with a filename (as Python requests sends them)', async () => {
    const part = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}"\r\n\r\n${value}\r\n`;
    const data = Buffer.from(`${part('key', 'foo.txt')}${part('acl', 'private')}${part('File', 'bar')}--${BOUNDARY}--\r\n`);
    const { head, file: got } = await readAll(data, 7);
    expect([...head.fields]).toEqual([['key', 'foo.txt'], ['acl', 'private']]);
    expect(head.file).toMatchObject({ field: 'File', filename: 'File', size: 3 });
    expect(got.toString()).toBe('bar');
  });

  it('reads the boundary from the Content-Type', () => {
    expect(formBoundary(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(formBoundary('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(formBoundary('application/x-www-form-urlencoded')).toBeUndefined();
  });

  it('no file part: fields only', async () => {
    const data = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="key"\r\n\r\nk\r\n--${BOUNDARY}--\r\n`);
    const head = await readFormHead(BOUNDARY, data.length, chunked(data, 5));
    expect(head.file).toBeUndefined();
    expect(head.fields.get('key')).toBe('k');
  });

  it('MalformedPOSTRequest for a body cut short, trailing bytes after the closing delimiter, or a part without a name', async () => {
    const cut = data.subarray(0, data.length - 5);
    expect(await codeOf(readAll(Buffer.concat([cut]), 64).then(() => undefined))).toBe('MalformedPOSTRequest');
    const extra = Buffer.concat([data, Buffer.from('junk')]);
    expect(await codeOf((async () => {
      const head = await readFormHead(BOUNDARY, extra.length - 4, chunked(extra, 64));
      for (let c = await head.file!.next(); c; c = await head.file!.next());
    })())).toBe('MalformedPOSTRequest');
    const nameless = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nv\r\n--${BOUNDARY}--\r\n`);
    expect(await codeOf(readFormHead(BOUNDARY, nameless.length, chunked(nameless, 8)))).toBe('MalformedPOSTRequest');
  });
});
