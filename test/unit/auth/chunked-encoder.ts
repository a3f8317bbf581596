// Test-side aws-chunked encoder (AWS *Signature Calculations … Multiple Chunks* / *… Trailing Headers*),
// written independently of the decoder; pinned by the AWS documentation vectors in aws-chunked.test.ts.

import { createHash, createHmac } from 'node:crypto';

const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface SignCtx {
  signingKey: Buffer;
  requestTime: string;
  scope: string;
  seedSignature: string;
}

const hex = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const hmac = (k: Buffer, s: string) => createHmac('sha256', k).update(s).digest('hex');

export function chunkSignature(c: SignCtx, prev: string, data: Buffer): string {
  return hmac(c.signingKey, `AWS4-HMAC-SHA256-PAYLOAD\n${c.requestTime}\n${c.scope}\n${prev}\n${EMPTY}\n${hex(data)}`);
}

export function trailerSignature(c: SignCtx, prev: string, trailers: Array<[string, string]>): string {
  const canonical = trailers.map(([n, v]) => `${n}:${v}\n`).join('');
  return hmac(c.signingKey, `AWS4-HMAC-SHA256-TRAILER\n${c.requestTime}\n${c.scope}\n${prev}\n${hex(canonical)}`);
}

export interface Encoded {
  body: Buffer;
  chunkSignatures: string[];
  trailerSignature?: string;
}

export function encodeAwsChunked(
  data: Buffer,
  chunkSize: number,
  opts: { signed?: SignCtx; trailers?: Array<[string, string]>; sizeHex?: (n: number) => string } = {},
): Encoded {
  const parts: Buffer[] = [];
  const sigs: string[] = [];
  let prev = opts.signed?.seedSignature ?? '';
  const sizeHex = opts.sizeHex ?? ((n: number) => n.toString(16));
  const emit = (piece: Buffer) => {
    let line = sizeHex(piece.length);
    if (opts.signed) {
      prev = chunkSignature(opts.signed, prev, piece);
      sigs.push(prev);
      line += `;chunk-signature=${prev}`;
    }
    parts.push(Buffer.from(`${line}\r\n`));
    if (piece.length > 0) parts.push(piece, Buffer.from('\r\n'));
  };
  for (let off = 0; off < data.length; off += chunkSize) emit(data.subarray(off, off + chunkSize));
  emit(Buffer.alloc(0));
  let tsig: string | undefined;
  for (const [n, v] of opts.trailers ?? []) parts.push(Buffer.from(`${n}:${v}\r\n`));
  if (opts.signed && opts.trailers) {
    tsig = trailerSignature(opts.signed, prev, opts.trailers);
    parts.push(Buffer.from(`x-amz-trailer-signature:${tsig}\r\n`));
  }
  parts.push(Buffer.from('\r\n'));
  return { body: Buffer.concat(parts), chunkSignatures: sigs, trailerSignature: tsig };
}
