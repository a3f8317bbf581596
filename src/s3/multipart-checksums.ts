// The checksum of a multipart upload (s3.md §3.20, §3.23): which algorithm and type an upload was
// created with, and the object checksum S3 derives at Complete from the parts' checksums —
// COMPOSITE = digest of the concatenated part digests + "-N"; FULL_OBJECT = the parts' CRCs
// combined (no byte is read again).

import { checksumBytes, DIGEST, digestSync } from '../native/native.js';
import { CHECKSUM_ALGORITHMS } from './checksums.js';
import { CRC32_MODEL, CRC32C_MODEL, CRC64NVME_MODEL, crcCombine, type CrcModel } from '../base/crc-combine.js';
import { S3Error } from './errors/errors.js';
import type { ChecksumAlgorithm, StoredChecksum } from './object-attrs.js';

export type ChecksumType = StoredChecksum['type'];

export interface UploadChecksum {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
}

const CRC_MODELS: Partial<Record<ChecksumAlgorithm, CrcModel>> = {
  CRC32: CRC32_MODEL,
  CRC32C: CRC32C_MODEL,
  CRC64NVME: CRC64NVME_MODEL,
};

/** Types each algorithm allows, the default first (s3.md §3.20). */
const ALLOWED_TYPES: Record<ChecksumAlgorithm, readonly ChecksumType[]> = {
  CRC32: ['COMPOSITE', 'FULL_OBJECT'],
  CRC32C: ['COMPOSITE', 'FULL_OBJECT'],
  CRC64NVME: ['FULL_OBJECT'],
  SHA1: ['COMPOSITE'],
  SHA256: ['COMPOSITE'],
};

function invalid(message: string): S3Error {
  return new S3Error('InvalidRequest', {}, { message });
}

/** `x-amz-checksum-type` alone, validated; undefined when absent. */
export function parseChecksumType(headers: Readonly<Record<string, string>>): ChecksumType | undefined {
  const raw = headers['x-amz-checksum-type'];
  if (raw === undefined) return undefined;
  const t = raw.trim().toUpperCase();
  if (t !== 'COMPOSITE' && t !== 'FULL_OBJECT') throw invalid('Value for x-amz-checksum-type header is invalid.');
  return t;
}

/** `x-amz-checksum-algorithm` and `x-amz-checksum-type` of CreateMultipartUpload (s3.md §3.20). */
export function parseUploadChecksum(headers: Readonly<Record<string, string>>): UploadChecksum | undefined {
  const rawAlg = headers['x-amz-checksum-algorithm'];
  const type = parseChecksumType(headers);
  if (rawAlg === undefined) {
    if (type !== undefined) throw invalid('The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.');
    return undefined;
  }
  const algorithm = CHECKSUM_ALGORITHMS.find((a) => a === rawAlg.trim().toUpperCase());
  if (!algorithm) throw invalid('Checksum algorithm provided is unsupported.');
  const allowed = ALLOWED_TYPES[algorithm];
  if (type !== undefined && !allowed.includes(type)) {
    throw invalid(`The ${type} checksum type cannot be used with the ${algorithm.toLowerCase()} checksum algorithm.`);
  }
  return { algorithm, type: type ?? allowed[0]! };
}

const DIGEST_BITS: Record<ChecksumAlgorithm, number> = {
  CRC32: DIGEST.CRC32,
  CRC32C: DIGEST.CRC32C,
  CRC64NVME: DIGEST.CRC64NVME,
  SHA1: DIGEST.SHA1,
  SHA256: DIGEST.SHA256,
};

function digestOf(algorithm: ChecksumAlgorithm, data: Buffer): Buffer {
  const d = digestSync(data, DIGEST_BITS[algorithm]);
  switch (algorithm) {
    case 'CRC32': return checksumBytes(d.crc32!);
    case 'CRC32C': return checksumBytes(d.crc32c!);
    case 'CRC64NVME': return checksumBytes(d.crc64nvme!);
    case 'SHA1': return d.sha1!;
    case 'SHA256': return d.sha256!;
  }
}

export interface PartDigest {
  size: number;
  /** base64 of the part's digest in the upload's algorithm */
  value: string;
}

/** The object checksum of an upload from its chosen parts' checksums, in part order. */
export function objectChecksumOf(upload: UploadChecksum, parts: readonly PartDigest[]): StoredChecksum {
  if (upload.type === 'COMPOSITE') {
    const joined = Buffer.concat(parts.map((p) => Buffer.from(p.value, 'base64')));
    const value = `${digestOf(upload.algorithm, joined).toString('base64')}-${parts.length}`;
    return { algorithm: upload.algorithm, value, type: 'COMPOSITE' };
  }
  const model = CRC_MODELS[upload.algorithm];
  if (!model) throw new Error(`${upload.algorithm} has no full-object combination`);
  let crc: bigint | undefined;
  for (const p of parts) {
    const partCrc = BigInt(`0x${Buffer.from(p.value, 'base64').toString('hex')}`);
    crc = crc === undefined ? partCrc : crcCombine(model, crc, partCrc, p.size);
  }
  const bytes = model.width / 8;
  const hex = (crc ?? BigInt(`0x${digestOf(upload.algorithm, Buffer.alloc(0)).toString('hex')}`)).toString(16).padStart(bytes * 2, '0');
  return { algorithm: upload.algorithm, value: Buffer.from(hex, 'hex').toString('base64'), type: 'FULL_OBJECT' };
}
