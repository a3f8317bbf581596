// Browser-style POST upload forms signed with SigV4 (AWS *Browser-based uploads using POST*).

import { createHmac } from 'node:crypto';
import type { Credentials, TuskServer } from './server.js';
import { amzDate, signingKey } from './sigv4.js';

export interface SignedForm {
  /** form fields in order, the file excluded */
  fields: Array<[string, string]>;
}

/** Fields x-amz-algorithm/credential/date, policy and x-amz-signature for `conditions` (+ the signing fields). */
export function signPostPolicy(
  server: TuskServer,
  conditions: unknown[],
  fields: Array<[string, string]>,
  options: { credentials?: Credentials; expiration?: Date; tamper?: boolean } = {},
): Array<[string, string]> {
  const creds = options.credentials ?? server.root;
  const now = new Date();
  const date = amzDate(now);
  const credential = `${creds.accessKeyId}/${date.slice(0, 8)}/${server.region}/s3/aws4_request`;
  const signing: Array<[string, string]> = [
    ['x-amz-algorithm', 'AWS4-HMAC-SHA256'],
    ['x-amz-credential', credential],
    ['x-amz-date', date],
  ];
  const policy = Buffer.from(JSON.stringify({
    expiration: (options.expiration ?? new Date(now.getTime() + 600_000)).toISOString(),
    conditions: [...conditions, ...signing.map(([k, v]) => ({ [k]: v }))],
  })).toString('base64');
  let signature = createHmac('sha256', signingKey(creds.secretAccessKey, date.slice(0, 8), server.region)).update(policy).digest('hex');
  if (options.tamper) signature = signature.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  return [...fields, ...signing, ['policy', policy], ['x-amz-signature', signature]];
}

/** POSTs a multipart form (fields, then the file) with fetch, which sends an exact Content-Length. */
export async function postForm(
  server: TuskServer,
  bucket: string,
  fields: Array<[string, string]>,
  file?: { name: string; body: Buffer; type?: string },
): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  if (file) form.append('file', new Blob([file.body], { type: file.type ?? 'application/octet-stream' }), file.name);
  return fetch(`${server.endpoint}/${bucket}`, { method: 'POST', body: form, redirect: 'manual' });
}

/**
 * A multipart/form-data body as browsers encode it (fields, then the file, closing delimiter + CRLF);
 * `filenames`: every field part carries `filename="<its name>"` too, as Python requests' `files=` sends them.
 */
export function formBody(fields: Array<[string, string]>, file: { name: string; body: Buffer }, { filenames = false } = {}): { body: Buffer; contentType: string } {
  const boundary = `----tusk${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of fields) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"${filenames ? `; filename="${k}"` : ''}\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
  parts.push(file.body, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
