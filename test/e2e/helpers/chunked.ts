// Builds and sends aws-chunked PutObject requests (s3.md §2.8) in all three streaming modes, with
// knobs to break exactly one thing at a time.

import { rawRequest, type RawResponse } from './raw-http.js';
import type { TuskServer } from './server.js';
import {
  encodeAwsChunked,
  objectPath,
  signHeaders,
  STREAMING_SIGNED,
  STREAMING_SIGNED_TRAILER,
  STREAMING_UNSIGNED_TRAILER,
  type ChunkedInput,
  type HeaderList,
} from './sigv4.js';

export type ChunkedMode = typeof STREAMING_SIGNED | typeof STREAMING_SIGNED_TRAILER | typeof STREAMING_UNSIGNED_TRAILER;

export interface ChunkedPut {
  bucket: string;
  key: string;
  /** raw query string (UploadPart: `partNumber=1&uploadId=…`) */
  query?: string;
  data: Buffer;
  mode: ChunkedMode;
  chunkSize?: number;
  /** trailer actually sent (name:value) */
  trailer?: { name: string; value: string };
  /** x-amz-trailer header value; default: the trailer's name */
  declaredTrailer?: string | null;
  /** x-amz-decoded-content-length; default data.length; null = omit */
  decodedLength?: number | null;
  /** Content-Encoding; default aws-chunked; null = omit */
  contentEncoding?: string | null;
  extraHeaders?: HeaderList;
  badChunkSignatureAt?: number;
  badTrailerSignature?: boolean;
  /** signed-trailer mode but no x-amz-trailer-signature line */
  omitTrailerSignature?: boolean;
  /** send the encoded body with Transfer-Encoding: chunked instead of Content-Length */
  httpChunked?: boolean;
  /** replace the encoded body (framing tests) */
  rawBody?: Buffer;
  /** send the encoded body without its last bytes (a body cut before its final CRLF) */
  dropLastBytes?: number;
}

function httpChunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let off = 0; off < body.length; off += 4096) {
    const piece = body.subarray(off, off + 4096);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

export async function putAwsChunked(server: TuskServer, p: ChunkedPut): Promise<RawResponse> {
  const signedChunks = p.mode !== STREAMING_UNSIGNED_TRAILER;
  const encode = (signing: ChunkedInput['signing']) => {
    const body = p.rawBody ?? encodeAwsChunked({
      data: p.data,
      chunkSize: p.chunkSize ?? 8192,
      signing: signedChunks ? signing : undefined,
      trailer: p.trailer,
      signTrailer: p.mode === STREAMING_SIGNED_TRAILER && !p.omitTrailerSignature,
      badChunkSignatureAt: p.badChunkSignatureAt,
      badTrailerSignature: p.badTrailerSignature,
    });
    return body.subarray(0, body.length - (p.dropLastBytes ?? 0));
  };
  // signatures have a fixed width, so a dummy encoding gives the exact encoded length
  const dummy = { seedSignature: '0'.repeat(64), key: Buffer.alloc(32), amzDate: '20000101T000000Z', scope: 'x' };
  const encodedLength = encode(dummy).length;

  const path = objectPath(p.bucket, p.key);
  const headers: HeaderList = [['host', `127.0.0.1:${server.port}`]];
  if (p.httpChunked) headers.push(['transfer-encoding', 'chunked']);
  else headers.push(['content-length', String(encodedLength)]);
  if (p.contentEncoding !== null) headers.push(['content-encoding', p.contentEncoding ?? 'aws-chunked']);
  if (p.decodedLength !== null) headers.push(['x-amz-decoded-content-length', String(p.decodedLength ?? p.data.length)]);
  const declared = p.declaredTrailer === undefined ? p.trailer?.name : p.declaredTrailer;
  if (declared) headers.push(['x-amz-trailer', declared]);
  headers.push(...(p.extraHeaders ?? []));
  const signed = signHeaders({ method: 'PUT', path, query: p.query, headers, credentials: server.root, region: server.region, payloadHash: p.mode });
  const body = encode({ seedSignature: signed.signature, key: signed.key, amzDate: signed.amzDate, scope: signed.scope });
  return rawRequest({
    port: server.port,
    method: 'PUT',
    target: p.query ? `${path}?${p.query}` : path,
    headers: signed.headers,
    body: p.httpChunked ? httpChunk(body) : body,
  });
}
