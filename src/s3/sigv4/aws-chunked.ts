// Streaming decoder of aws-chunked request bodies, every variant of s3.md §2.8:
//   signed chunks, signed chunks + signed trailer, unsigned chunks + trailer, unsigned chunks.
// Input may be split anywhere (down to single bytes); payload bytes are handed out as views into
// the pushed buffers, and each chunk's SHA-256 is computed incrementally, so memory stays constant
// (one 4 KiB line buffer) whatever the body size.

import { createHash, type Hash } from 'node:crypto';
import { S3Error, type ErrorExtras, type S3ErrorCode } from '../errors/errors.js';
import {
  CHUNK_ALGORITHM,
  EMPTY_SHA256,
  H_AMZ_TRAILER_SIGNATURE,
  MAX_CHUNK_LINE_BYTES,
  MAX_TRAILER_LINES,
  TRAILER_ALGORITHM,
} from './constants.js';
import { hmacHex, isHex, sha256Hex, signaturesEqual } from './signing-key.js';

const CR = 0x0d;
const LF = 0x0a;
const CHUNK_SIGNATURE_EXT = ';chunk-signature=';

/** Signature chain of a `STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]` body (from SignedAuth). */
export interface ChunkSigningContext {
  signingKey: Buffer;
  /** basic ISO request time */
  requestTime: string;
  scope: string;
  /** the request's own signature: the first chunk's "previous signature" */
  seedSignature: string;
}

export interface AwsChunkedOptions {
  /** `x-amz-decoded-content-length`: the sum of all chunk sizes must equal it */
  decodedLength: number;
  /** present for signed-chunk modes */
  signed?: ChunkSigningContext;
  /**
   * The declared trailer name (lower-case, from `x-amz-trailer`). When set, exactly that trailer
   * must follow the final chunk (plus `x-amz-trailer-signature` when `signed`); when unset, the
   * trailer section must be empty.
   */
  trailer?: string;
}

export interface AwsChunkedResult {
  /** trailer fields: lower-case names, trimmed values; the trailer signature line excluded */
  trailers: Record<string, string>;
}

const enum State {
  SizeLine,
  Data,
  DataCR,
  DataLF,
  TrailerLine,
  Done,
  Failed,
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

export class AwsChunkedDecoder {
  private state = State.SizeLine;
  private readonly line = Buffer.allocUnsafe(MAX_CHUNK_LINE_BYTES + 1);
  private lineLen = 0;
  /** payload bytes left in the current chunk */
  private remaining = 0;
  /** Σ declared chunk sizes so far */
  private total = 0;
  private hash: Hash | undefined;
  private providedChunkSignature = '';
  private previousSignature: string;
  private readonly trailerFields: [string, string][] = [];
  private trailerSignature: string | undefined;
  private failure: unknown;

  constructor(private readonly options: AwsChunkedOptions) {
    this.previousSignature = options.signed?.seedSignature.toLowerCase() ?? '';
  }

  /** Payload bytes handed out so far. */
  get bytesDecoded(): number {
    return this.total - this.remaining;
  }

  /**
   * Feeds encoded bytes. `onData` receives payload slices that are views into `chunk` (valid as
   * long as `chunk` is). Throws S3Error as soon as the framing or a chunk signature is wrong; note
   * that a chunk's bytes have already been handed out when its signature is checked at its end,
   * so nothing may be committed before `end()` returns.
   */
  push(chunk: Buffer, onData: (slice: Buffer) => void): void {
    if (this.state === State.Failed) throw this.failure;
    try {
      this.consume(chunk, onData);
    } catch (e) {
      this.state = State.Failed;
      this.failure = e;
      throw e;
    }
  }

  /** Call at the end of the request body; validates completeness and the trailer. */
  end(): AwsChunkedResult {
    if (this.state === State.Failed) throw this.failure;
    try {
      // The body must end with the empty line that closes the trailer section (s3.md §2.8 grammar):
      // a body cut short there may have lost trailer lines, so it is incomplete (issue 8).
      if (this.state !== State.Done) throw this.error('IncompleteBody', false);
    } catch (e) {
      this.state = State.Failed;
      this.failure = e;
      throw e;
    }
    const trailers: Record<string, string> = {};
    for (const [name, value] of this.trailerFields) trailers[name] = value;
    return { trailers };
  }

  private error(code: S3ErrorCode, close: boolean, extras: ErrorExtras = {}): S3Error {
    // Raised mid-body the rest of the upload is never read: close the connection (s3.md §1.7).
    return new S3Error(code, extras, { close });
  }

  private consume(chunk: Buffer, onData: (slice: Buffer) => void): void {
    const n = chunk.length;
    let pos = 0;
    while (pos < n) {
      switch (this.state) {
        case State.SizeLine:
        case State.TrailerLine: {
          const nl = chunk.indexOf(LF, pos);
          const end = nl === -1 ? n : nl;
          const count = end - pos;
          if (this.lineLen + count > MAX_CHUNK_LINE_BYTES) {
            throw this.error(this.state === State.SizeLine ? 'IncompleteBody' : 'MalformedTrailerError', true);
          }
          chunk.copy(this.line, this.lineLen, pos, end);
          this.lineLen += count;
          if (nl === -1) return;
          pos = nl + 1;
          if (this.state === State.SizeLine) this.onSizeLine();
          else this.onTrailerLine(true);
          break;
        }
        case State.Data: {
          const take = Math.min(this.remaining, n - pos);
          const slice = chunk.subarray(pos, pos + take);
          this.hash?.update(slice);
          pos += take;
          this.remaining -= take;
          onData(slice);
          if (this.remaining === 0) {
            if (this.options.signed !== undefined) this.verifyChunk(this.hash!.digest('hex'));
            this.hash = undefined;
            this.state = State.DataCR;
          }
          break;
        }
        case State.DataCR:
          if (chunk[pos++] !== CR) throw this.error('IncompleteBody', true);
          this.state = State.DataLF;
          break;
        case State.DataLF:
          if (chunk[pos++] !== LF) throw this.error('IncompleteBody', true);
          this.state = State.SizeLine;
          break;
        case State.Done: {
          // Tolerate extra line ends after the terminating empty line; any other byte is not aws-chunked.
          const c = chunk[pos++];
          if (c !== CR && c !== LF) throw this.error('IncompleteBody', true);
          break;
        }
        case State.Failed:
          throw this.failure;
      }
    }
  }

  /** `HEXSIZE [";chunk-signature=" SIG64] CR` is in `line` (the LF consumed). */
  private onSizeLine(): void {
    const line = this.line;
    let len = this.lineLen;
    this.lineLen = 0;
    if (len === 0 || line[len - 1] !== CR) throw this.error('IncompleteBody', true);
    len--;
    const room = this.options.decodedLength - this.total;
    let size = 0;
    let i = 0;
    for (; i < len; i++) {
      const d = hexDigit(line[i]!);
      if (d < 0) break;
      size = size * 16 + d;
      // Σ sizes may never exceed x-amz-decoded-content-length; also bounds the parsed number.
      if (size > room) throw this.error('IncompleteBody', true);
    }
    if (i === 0) throw this.error('IncompleteBody', true);
    const signed = this.options.signed;
    if (signed !== undefined) {
      const extLen = CHUNK_SIGNATURE_EXT.length;
      if (len - i !== extLen + 64 || line.toString('latin1', i, i + extLen) !== CHUNK_SIGNATURE_EXT) {
        throw this.error('IncompleteBody', true);
      }
      const sig = line.toString('latin1', i + extLen, len);
      if (!isHex(sig, 64)) throw this.error('IncompleteBody', true);
      this.providedChunkSignature = sig.toLowerCase();
    } else if (i < len && line[i] !== 0x3b /* ; */) {
      // Unsigned chunks: chunk extensions are tolerated and ignored.
      throw this.error('IncompleteBody', true);
    }
    this.total += size;
    if (size === 0) {
      if (this.total !== this.options.decodedLength) throw this.error('IncompleteBody', true);
      // The final zero-length chunk is signed too, over empty data (s3.md §2.8).
      if (signed !== undefined) this.verifyChunk(EMPTY_SHA256);
      this.state = State.TrailerLine;
    } else {
      this.remaining = size;
      if (signed !== undefined) this.hash = createHash('sha256');
      this.state = State.Data;
    }
  }

  private verifyChunk(dataSha256Hex: string): void {
    const signed = this.options.signed!;
    const toSign =
      `${CHUNK_ALGORITHM}\n${signed.requestTime}\n${signed.scope}\n${this.previousSignature}\n` +
      `${EMPTY_SHA256}\n${dataSha256Hex}`;
    const expected = hmacHex(signed.signingKey, toSign);
    if (!signaturesEqual(expected, this.providedChunkSignature)) {
      throw this.error('SignatureDoesNotMatch', true, {
        StringToSign: toSign,
        SignatureProvided: this.providedChunkSignature,
      });
    }
    this.previousSignature = expected;
  }

  /** One trailer line is in `line` (without its LF); an empty line ends the trailer section. */
  private onTrailerLine(midBody: boolean): void {
    let len = this.lineLen;
    this.lineLen = 0;
    if (len > 0 && this.line[len - 1] === CR) len--;
    if (len === 0) {
      this.finishTrailers(midBody);
      return;
    }
    const text = this.line.toString('latin1', 0, len);
    const colon = text.indexOf(':');
    const name = colon === -1 ? '' : text.slice(0, colon).trim().toLowerCase();
    if (name.length === 0) throw this.error('MalformedTrailerError', midBody);
    const value = text.slice(colon + 1).trim();
    if (name === H_AMZ_TRAILER_SIGNATURE) {
      if (!this.trailerSignatureRequired() || this.trailerSignature !== undefined || !isHex(value, 64)) {
        throw this.error('MalformedTrailerError', midBody);
      }
      this.trailerSignature = value.toLowerCase();
      return;
    }
    if (this.trailerSignature !== undefined || this.trailerFields.length >= MAX_TRAILER_LINES) {
      throw this.error('MalformedTrailerError', midBody);
    }
    this.trailerFields.push([name, value]);
  }

  private trailerSignatureRequired(): boolean {
    return this.options.signed !== undefined && this.options.trailer !== undefined;
  }

  private finishTrailers(midBody: boolean): void {
    const declared = this.options.trailer;
    const fields = this.trailerFields;
    if (declared === undefined) {
      if (fields.length > 0) throw this.error('MalformedTrailerError', midBody);
    } else if (fields.length !== 1 || fields[0]![0] !== declared) {
      throw this.error('MalformedTrailerError', midBody);
    }
    if (this.trailerSignatureRequired()) {
      if (this.trailerSignature === undefined) throw this.error('MalformedTrailerError', midBody);
      this.verifyTrailer();
    }
    this.state = State.Done;
  }

  private verifyTrailer(): void {
    const signed = this.options.signed!;
    const sorted = [...this.trailerFields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let canonical = '';
    for (const [name, value] of sorted) canonical += `${name}:${value}\n`;
    const toSign =
      `${TRAILER_ALGORITHM}\n${signed.requestTime}\n${signed.scope}\n${this.previousSignature}\n` + sha256Hex(canonical);
    const expected = hmacHex(signed.signingKey, toSign);
    if (!signaturesEqual(expected, this.trailerSignature!)) {
      throw this.error('SignatureDoesNotMatch', true, {
        StringToSign: toSign,
        SignatureProvided: this.trailerSignature!,
      });
    }
  }
}
