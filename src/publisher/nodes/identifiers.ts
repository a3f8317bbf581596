// Text forms of the 32-byte ids a node sees: blob ids (unpadded base64url, walrus.md §1) and Sui object
// ids (0x + 64 lower-case hex, walrus.md §9.4).

import { StorageNodeError } from './errors.js';

export const BLOB_ID_BYTES = 32;

const BLOB_ID_TEXT = /^[A-Za-z0-9_-]{43}$/;
const OBJECT_ID_TEXT = /^0x[0-9a-fA-F]{64}$/;

export function blobIdToText(blobId: Uint8Array): string {
  return Buffer.from(blobId.buffer, blobId.byteOffset, blobId.byteLength).toString('base64url');
}

/** Parses a blob id; parsing requires exactly 32 decoded bytes (walrus.md §1, `FromStr for BlobId`). */
export function blobIdFromText(text: string): Buffer {
  const bytes = BLOB_ID_TEXT.test(text) ? Buffer.from(text, 'base64url') : undefined;
  // 43 characters carry 258 bits: the last character's two low bits must be zero to be canonical.
  if (!bytes || bytes.length !== BLOB_ID_BYTES || bytes.toString('base64url') !== text) {
    throw new StorageNodeError('INVALID_BLOB_ID', JSON.stringify(text));
  }
  return bytes;
}

export function assertBlobId(blobId: Uint8Array): void {
  if (blobId.length !== BLOB_ID_BYTES) throw new StorageNodeError('INVALID_BLOB_ID', `${blobId.length} bytes`);
}

export function objectIdToBytes(objectId: string): Buffer {
  if (!OBJECT_ID_TEXT.test(objectId)) throw new StorageNodeError('INVALID_OBJECT_ID', JSON.stringify(objectId));
  return Buffer.from(objectId.slice(2), 'hex');
}

export function objectIdFromBytes(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}
