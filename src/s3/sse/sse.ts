// Server-side encryption in the S3 face (issue 13 §5): which encryption a write gets (SSE-S3 by
// header or bucket default, SSE-C by customer key; SSE-KMS refused), the sealed body between the
// request and the store writer, and the check and decryption between the store reader and the
// response. The engine only ever sees sealed bytes. Header rules: AWS "Protecting data with
// server-side encryption" (SSE-S3, SSE-C pages).

import { createHash } from 'node:crypto';
import { BufferShelf } from '../../buffer-shelf.js';
import type { BodyReader } from '../../store/types.js';
import type { ObjectEncryption, S3Bucket, S3Object, S3Store } from '../object-attrs.js';
import type { S3Context } from '../context.js';
import { S3Error } from '../errors.js';
import { BlockOpener, BlockSealer, newNoncePrefix, sealedLength, sealedSpan, SSE_BLOCK } from './block-cipher.js';
import { KEY_BYTES, newDataKey, unwrapKey, wrapKey } from './keys.js';

export const H_SSE = 'x-amz-server-side-encryption';
export const H_SSE_KMS_KEY_ID = 'x-amz-server-side-encryption-aws-kms-key-id';
export const H_SSE_KMS_CONTEXT = 'x-amz-server-side-encryption-context';
export const H_SSE_BUCKET_KEY = 'x-amz-server-side-encryption-bucket-key-enabled';
export const H_SSE_C_ALGORITHM = 'x-amz-server-side-encryption-customer-algorithm';
export const H_SSE_C_KEY = 'x-amz-server-side-encryption-customer-key';
export const H_SSE_C_KEY_MD5 = 'x-amz-server-side-encryption-customer-key-md5';
export const AES256 = 'AES256';
const KMS_VALUES = new Set(['aws:kms', 'aws:kms:dsse']);

/** What the S3 face needs for encryption at rest. */
export interface SseSettings {
  masterKey: Buffer;
  /** SSE-C over plain HTTP (loopback listeners only; as RGW's rgw_crypt_require_ssl = false) */
  customerKeysOverHttp: boolean;
}

interface CustomerKey {
  key: Buffer;
  md5: string;
}

function kmsNotImplemented(): S3Error {
  return new S3Error('NotImplemented', { Header: H_SSE }, {
    message: 'SSE-KMS (aws:kms) needs a key management service, which this server does not have; use AES256 (SSE-S3) or SSE-C.',
  });
}

/** The SSE-C headers of a request, checked; undefined when it has none. */
function customerKey(ctx: S3Context): CustomerKey | undefined {
  const h = ctx.headers;
  const algorithm = h[H_SSE_C_ALGORITHM];
  const key = h[H_SSE_C_KEY];
  const md5 = h[H_SSE_C_KEY_MD5];
  if (algorithm === undefined && key === undefined && md5 === undefined) return undefined;
  // AWS refuses customer keys over plain HTTP: they would cross the network in clear
  if (!ctx.head.secure && !ctx.services.sse?.customerKeysOverHttp) {
    throw new S3Error('InvalidRequest', {}, { message: 'Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.' });
  }
  if (algorithm === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE_C_ALGORITHM }, { message: 'Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.' });
  }
  if (algorithm !== AES256) throw new S3Error('InvalidEncryptionAlgorithmError', { ArgumentName: H_SSE_C_ALGORITHM, ArgumentValue: algorithm });
  if (key === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE_C_KEY }, { message: 'Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key.' });
  }
  if (md5 === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE_C_KEY_MD5 }, { message: 'Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.' });
  }
  const raw = Buffer.from(key, 'base64');
  if (raw.length !== KEY_BYTES || raw.toString('base64') !== key.trim()) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE_C_KEY }, { message: 'The secret key was invalid for the specified algorithm.' });
  }
  const actual = createHash('md5').update(raw).digest('base64');
  if (actual !== md5.trim()) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE_C_KEY_MD5 }, { message: 'The calculated MD5 hash of the key did not match the hash that was provided.' });
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

/** How a write of `size` bytes to `bucket` is encrypted; undefined when it is stored in clear. */
export function sealingForWrite(ctx: S3Context, bucket: S3Bucket, size: number): WriteSealing | undefined {
  const h = ctx.headers;
  const requested = h[H_SSE];
  if (requested !== undefined && KMS_VALUES.has(requested)) throw kmsNotImplemented();
  if (requested === undefined && (h[H_SSE_KMS_KEY_ID] !== undefined || h[H_SSE_KMS_CONTEXT] !== undefined)) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE }, { message: 'Server Side Encryption with KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms' });
  }
  if (requested !== undefined && requested !== AES256) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE, ArgumentValue: requested }, { message: 'The encryption method specified is not supported' });
  }
  const customer = customerKey(ctx);
  if (customer && requested !== undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE }, { message: 'Server Side Encryption with Customer provided key is incompatible with the encryption method specified' });
  }
  if (!customer && requested === undefined && !bucket.encryption) return undefined;
  const settings = ctx.services.sse;
  if (!settings) throw new S3Error('NotImplemented', { Header: H_SSE }, { message: 'Encryption at rest is not configured on this server.' });
  const dataKey = newDataKey();
  const prefix = newNoncePrefix();
  const encryption: ObjectEncryption = {
    mode: customer ? 'SSE-C' : 'SSE-S3',
    plaintextSize: size,
    blockSize: SSE_BLOCK,
    noncePrefix: prefix.toString('base64'),
    wrappedKey: wrapKey(customer ? customer.key : settings.masterKey, dataKey).toString('base64'),
  };
  if (customer) encryption.customerKeyMD5 = customer.md5;
  return {
    storedLength: sealedLength(size),
    sealer: new BlockSealer(dataKey, prefix, size),
    encryption,
    dataKey,
    responseHeaders: encryptionHeaders(encryption),
  };
}

/** SSE-C ETags are not the MD5 of the plaintext, which would tell something about it (as AWS). */
export function sealedEtag(sealing: WriteSealing | undefined, md5Hex: string): string {
  if (sealing?.encryption.mode !== 'SSE-C') return md5Hex;
  return createHash('md5').update(md5Hex).update(sealing.dataKey).digest('hex');
}

export function encryptionHeaders(e: ObjectEncryption | undefined): Array<readonly [string, string]> {
  if (!e) return [];
  if (e.mode === 'SSE-S3') return [['x-amz-server-side-encryption', AES256]];
  return [
    ['x-amz-server-side-encryption-customer-algorithm', AES256],
    ['x-amz-server-side-encryption-customer-key-MD5', e.customerKeyMD5!],
  ];
}

/** The object's size as clients see it. */
export function objectSize(record: S3Object): number {
  return record.attrs.encryption?.plaintextSize ?? record.size;
}

/**
 * Checks a read's SSE-C headers against the object (every read: the key's MD5 must match) and
 * returns the data key; undefined for objects stored in clear.
 */
export function dataKeyForRead(ctx: S3Context, record: S3Object): Buffer | undefined {
  const e = record.attrs.encryption;
  const customer = customerKey(ctx);
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
  const wrappingKey = customer ? customer.key : ctx.services.sse?.masterKey;
  const dataKey = wrappingKey && unwrapKey(wrappingKey, Buffer.from(e.wrappedKey, 'base64'));
  if (!dataKey) {
    if (customer) throw new S3Error('AccessDenied');
    // the master key in the data directory is not the one the object was sealed with
    throw new Error(`the data key of ${record.key} does not unwrap with this server's master key`);
  }
  return dataKey;
}

/** Sealed bytes asked of the store per read (its block size): each chunk is decrypted before the next read. */
const SEALED_READ = 1 << 20;
/** Plaintext buffers of the readers, reused from reader to reader. */
const plainBuffers = new BufferShelf(BlockOpener.room(SEALED_READ, SSE_BLOCK), 32);

/**
 * Plaintext bytes [start, end) of a sealed object, read from the store and decrypted as they come
 * into one buffer per reader; a block's bytes leave only once its tag has verified.
 */
export function openUnsealedRead(store: S3Store, record: S3Object, dataKey: Buffer, start: number, end: number): BodyReader {
  const e = record.attrs.encryption!;
  const size = e.plaintextSize;
  const span = sealedSpan(size, start, end);
  const sealed = store.openRead(record, span.from, span.to);
  const opener = new BlockOpener(dataKey, Buffer.from(e.noncePrefix, 'base64'), size, e.blockSize, span.firstBlock);
  const room = BlockOpener.room(Math.min(SEALED_READ, span.to - span.from), e.blockSize);
  const plain = room <= plainBuffers.size ? plainBuffers.take() : Buffer.allocUnsafe(room);
  let skip = start - span.firstBlock * e.blockSize;
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
