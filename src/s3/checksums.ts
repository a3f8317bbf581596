// Content-MD5 and the flexible checksums (s3.md §3.0.2): which digests a request needs, header
// syntax, and verification against what the fused digest pass computed.

import type { ChecksumAlgorithm, StoredChecksum } from './object-attrs.js';
import { S3Error } from './errors/errors.js';

export const CHECKSUM_ALGORITHMS: readonly ChecksumAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'];
const DIGEST_BYTES: Record<ChecksumAlgorithm, number> = { CRC32: 4, CRC32C: 4, CRC64NVME: 8, SHA1: 20, SHA256: 32 };
/** checksum stored when the client sent none (s3.md §0.4 default_checksum) */
export const DEFAULT_CHECKSUM: ChecksumAlgorithm = 'CRC64NVME';

/** Digests of a body, big-endian bytes; MD5 is always computed (it is the ETag). */
export interface DigestSet {
  md5: Buffer;
  sha256?: Buffer;
  sha1?: Buffer;
  crc32?: Buffer;
  crc32c?: Buffer;
  crc64nvme?: Buffer;
}

export type DigestName = Exclude<keyof DigestSet, 'md5'>;

export function digestNameOf(alg: ChecksumAlgorithm): DigestName {
  return alg.toLowerCase() as DigestName;
}

export function headerNameOf(alg: ChecksumAlgorithm): string {
  return `x-amz-checksum-${alg.toLowerCase()}`;
}

function algorithmOfHeader(name: string): ChecksumAlgorithm | undefined {
  return CHECKSUM_ALGORITHMS.find((a) => headerNameOf(a) === name);
}

export interface ChecksumPlan {
  /** the client's algorithm, from a header, the trailer, or x-amz-sdk-checksum-algorithm */
  algorithm?: ChecksumAlgorithm;
  /** base64 value from a header; undefined when it comes in the trailer */
  expected?: string;
  /** the checksum arrives as the aws-chunked trailer of this name */
  trailer?: string;
  /** 16-byte MD5 from Content-MD5 */
  contentMd5?: Buffer;
}

function isBase64Of(value: string, bytes: number): boolean {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  return Buffer.from(value, 'base64').length === bytes;
}

function parseAlgorithmName(value: string, header: string): ChecksumAlgorithm {
  const alg = CHECKSUM_ALGORITHMS.find((a) => a === value.trim().toUpperCase());
  if (!alg) throw new S3Error('InvalidRequest', {}, { message: `Value for ${header} header is invalid.` });
  return alg;
}

/** An `x-amz-checksum-<algorithm>` header (a checksum value), not one of the family's settings. */
function isChecksumValueHeader(name: string): boolean {
  return name.startsWith('x-amz-checksum-') && name !== 'x-amz-checksum-mode' && name !== 'x-amz-checksum-type' && name !== 'x-amz-checksum-algorithm';
}

/**
 * CompleteMultipartUpload's `x-amz-checksum-*` headers, checked for form before anything else (as S3
 * does): the algorithm's digest in base64, with COMPOSITE's `-N` part count allowed.
 */
export function checkCompleteChecksumHeaders(headers: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(headers)) {
    if (!isChecksumValueHeader(name)) continue;
    const alg = algorithmOfHeader(name);
    const value = headers[name]!.trim().replace(/-\d+$/, '');
    if (!alg || !isBase64Of(value, DIGEST_BYTES[alg])) throw new S3Error('InvalidRequest', {}, { message: `Value for ${name} header is invalid.` });
  }
}

/** Reads Content-MD5, x-amz-checksum-*, x-amz-sdk-checksum-algorithm and x-amz-trailer; throws on bad syntax. */
export function planChecksums(headers: Readonly<Record<string, string>>, trailer: string | undefined): ChecksumPlan {
  const plan: ChecksumPlan = {};
  const md5 = headers['content-md5'];
  if (md5 !== undefined) {
    if (!isBase64Of(md5.trim(), 16)) throw new S3Error('InvalidDigest', { 'Content-MD5': md5 });
    plan.contentMd5 = Buffer.from(md5.trim(), 'base64');
  }
  const found: ChecksumAlgorithm[] = [];
  for (const name of Object.keys(headers)) {
    if (!isChecksumValueHeader(name)) continue;
    const alg = algorithmOfHeader(name);
    if (!alg) throw new S3Error('InvalidRequest', {}, { message: `Value for ${name} header is invalid.` });
    const value = headers[name]!.trim();
    if (!isBase64Of(value, DIGEST_BYTES[alg])) {
      throw new S3Error('InvalidRequest', {}, { message: `Value for ${name} header is invalid.` });
    }
    found.push(alg);
    plan.algorithm = alg;
    plan.expected = value;
  }
  if (trailer !== undefined) {
    const alg = algorithmOfHeader(trailer.trim().toLowerCase());
    if (!alg) throw new S3Error('InvalidRequest', {}, { message: `Value for x-amz-trailer header is invalid.` });
    found.push(alg);
    plan.algorithm = alg;
    plan.trailer = headerNameOf(alg);
  }
  if (found.length > 1) {
    throw new S3Error('InvalidRequest', {}, {
      message: 'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
    });
  }
  const sdk = headers['x-amz-sdk-checksum-algorithm'];
  if (sdk !== undefined) {
    const alg = parseAlgorithmName(sdk, 'x-amz-sdk-checksum-algorithm');
    if (!plan.algorithm) {
      throw new S3Error('InvalidRequest', {}, {
        message:
          'x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.',
      });
    }
    if (plan.algorithm !== alg) {
      throw new S3Error('InvalidRequest', {}, { message: 'Value for x-amz-sdk-checksum-algorithm header is invalid.' });
    }
  }
  return plan;
}

/** Which optional digests the fused pass must compute for this plan (MD5 always). */
export function digestsNeeded(plan: ChecksumPlan, payloadSha256: boolean, fallback = DEFAULT_CHECKSUM): Set<DigestName> {
  const need = new Set<DigestName>([digestNameOf(plan.algorithm ?? fallback)]);
  if (payloadSha256) need.add('sha256');
  return need;
}

/**
 * Verifies Content-MD5 and the checksum (header or the trailer's value) and returns the checksum
 * to store: the client's, or `fallback` (the default one) computed by the server.
 */
export function verifyChecksums(
  plan: ChecksumPlan,
  digests: DigestSet,
  trailers: Record<string, string>,
  fallback = DEFAULT_CHECKSUM,
): StoredChecksum {
  if (plan.contentMd5 && !plan.contentMd5.equals(digests.md5)) {
    throw new S3Error('BadDigest', {
      CalculatedDigest: digests.md5.toString('base64'),
      ExpectedDigest: plan.contentMd5.toString('base64'),
    });
  }
  const alg = plan.algorithm ?? fallback;
  const computed = digests[digestNameOf(alg)];
  if (!computed) throw new Error(`digest ${alg} was not computed`);
  const value = computed.toString('base64');
  if (plan.algorithm) {
    let expected = plan.expected;
    if (plan.trailer !== undefined) {
      expected = trailers[plan.trailer];
      if (expected === undefined || !isBase64Of(expected, DIGEST_BYTES[alg])) throw new S3Error('MalformedTrailerError');
    }
    if (expected !== value) {
      throw new S3Error('BadDigest', {}, { message: `The ${alg} you specified did not match the calculated checksum.` });
    }
  }
  return { algorithm: alg, value, type: 'FULL_OBJECT' };
}
