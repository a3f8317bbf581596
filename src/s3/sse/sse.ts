// Server-side encryption in the S3 face (issue 13 §5): which encryption a write gets (SSE-S3 or
// SSE-KMS by header or bucket default, SSE-C by customer key), the sealed body between the
// request and the store writer, and the check and decryption between the store reader and the
// response. The engine only ever sees sealed bytes. Header rules: AWS "Protecting data with
// server-side encryption" (SSE-S3, SSE-C pages).

import { createHash } from 'node:crypto';
import { BufferShelf } from '../../base/buffer-shelf.js';
import type { BodyReader, BodyWriter } from '../../store/types.js';
import type { ObjectEncryption, S3Bucket, S3Object, S3ObjectAttrs, S3Store, SealedSegment, UploadEncryption } from '../object-attrs.js';
import type { S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { BlockOpener, BlockSealer, newNoncePrefix, sealedLength, sealedSpan, SSE_BLOCK } from './block-cipher.js';
import { KEY_BYTES, newDataKey, unwrapKey, wrapKey } from './keys.js';
import { AWS_KMS, bucketKmsRequest, H_SSE_KMS_CONTEXT, H_SSE_KMS_KEY_ID, kmsDataKey, kmsHeaders, kmsRequestOf, newKmsEncryption, type KmsRequest } from './kms.js';

export const H_SSE = 'x-amz-server-side-encryption';
export const H_SSE_C_ALGORITHM = 'x-amz-server-side-encryption-customer-algorithm';
export const H_SSE_C_KEY = 'x-amz-server-side-encryption-customer-key';
export const H_SSE_C_KEY_MD5 = 'x-amz-server-side-encryption-customer-key-md5';
export const AES256 = 'AES256';
const AWS_KMS_DSSE = 'aws:kms:dsse';
const KMS_HEADER_REQUIRED = 'Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms';

interface CustomerKey {
  key: Buffer;
  md5: string;
}

function dsseNotImplemented(): S3Error {
  return new S3Error('NotImplemented', { Header: H_SSE }, {
    message: 'Dual-layer SSE-KMS (aws:kms:dsse) is not implemented; use aws:kms, AES256 (SSE-S3) or SSE-C.',
  });
}

/** The SSE-C headers of the request's object, and of a copy's source. */
const OBJECT_KEY_HEADERS = { algorithm: H_SSE_C_ALGORITHM, key: H_SSE_C_KEY, md5: H_SSE_C_KEY_MD5 };
const COPY_SOURCE_KEY_HEADERS = {
  algorithm: 'x-amz-copy-source-server-side-encryption-customer-algorithm',
  key: 'x-amz-copy-source-server-side-encryption-customer-key',
  md5: 'x-amz-copy-source-server-side-encryption-customer-key-md5',
};

/** The SSE-C headers of a request (or of its copy source), checked; undefined when it has none. */
function customerKey(ctx: S3Context, names = OBJECT_KEY_HEADERS): CustomerKey | undefined {
  const h = ctx.headers;
  const algorithm = h[names.algorithm];
  const key = h[names.key];
  const md5 = h[names.md5];
  if (algorithm === undefined && key === undefined && md5 === undefined) return undefined;
  // AWS refuses customer keys over plain HTTP: they would cross the network in clear
  if (!ctx.head.secure && !ctx.services.sse?.customerKeysOverHttp) {
    throw new S3Error('InvalidRequest', {}, { message: 'Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.' });
  }
  if (algorithm === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: names.algorithm }, { message: 'Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.' });
  }
  if (algorithm !== AES256) throw new S3Error('InvalidEncryptionAlgorithmError', { ArgumentName: names.algorithm, ArgumentValue: algorithm });
  if (key === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: names.key }, { message: 'Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key.' });
  }
  if (md5 === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: names.md5 }, { message: 'Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.' });
  }
  const raw = Buffer.from(key, 'base64');
  if (raw.length !== KEY_BYTES || raw.toString('base64') !== key.trim()) {
    throw new S3Error('InvalidArgument', { ArgumentName: names.key }, { message: 'The secret key was invalid for the specified algorithm.' });
  }
  const actual = createHash('md5').update(raw).digest('base64');
  if (actual !== md5.trim()) {
    throw new S3Error('InvalidArgument', { ArgumentName: names.md5 }, { message: 'The calculated MD5 hash of the key did not match the hash that was provided.' });
  }
  return { key: raw, md5: actual };
}

/** A write's body sealer and what the stored record and the response carry. */
export interface WriteSealing {
  storedLength: number;
  sealer: BlockSealer;
  encryption: ObjectEncryption;
  /** the data key, for SSE-C's opaque ETag */
  dataKey: Buffer;
  responseHeaders: Array<readonly [string, string]>;
}

/**
 * The encryption a new object of `bucket` is to get, from the request's headers (checked) and the
 * bucket's default; undefined when it is stored in clear.
 */
export function requestedEncryption(ctx: S3Context, bucket: S3Bucket): { mode: 'SSE-S3' } | { mode: 'SSE-C'; customer: CustomerKey } | KmsRequest | undefined {
  const h = ctx.headers;
  const requested = h[H_SSE];
  if (requested === AWS_KMS_DSSE) throw dsseNotImplemented();
  if (requested === AWS_KMS) {
    // S3 refuses two encryptions at once (AWS "Specifying server-side encryption with customer-provided keys")
    if (customerKey(ctx)) {
      throw new S3Error('InvalidArgument', { ArgumentName: H_SSE }, { message: 'Server Side Encryption with Customer provided key is incompatible with the encryption method specified' });
    }
    return kmsRequestOf(ctx);
  }
  // a KMS key id or context without aws:kms (absent or AES256) is 400, as S3 answers; the id is never
  // dropped silently (AWS "PutObject": the key id header applies only with aws:kms; MinIO's
  // ErrInvalidEncryptionMethod carries the same wording)
  if (h[H_SSE_KMS_KEY_ID] !== undefined || h[H_SSE_KMS_CONTEXT] !== undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE }, { message: KMS_HEADER_REQUIRED });
  }
  if (requested !== undefined && requested !== AES256) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE, ArgumentValue: requested }, { message: 'The encryption method specified is not supported' });
  }
  const customer = customerKey(ctx);
  if (customer && requested !== undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE }, { message: 'Server Side Encryption with Customer provided key is incompatible with the encryption method specified' });
  }
  if (customer) return { mode: 'SSE-C', customer };
  if (requested !== undefined) return { mode: 'SSE-S3' };
  return bucketKmsRequest(bucket) ?? (bucket.encryption ? { mode: 'SSE-S3' } : undefined);
}

/** How a new object (or upload) `key` of `bucket` is to be encrypted: a new data key, wrapped; undefined in clear. */
async function newEncryption(ctx: S3Context, bucket: S3Bucket, key: string): Promise<{ encryption: UploadEncryption; dataKey: Buffer } | undefined> {
  const requested = requestedEncryption(ctx, bucket);
  if (!requested) return undefined;
  if (requested.mode === 'SSE-KMS') return newKmsEncryption(ctx, bucket, key, requested, SSE_BLOCK);
  const customer = requested.mode === 'SSE-C' ? requested.customer : undefined;
  const settings = ctx.services.sse;
  if (!settings) throw new S3Error('NotImplemented', { Header: H_SSE }, { message: 'Encryption at rest is not configured on this server.' });
  const dataKey = newDataKey();
  const encryption: UploadEncryption = {
    mode: customer ? 'SSE-C' : 'SSE-S3',
    blockSize: SSE_BLOCK,
    wrappedKey: wrapKey(customer ? customer.key : settings.masterKey, dataKey).toString('base64'),
  };
  if (customer) encryption.customerKeyMD5 = customer.md5;
  return { encryption, dataKey };
}

/** A sealer for `size` bytes under `dataKey`, with a fresh nonce prefix. */
function sealingOf(upload: UploadEncryption, dataKey: Buffer, size: number, withContext: boolean): WriteSealing {
  const prefix = newNoncePrefix();
  const encryption: ObjectEncryption = { ...upload, plaintextSize: size, noncePrefix: prefix.toString('base64') };
  return {
    storedLength: sealedLength(size),
    sealer: new BlockSealer(dataKey, prefix, size),
    encryption,
    dataKey,
    responseHeaders: encryptionHeaders(encryption, withContext),
  };
}

/** How a write of `size` bytes to `key` of `bucket` is encrypted; undefined when it is stored in clear. */
export async function sealingForWrite(ctx: S3Context, bucket: S3Bucket, key: string, size: number): Promise<WriteSealing | undefined> {
  const created = await newEncryption(ctx, bucket, key);
  return created && sealingOf(created.encryption, created.dataKey, size, true);
}

/** How CreateMultipartUpload's parts are to be sealed (one data key for the upload); undefined in clear. */
export async function encryptionForUpload(ctx: S3Context, bucket: S3Bucket): Promise<UploadEncryption | undefined> {
  return (await newEncryption(ctx, bucket, ctx.resource.key!))?.encryption;
}

/**
 * A request's customer key against its upload's encryption: a key must be the upload's SSE-C key,
 * and with `required` (a part) an SSE-C upload must be given it.
 */
function checkUploadKey(e: UploadEncryption | undefined, customer: CustomerKey | undefined, required: boolean): void {
  if (!customer) {
    if (required && e?.mode === 'SSE-C') {
      throw new S3Error('InvalidRequest', {}, { message: 'The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.' });
    }
    return;
  }
  if (e?.mode !== 'SSE-C') throw new S3Error('InvalidRequest', {}, { message: 'The encryption parameters are not applicable to this object.' });
  if (customer.md5 !== e.customerKeyMD5) {
    throw new S3Error('InvalidRequest', {}, { message: 'The provided encryption parameters did not match the ones used originally.' });
  }
}

/**
 * How a part of `size` bytes of `upload` is sealed: its own segment under the upload's data key.
 * SSE-C parts must bring the upload's customer key (as S3 asks); undefined for a plaintext upload.
 */
export async function sealingForPart(ctx: S3Context, upload: S3ObjectAttrs, size: number): Promise<WriteSealing | undefined> {
  const e = upload.uploadEncryption;
  const customer = customerKey(ctx);
  checkUploadKey(e, customer, true);
  return e && sealingOf(e, await unwrappedKey(ctx, e, customer, 'upload'), size, false);
}

/**
 * The customer key CompleteMultipartUpload may bring (AWS completes an SSE-C upload without one,
 * and newer SDKs send it): when present it must be the upload's, as a part's must.
 */
export function checkCompleteKey(ctx: S3Context, upload: UploadEncryption | undefined): void {
  checkUploadKey(upload, customerKey(ctx), false);
}

/** The segment a sealed part keeps for Complete. */
export function sealedSegmentOf(sealing: WriteSealing): SealedSegment {
  return { plaintextSize: sealing.encryption.plaintextSize, noncePrefix: sealing.encryption.noncePrefix };
}

/**
 * The encryption of a completed upload: its parts' segments one after the other (each part's own
 * nonce prefix and size); `parts` are the chosen parts' segments, in order.
 */
export function completedEncryption(upload: UploadEncryption, parts: SealedSegment[]): ObjectEncryption {
  const plaintextSize = parts.reduce((n, p) => n + p.plaintextSize, 0);
  return { ...upload, plaintextSize, noncePrefix: '', segments: parts };
}

/** The sink a body goes through into `writer`: sealed when `sealing` says so; `end` writes the last block. */
export function sealedSink(writer: BodyWriter, sealing: WriteSealing | undefined): { sink: Pick<BodyWriter, 'write'>; end(): Promise<void> } {
  if (!sealing) return { sink: writer, end: async () => undefined };
  return {
    sink: {
      write: (chunk: Buffer) => {
        const sealed = sealing.sealer.push(chunk);
        return sealed.length > 0 ? writer.write(sealed) : Promise.resolve();
      },
    },
    async end() {
      const last = sealing.sealer.end();
      if (last.length > 0) await writer.write(last);
    },
  };
}

/** SSE-C ETags are not the MD5 of the plaintext, which would tell something about it (as AWS). */
export function sealedEtag(sealing: WriteSealing | undefined, md5Hex: string): string {
  if (sealing?.encryption.mode !== 'SSE-C') return md5Hex;
  return createHash('md5').update(md5Hex).update(sealing.dataKey).digest('hex');
}

/** The encryption response headers of `e`; `withContext`: SSE-KMS's context too (writes: PUT, copy, CreateMultipartUpload). */
export function encryptionHeaders(e: UploadEncryption | undefined, withContext = false): Array<readonly [string, string]> {
  if (!e) return [];
  if (e.mode === 'SSE-S3') return [['x-amz-server-side-encryption', AES256]];
  if (e.mode === 'SSE-KMS') return kmsHeaders(e, withContext);
  return [
    ['x-amz-server-side-encryption-customer-algorithm', AES256],
    ['x-amz-server-side-encryption-customer-key-MD5', e.customerKeyMD5!],
  ];
}

/** The object's size as clients see it. */
export function objectSize(record: S3Object): number {
  return record.attrs.walrus?.size ?? record.attrs.encryption?.plaintextSize ?? record.size;
}

/**
 * Checks a read's SSE-C headers against the object (every read: the key's MD5 must match) and
 * returns the data key; undefined for objects stored in clear. A read names no SSE-S3/KMS method:
 * S3 refuses x-amz-server-side-encryption on GET and HEAD.
 */
export async function dataKeyForRead(ctx: S3Context, record: S3Object): Promise<Buffer | undefined> {
  if (ctx.headers[H_SSE] !== undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE, ArgumentValue: ctx.headers[H_SSE] }, {
      message: 'x-amz-server-side-encryption header is not supported for this operation.',
    });
  }
  return dataKeyOf(ctx, record, customerKey(ctx));
}

/** dataKeyForRead for a copy's source: its SSE-C key comes in the x-amz-copy-source-server-side-encryption-customer-* headers. */
export async function copySourceDataKey(ctx: S3Context, record: S3Object): Promise<Buffer | undefined> {
  return dataKeyOf(ctx, record, customerKey(ctx, COPY_SOURCE_KEY_HEADERS));
}

async function dataKeyOf(ctx: S3Context, record: S3Object, customer: CustomerKey | undefined): Promise<Buffer | undefined> {
  const e = record.attrs.encryption;
  if (!e) {
    if (customer) throw new S3Error('InvalidRequest', {}, { message: 'The encryption parameters are not applicable to this object.' });
    return undefined;
  }
  if (e.mode === 'SSE-C') {
    if (!customer) {
      throw new S3Error('InvalidRequest', {}, { message: 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.' });
    }
    if (customer.md5 !== e.customerKeyMD5) throw new S3Error('AccessDenied');
  } else if (customer) {
    throw new S3Error('InvalidRequest', {}, { message: 'The encryption parameters are not applicable to this object.' });
  }
  return unwrappedKey(ctx, e, customer, record.key);
}

/** The data key of `e`, unwrapped with the customer's key (SSE-C), by the key service (SSE-KMS) or with the master key. */
async function unwrappedKey(ctx: S3Context, e: UploadEncryption, customer: CustomerKey | undefined, what: string): Promise<Buffer> {
  if (e.mode === 'SSE-KMS') return kmsDataKey(ctx, e);
  const wrappingKey = customer ? customer.key : ctx.services.sse?.masterKey;
  const dataKey = wrappingKey && unwrapKey(wrappingKey, Buffer.from(e.wrappedKey, 'base64'));
  if (!dataKey) {
    if (customer) throw new S3Error('AccessDenied');
    // the master key in the data directory is not the one the object was sealed with
    throw new Error(`the data key of ${what} does not unwrap with this server's master key`);
  }
  return dataKey;
}

/** Sealed bytes asked of the store per read (its block size): each chunk is decrypted before the next read. */
const SEALED_READ = 1 << 20;
/** Plaintext buffers of the readers, reused from reader to reader. */
const plainBuffers = new BufferShelf(BlockOpener.room(SEALED_READ, SSE_BLOCK), 32);

/**
 * Plaintext bytes [start, end) of a sealed object, read from the store and decrypted as they come;
 * a block's bytes leave only once its tag has verified. A completed multipart upload is its parts'
 * segments one after the other, each read in turn.
 */
export function openUnsealedRead(store: S3Store, record: S3Object, dataKey: Buffer, start: number, end: number): BodyReader {
  const e = record.attrs.encryption!;
  const segments = e.segments ?? [{ plaintextSize: e.plaintextSize, noncePrefix: e.noncePrefix }];
  /** what each segment overlapping [start, end) gives: its part of the range, and where it is stored */
  const pieces: Array<{ segment: SealedSegment; sealedBase: number; from: number; to: number }> = [];
  let plainBase = 0;
  let sealedBase = 0;
  for (const segment of segments) {
    const from = Math.max(start, plainBase);
    const to = Math.min(end, plainBase + segment.plaintextSize);
    if (from < to) pieces.push({ segment, sealedBase, from: from - plainBase, to: to - plainBase });
    plainBase += segment.plaintextSize;
    sealedBase += sealedLength(segment.plaintextSize, e.blockSize);
  }
  let current: BodyReader | undefined;
  let closed = false;
  return {
    async read(maxBytes: number): Promise<Buffer | null> {
      for (;;) {
        if (closed) return null;
        if (!current) {
          const piece = pieces.shift();
          if (!piece) return null;
          current = openSegmentRead(store, record, dataKey, e.blockSize, piece.segment, piece.sealedBase, piece.from, piece.to);
        }
        const chunk = await current.read(maxBytes);
        if (chunk) return chunk;
        current.close();
        current = undefined;
      }
    },
    close: () => {
      closed = true;
      current?.close();
      current = undefined;
    },
  };
}

/** Plaintext bytes [start, end) of one sealed segment stored from `sealedBase` on, into one reused buffer. */
function openSegmentRead(
  store: S3Store,
  record: S3Object,
  dataKey: Buffer,
  blockSize: number,
  segment: SealedSegment,
  sealedBase: number,
  start: number,
  end: number,
): BodyReader {
  const size = segment.plaintextSize;
  const span = sealedSpan(size, start, end, blockSize);
  const sealed = store.openRead(record, sealedBase + span.from, sealedBase + span.to);
  const opener = new BlockOpener(dataKey, Buffer.from(segment.noncePrefix, 'base64'), size, blockSize, span.firstBlock);
  const room = BlockOpener.room(Math.min(SEALED_READ, span.to - span.from), blockSize);
  const plain = room <= plainBuffers.size ? plainBuffers.take() : Buffer.allocUnsafe(room);
  let skip = start - span.firstBlock * blockSize;
  let remaining = end - start;
  /** verified plaintext not yet read: plain[next, filled) */
  let next = 0;
  let filled = 0;
  // the buffers go back once no read of this reader can still fill them
  let closed = false;
  let reading = false;
  const release = (): void => {
    opener.close();
    plainBuffers.giveBack(plain);
  };
  return {
    async read(maxBytes: number): Promise<Buffer | null> {
      if (remaining === 0 || closed) return null;
      reading = true;
      try {
        while (next === filled) {
          // the store reader reuses its buffer: the chunk is decrypted before the next read
          const chunk = await sealed.read(SEALED_READ);
          if (closed) return null;
          if (!chunk || chunk.length === 0) throw new Error(`sealed body of ${record.key} ended early`);
          filled = opener.push(chunk, plain, 0);
          next = Math.min(skip, filled);
          skip -= next;
        }
      } finally {
        reading = false;
        if (closed) release();
      }
      const take = Math.min(filled - next, maxBytes, remaining);
      next += take;
      remaining -= take;
      return plain.subarray(next - take, next);
    },
    close: () => {
      if (closed) return;
      closed = true;
      sealed.close();
      if (!reading) release();
    },
  };
}
