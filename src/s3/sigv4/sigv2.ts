// Signature Version 2 (AWS *Signing and authenticating REST requests*, the legacy S3 scheme still
// accepted for old clients): `Authorization: AWS <key>:<signature>` and presigned
// `?AWSAccessKeyId=…&Expires=…&Signature=…`, HMAC-SHA1 over the V2 string to sign.

import { createHmac } from 'node:crypto';
import type { RequestHead } from '../../http/request-head.js';
import { S3Error } from '../errors/errors.js';
import { findQueryItem, type QueryItem } from './canonical-request.js';
import { MSG_EXPIRED, MSG_NO_VALID_DATE, Q_V2_ACCESS_KEY, Q_V2_SIGNATURE } from './constants.js';
import { lookupAccessKey } from './keys.js';
import { parseHttpDate, toIsoSeconds } from './request-time.js';
import { signaturesEqual } from './signing-key.js';
import { decodeQueryComponent } from './uri-encode.js';
import type { AuthContext, SignedAuth } from './types.js';

export const Q_V2_EXPIRES = 'Expires';
export const SIGNATURE_VERSION_2 = 'AWS';
const MSG_V2_QUERY_PARAMS = 'Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters';
const MSG_V2_HEADER_FORMAT = 'AWS authorization header is invalid.  Expected AwsAccessKeyId:signature';

/** Sub-resources and response overrides that are part of the V2 CanonicalizedResource (AWS list, as botocore and s3cmd sign it). */
const SIGNED_SUBRESOURCES = new Set([
  'accelerate', 'acl', 'analytics', 'cors', 'delete', 'encryption', 'inventory', 'legal-hold', 'lifecycle', 'location',
  'logging', 'metrics', 'notification', 'object-lock', 'ownershipControls', 'partNumber', 'policy', 'policyStatus',
  'publicAccessBlock', 'replication', 'requestPayment', 'response-cache-control', 'response-content-disposition',
  'response-content-encoding', 'response-content-language', 'response-content-type', 'response-expires', 'restore',
  'retention', 'select', 'select-type', 'tagging', 'torrent', 'uploadId', 'uploads', 'versionId', 'versioning',
  'versions', 'website',
]);

function canonicalizedAmzHeaders(head: RequestHead): string {
  const amz = new Map<string, string[]>();
  for (const [name, value] of head.headerList) {
    if (!name.startsWith('x-amz-')) continue;
    const list = amz.get(name) ?? [];
    list.push(value.trim().replace(/\s+/g, ' '));
    amz.set(name, list);
  }
  let out = '';
  for (const name of [...amz.keys()].sort()) out += `${name}:${amz.get(name)!.join(',')}\n`;
  return out;
}

function canonicalizedResource(head: RequestHead, query: readonly QueryItem[], virtualBucket: string | undefined): string {
  let resource = (virtualBucket !== undefined ? `/${virtualBucket}` : '') + (head.rawPath || '/');
  // a bucket is signed as "/bucket/" also when addressed path-style as "/bucket" (AWS examples; botocore does so)
  if (virtualBucket === undefined && resource.indexOf('/', 1) === -1 && resource.length > 1) resource += '/';
  const subs = query
    .filter((q) => SIGNED_SUBRESOURCES.has(q.name))
    .map((q) => ({ name: q.name, value: q.rawValue === '' ? undefined : decodeQueryComponent(q.rawValue) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (subs.length) resource += '?' + subs.map((s) => (s.value === undefined ? s.name : `${s.name}=${s.value}`)).join('&');
  return resource;
}

/** The V2 string to sign; `dateLine` is the Date header (or '' with x-amz-date), or Expires for presigned URLs. */
export function stringToSignV2(head: RequestHead, query: readonly QueryItem[], dateLine: string, virtualBucket?: string): string {
  const h = head.headers;
  return (
    `${head.method}\n${h['content-md5'] ?? ''}\n${h['content-type'] ?? ''}\n${dateLine}\n` +
    canonicalizedAmzHeaders(head) +
    canonicalizedResource(head, query, virtualBucket)
  );
}

function verify(accessKeyId: string, secret: string, toSign: string, provided: string): void {
  const expected = createHmac('sha1', secret).update(toSign, 'utf8').digest('base64');
  if (!signaturesEqual(expected, provided)) {
    throw new S3Error('SignatureDoesNotMatch', {
      AWSAccessKeyId: accessKeyId,
      StringToSign: toSign,
      SignatureProvided: provided,
      StringToSignBytes: Buffer.from(toSign).toString('hex').replace(/(..)(?!$)/g, '$1 '),
    });
  }
}

function signedV2(accessKeyId: string, accountId: string | undefined, presigned: boolean): SignedAuth {
  // V2 never signs the payload: bodies are taken as sent (Content-MD5, when present, is checked by the operation)
  return {
    kind: 'signed',
    signatureVersion: SIGNATURE_VERSION_2,
    accessKeyId,
    ...(accountId !== undefined ? { accountId } : {}),
    presigned,
    payload: { kind: 'unsigned' },
    signingKey: Buffer.alloc(0),
    scope: '',
    requestTime: '',
    seedSignature: '',
    hoistedHeaders: {},
  };
}

/** `Authorization: AWS <key>:<signature>`; `credentials` is what follows the scheme. */
export function authenticateHeaderV2(head: RequestHead, credentials: string, query: readonly QueryItem[], ctx: AuthContext): SignedAuth {
  const colon = credentials.lastIndexOf(':');
  if (colon <= 0 || colon === credentials.length - 1) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'Authorization', ArgumentValue: `AWS ${credentials}` }, { message: MSG_V2_HEADER_FORMAT });
  }
  const accessKeyId = credentials.slice(0, colon);
  const provided = credentials.slice(colon + 1);
  const key = lookupAccessKey(ctx, accessKeyId);
  const amzDate = head.headers['x-amz-date'];
  const sent = amzDate ?? head.headers['date'];
  const ms = sent === undefined ? NaN : parseHttpDate(sent);
  if (Number.isNaN(ms)) throw new S3Error('AccessDenied', {}, { message: MSG_NO_VALID_DATE });
  if (Math.abs(ctx.now - ms) > ctx.clockSkewMs) {
    throw new S3Error('RequestTimeTooSkewed', { RequestTime: sent, ServerTime: toIsoSeconds(ctx.now), MaxAllowedSkewMilliseconds: ctx.clockSkewMs });
  }
  // with x-amz-date the Date line is empty: the date is signed among the x-amz-* headers
  verify(accessKeyId, key.secretKey, stringToSignV2(head, query, amzDate !== undefined ? '' : sent!, ctx.virtualBucket), provided);
  return signedV2(accessKeyId, key.accountId, false);
}

/** `?AWSAccessKeyId=…&Expires=…&Signature=…` */
export function authenticatePresignedV2(head: RequestHead, query: readonly QueryItem[], ctx: AuthContext): SignedAuth {
  const ak = findQueryItem(query, Q_V2_ACCESS_KEY);
  const sig = findQueryItem(query, Q_V2_SIGNATURE);
  const exp = findQueryItem(query, Q_V2_EXPIRES);
  if (!ak || !sig || !exp || !ak.rawValue || !sig.rawValue) throw new S3Error('AccessDenied', {}, { message: MSG_V2_QUERY_PARAMS });
  const expires = decodeQueryComponent(exp.rawValue);
  if (!/^\d+$/.test(expires)) throw new S3Error('AccessDenied', {}, { message: MSG_V2_QUERY_PARAMS });
  const accessKeyId = decodeQueryComponent(ak.rawValue);
  const key = lookupAccessKey(ctx, accessKeyId);
  const expiresMs = Number(expires) * 1000;
  if (ctx.now > expiresMs) {
    throw new S3Error('AccessDenied', { Expires: toIsoSeconds(expiresMs), ServerTime: toIsoSeconds(ctx.now) }, { message: MSG_EXPIRED });
  }
  verify(accessKeyId, key.secretKey, stringToSignV2(head, query, expires, ctx.virtualBucket), decodeQueryComponent(sig.rawValue));
  return signedV2(accessKeyId, key.accountId, true);
}
