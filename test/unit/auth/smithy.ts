// Independent reference signer: @smithy/signature-v4 (what aws-sdk-js v3 uses), driven the way the
// S3 client drives it (uriEscapePath=false, the path already encoded per segment).

import { SignatureV4 } from '@smithy/signature-v4';
import { HttpRequest, buildQueryString, extendedEncodeURIComponent } from '@smithy/core/protocols';
import { joinHeaders, type RequestHead } from '../../../src/http/request-head.js';
import { DOC_AK, DOC_SECRET, NodeSha256 } from './helpers.js';

export interface SignInput {
  method: string;
  /** already-encoded path, e.g. from s3Path() */
  path: string;
  query?: Record<string, string | string[] | null>;
  headers?: Record<string, string>;
  host?: string;
  body?: string | Uint8Array;
  date?: Date;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** `/<bucket>/<key>` the way the S3 client encodes keys (each segment, `/` kept). */
export function s3Path(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(extendedEncodeURIComponent).join('/')}`;
}

function signer(input: SignInput): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId: input.accessKeyId ?? DOC_AK, secretAccessKey: input.secretAccessKey ?? DOC_SECRET },
    region: input.region ?? 'us-east-1',
    service: 's3',
    sha256: NodeSha256 as never,
    uriEscapePath: false,
  });
}

function request(input: SignInput): HttpRequest {
  const host = input.host ?? 'localhost:9000';
  return new HttpRequest({
    method: input.method,
    protocol: 'http:',
    hostname: host.split(':')[0]!,
    path: input.path,
    query: (input.query ?? {}) as Record<string, string>,
    headers: { host, ...(input.headers ?? {}) },
    body: input.body,
  });
}

export function toHead(req: { method: string; path: string; query?: Record<string, unknown>; headers: Record<string, string> }): RequestHead {
  const list = Object.entries(req.headers).map(([n, v]) => [n.toLowerCase(), String(v)] as const);
  return {
    method: req.method,
    rawPath: req.path,
    rawQuery: buildQueryString((req.query ?? {}) as Record<string, string>),
    headerList: list,
    headers: joinHeaders(list),
  
  };
}

export async function smithySign(input: SignInput): Promise<RequestHead> {
  const signed = (await signer(input).sign(request(input), { signingDate: input.date ?? new Date() })) as HttpRequest;
  return toHead(signed);
}

/** Presign like @aws-sdk/s3-request-presigner: x-amz-content-sha256 = UNSIGNED-PAYLOAD, x-amz-* hoisted. */
export async function smithyPresign(
  input: SignInput & { expiresIn?: number; keepHeaders?: string[] },
): Promise<RequestHead> {
  const req = request(input);
  req.headers['X-Amz-Content-Sha256'] = 'UNSIGNED-PAYLOAD';
  const presigned = (await signer(input).presign(req, {
    signingDate: input.date ?? new Date(),
    expiresIn: input.expiresIn ?? 900,
    unsignableHeaders: new Set(['content-type']),
    unhoistableHeaders: new Set(input.keepHeaders ?? []),
  })) as HttpRequest;
  return toHead(presigned);
}
