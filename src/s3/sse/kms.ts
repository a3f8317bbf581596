// SSE-KMS in the S3 face: the request's aws:kms headers (key id, encryption context, bucket key),
// the data key asked of the key service (src/kms) for a new object or upload and given back for a
// read, and the errors S3 answers for the key service's refusals.

import type { Config } from '../../config/config.js';
import { KmsError, type EncryptionContext, type KeyService } from '../../kms/key-service.js';
import type { KeyRegistryOptions } from '../../kms/key-registry.js';
import type { S3Bucket, UploadEncryption } from '../object-attrs.js';
import type { S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';

export const H_SSE_KMS_KEY_ID = 'x-amz-server-side-encryption-aws-kms-key-id';
export const H_SSE_KMS_CONTEXT = 'x-amz-server-side-encryption-context';
export const H_SSE_BUCKET_KEY = 'x-amz-server-side-encryption-bucket-key-enabled';
export const AWS_KMS = 'aws:kms';
/** the context S3 binds every SSE-KMS data key to (AWS "Encryption context" of SSE-KMS) */
const S3_ARN_CONTEXT = 'aws:s3:arn';

/** aws:kms as a request (or the bucket's default) asks for it. */
export interface KmsRequest {
  mode: 'SSE-KMS';
  /** id, ARN, alias or alias ARN; absent: the account's default key (alias/aws/s3) */
  keyRef?: string;
  /** the client's context pairs (x-amz-server-side-encryption-context) */
  context?: Record<string, string>;
  bucketKey: boolean;
}

/** Where the key service keeps its keys and finds its master key (main.ts and every front-end thread). */
export function keyServiceOptions(config: Config, generation: Int32Array): KeyRegistryOptions {
  return { dataDir: config.dataDir, region: config.region, master: { file: config.kms.masterKeyFile, base64: config.kms.masterKeyBase64 }, generation };
}

/** The aws:kms request of `ctx`'s headers (the x-amz-server-side-encryption header said aws:kms). */
export function kmsRequestOf(ctx: S3Context): KmsRequest {
  const h = ctx.headers;
  const keyRef = h[H_SSE_KMS_KEY_ID]?.trim();
  const request: KmsRequest = { mode: 'SSE-KMS', bucketKey: parseBucketKey(h[H_SSE_BUCKET_KEY]) };
  if (keyRef) request.keyRef = keyRef;
  if (h[H_SSE_KMS_CONTEXT] !== undefined) request.context = parseContext(h[H_SSE_KMS_CONTEXT]);
  return request;
}

/** The bucket's default encryption when it is aws:kms. */
export function bucketKmsRequest(bucket: S3Bucket): KmsRequest | undefined {
  const e = bucket.encryption;
  if (e?.algorithm !== AWS_KMS) return undefined;
  return { mode: 'SSE-KMS', bucketKey: e.bucketKeyEnabled, ...(e.kmsMasterKeyId ? { keyRef: e.kmsMasterKeyId } : {}) };
}

function parseBucketKey(v: string | undefined): boolean {
  if (v === undefined) return false;
  const value = v.trim().toLowerCase();
  if (value !== 'true' && value !== 'false') {
    throw new S3Error('InvalidArgument', { ArgumentName: H_SSE_BUCKET_KEY, ArgumentValue: v }, { message: 'The value of x-amz-server-side-encryption-bucket-key-enabled must be true or false.' });
  }
  return value === 'true';
}

/** AWS: the header is base64 of a UTF-8 JSON object whose values are strings. */
function parseContext(v: string): Record<string, string> {
  const invalid = () =>
    new S3Error('InvalidArgument', { ArgumentName: H_SSE_KMS_CONTEXT }, {
      message: 'The header \'x-amz-server-side-encryption-context\' shall be Base64-encoded UTF-8 string holding JSON which represents a string-string map',
    });
  const raw = Buffer.from(v, 'base64');
  if (raw.length === 0 || raw.toString('base64').replace(/=+$/, '') !== v.trim().replace(/=+$/, '')) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((x) => typeof x === 'string')) throw invalid();
  return parsed as Record<string, string>;
}

/** The key service, or NotImplemented when the server runs without one. */
function keyServiceOf(ctx: S3Context): KeyService {
  const kms = ctx.services.sse?.kms;
  if (!kms) throw new S3Error('NotImplemented', { Header: 'x-amz-server-side-encryption' }, { message: 'SSE-KMS (aws:kms) needs a key service, which this server does not run.' });
  return kms;
}

/**
 * The account whose keys a write may use: the caller's, or for an anonymous writer (a public
 * bucket) the bucket owner's.
 */
function accountOf(ctx: S3Context, bucket: S3Bucket): string {
  if (ctx.principal.kind === 'key') return ctx.principal.key.account.accountId;
  return ctx.services.accounts.byCanonicalId(bucket.owner)?.accountId ?? '';
}

/** A new data key for an object (or upload) `key` of `bucket`, and how it is recorded. */
export async function newKmsEncryption(ctx: S3Context, bucket: S3Bucket, key: string, request: KmsRequest, blockSize: number): Promise<{ encryption: UploadEncryption; dataKey: Buffer }> {
  const context: EncryptionContext = { [S3_ARN_CONTEXT]: `arn:aws:s3:::${bucket.name}/${key}`, ...request.context };
  const made = await kmsCall(() => keyServiceOf(ctx).generateDataKey(accountOf(ctx, bucket), request.keyRef, context));
  const encryption: UploadEncryption = {
    mode: 'SSE-KMS',
    blockSize,
    wrappedKey: made.ciphertext.toString('base64'),
    kmsKeyArn: made.keyArn,
    kmsContext: Buffer.from(JSON.stringify(context)).toString('base64'),
  };
  if (request.bucketKey) encryption.bucketKeyEnabled = true;
  return { encryption, dataKey: made.plaintext };
}

/** The data key of an SSE-KMS object or upload. */
export async function kmsDataKey(ctx: S3Context, e: UploadEncryption): Promise<Buffer> {
  const context = JSON.parse(Buffer.from(e.kmsContext!, 'base64').toString('utf8')) as EncryptionContext;
  return kmsCall(() => keyServiceOf(ctx).decrypt(e.kmsKeyArn!, Buffer.from(e.wrappedKey, 'base64'), context));
}

/** The SSE-KMS response headers of `e`; `withContext` on writes (PutObject, CopyObject, CreateMultipartUpload). */
export function kmsHeaders(e: UploadEncryption, withContext: boolean): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [['x-amz-server-side-encryption', AWS_KMS], [H_SSE_KMS_KEY_ID, e.kmsKeyArn!]];
  if (withContext) out.push([H_SSE_KMS_CONTEXT, e.kmsContext!]);
  if (e.bucketKeyEnabled) out.push([H_SSE_BUCKET_KEY, 'true']);
  return out;
}

/**
 * The key service's refusals as S3 answers them: S3 passes KMS's exception on with a `KMS.`
 * prefix and status 400 (e.g. "KMS.NotFoundException ... Invalid keyId", as aws-cli users see it;
 * MinIO and LocalStack answer the same), and a key of another account is AccessDenied.
 */
async function kmsCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof KmsError)) throw e;
    switch (e.kind) {
      case 'NotFound':
        throw new S3Error('KMS.NotFoundException', {}, { message: e.message });
      case 'Disabled':
        throw new S3Error('KMS.DisabledException', {}, { message: e.message });
      case 'PendingDeletion':
        throw new S3Error('KMS.KMSInvalidStateException', {}, { message: e.message });
      case 'AccessDenied':
        throw new S3Error('AccessDenied', {}, { message: e.message });
      default:
        // a stored data key that does not open: the server's fault (500, logged), never the client's
        throw new Error(`SSE-KMS: ${e.message}`);
    }
  }
}
