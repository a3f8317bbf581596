// PostObject: browser uploads with an HTML form (AWS *Browser-based uploads using POST*):
// multipart/form-data read as a stream, the signed policy checked, the signer authorized by the
// one authorize() once the key is known, and the file streamed into the store through
// PutObject's write path.

import { S3Error } from '../errors/errors.js';
import { authorizeRequest } from '../authz/request.js';
import { authContextOf, bucketOf, type S3Context } from '../context.js';
import { checkContentLength, checkPostPolicy, parsePostPolicy } from '../post/post-policy.js';
import { formBoundary, MAX_PRE_DATA_BYTES, readFormHead } from '../post/multipart-form.js';
import { formSigner } from '../post/form-auth.js';
import { openRequestBody, type RequestBody } from '../request-body.js';
import type { S3Bucket } from '../object-attrs.js';
import { objectLocation, send, sendXml } from '../respond.js';
import { MAX_KEY_BYTES } from '../router.js';
import { el, XML_DECL } from '../xml.js';
import { parseTaggingXml } from '../tagging.js';
import { planChecksums } from '../checksums.js';
import { objectAttrsOf } from './object-input.js';
import { MAX_PUT_BYTES, storeObject } from './put-object.js';

/** Form fields stored like PutObject's headers of the same name (`acl` is x-amz-acl, `tagging` the Tagging XML). */
const STORED_FIELDS = ['content-type', 'cache-control', 'content-disposition', 'content-encoding', 'content-language', 'expires', 'x-amz-storage-class', 'x-amz-website-redirect-location'];

function headersOfFields(fields: ReadonlyMap<string, string>): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [name, value] of fields) {
    if (STORED_FIELDS.includes(name) || name.startsWith('x-amz-meta-')) h[name] = value;
  }
  if (fields.has('acl')) h['x-amz-acl'] = fields.get('acl')!;
  const tagging = fields.get('tagging');
  if (tagging !== undefined) {
    h['x-amz-tagging'] = parseTaggingXml(Buffer.from(tagging)).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  }
  return h;
}

/**
 * What of the form acts as the request's own x-amz-* headers (policy conditions, encryption,
 * checksums): the x-amz fields stored with the object, and encryption (SSE-S3, SSE-C) and checksums.
 */
function requestHeaderFields(fields: ReadonlyMap<string, string>, stored: Readonly<Record<string, string>>): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [name, value] of Object.entries(stored)) if (name.startsWith('x-amz-') && !name.startsWith('x-amz-meta-')) h[name] = value;
  for (const [name, value] of fields) {
    if (name.startsWith('x-amz-server-side-encryption') || name.startsWith('x-amz-checksum-')) h[name] = value;
  }
  return h;
}

function keyOf(fields: ReadonlyMap<string, string>, filename: string): string {
  const raw = fields.get('key');
  if (raw === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'key' }, {
      message: "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.",
    });
  }
  // ${filename}: the base name the browser gave the file (AWS *POST Object*, form fields)
  const key = raw.replaceAll('${filename}', filename.replace(/^.*[\\/]/, ''));
  if (key === '') throw new S3Error('InvalidArgument', { ArgumentName: 'key' }, { message: 'User key must have a length greater than 0.' });
  const size = Buffer.byteLength(key);
  if (size > MAX_KEY_BYTES) throw new S3Error('KeyTooLongError', { Size: size, MaxSizeAllowed: MAX_KEY_BYTES });
  return key;
}

export async function handlePostObject(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const boundary = formBoundary(ctx.headers['content-type']);
  if (boundary === undefined) {
    throw new S3Error('PreconditionFailed', { Condition: 'Bucket POST must be of the enclosure-type multipart/form-data' });
  }
  const body = openRequestBody(ctx, MAX_PUT_BYTES + MAX_PRE_DATA_BYTES + 64 * 1024);
  try {
    await uploadForm(ctx, bucket, boundary, body);
  } catch (e) {
    if (e instanceof S3Error) await drainRest(body);
    throw e;
  }
}

/** A refused form's remaining bytes are read (when few) so that a browser sees the answer instead of a reset. */
const DRAIN_LIMIT = 1 << 20;
async function drainRest(body: RequestBody): Promise<void> {
  let left = DRAIN_LIMIT;
  try {
    for (let chunk = await body.next(); chunk && left > 0; chunk = await body.next()) left -= chunk.length;
  } catch {
    // the answer is the first error; a short or broken body only means the connection closes
  }
}

async function uploadForm(ctx: S3Context, bucket: S3Bucket, boundary: string, body: RequestBody): Promise<void> {
  const form = await readFormHead(boundary, body.length, () => body.next());
  const { fields, file } = form;
  const signer = formSigner(fields, authContextOf(ctx.services, ctx.resource));
  if (!file) throw new S3Error('IncorrectNumberOfFilesInPostRequest');
  const key = keyOf(fields, file.filename);
  const policyText = fields.get('policy');
  const policy = policyText === undefined ? undefined : parsePostPolicy(policyText);
  // conditions on $key see the key with ${filename} filled in
  if (policy) checkPostPolicy(policy, new Map(fields).set('key', key), bucket.name, Date.now());

  const h = headersOfFields(fields);
  const asHeaders = requestHeaderFields(fields, h);
  ctx.headers = { ...ctx.headers, ...asHeaders };
  // the form's signer is the principal; authorization waited for the key (OPERATION_ACCESS.PostObject)
  ctx.principal = signer === undefined ? { kind: 'anonymous' } : { kind: 'key', key: ctx.services.accounts.lookup(signer)! };
  ctx.resource = { ...ctx.resource, key };
  ctx.verdict = authorizeRequest(ctx, bucket);

  if (policy) checkContentLength(policy, file.size);
  if (file.size > MAX_PUT_BYTES) throw new S3Error('EntityTooLarge', { ProposedSize: file.size, MaxSizeAllowed: MAX_PUT_BYTES });
  const attrs = objectAttrsOf(ctx, bucket, h, h['content-encoding']);
  const fileBody = { length: file.size, next: () => file.next(), finish: () => ({}) };
  const { record } = await storeObject(ctx, bucket, key, fileBody, attrs, planChecksums(asHeaders, undefined));

  const etag = `"${record.etag}"`;
  const location = objectLocation(ctx, bucket.name, key);
  const redirect = fields.get('success_action_redirect') ?? fields.get('redirect');
  if (redirect !== undefined && /^https?:\/\//i.test(redirect)) {
    const url = new URL(redirect);
    url.searchParams.set('bucket', bucket.name);
    url.searchParams.set('key', key);
    url.searchParams.set('etag', etag);
    return send(ctx, 303, [['Location', url.toString()], ['ETag', etag]]);
  }
  const status = fields.get('success_action_status');
  if (status === '201') {
    // as AWS answers it: no namespace on this root
    const xml = `${XML_DECL}<PostResponse>${el('Location', location) + el('Bucket', bucket.name) + el('Key', key) + el('ETag', etag)}</PostResponse>`;
    return sendXml(ctx, xml, [['ETag', etag], ['Location', location]], 201);
  }
  // 204 unless 200 is asked for; anything else is ignored (AWS *POST Object*, success_action_status)
  send(ctx, status === '200' ? 200 : 204, [['ETag', etag], ['Location', location]]);
}
