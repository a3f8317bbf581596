// The storage confirmation a node signs per blob (walrus.md §12.2): BCS of {intent, epoch, blob_id,
// blob_type}, signed with the node's Ed25519 key (Walrus uses BLS; the message layout is kept).

import { sign, verify, type KeyObject } from 'node:crypto';
import { assertBlobId, objectIdToBytes } from './identifiers.js';
import { publicKeyFromRaw } from './node-key.js';
import type { BlobType, SignedConfirmation } from './types.js';

/** Intent: type 1 = BLOB_CERT_MSG, version 0, app id 3 = STORAGE. */
export const CONFIRMATION_INTENT = [1, 0, 3] as const;
const BLOB_TYPE_PERMANENT = 0;
const BLOB_TYPE_DELETABLE = 1;

export interface ConfirmationFields {
  epoch: number;
  blobId: Buffer;
  blobType: BlobType;
}

export function confirmationMessage({ epoch, blobId, blobType }: ConfirmationFields): Buffer {
  assertBlobId(blobId);
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > 0xffff_ffff) throw new RangeError(`epoch ${epoch} is not a u32`);
  const deletable = blobType.kind === 'deletable';
  const out = Buffer.alloc(3 + 4 + 32 + 1 + (deletable ? 32 : 0));
  out.set(CONFIRMATION_INTENT, 0);
  out.writeUInt32LE(epoch, 3);
  blobId.copy(out, 7);
  out[39] = deletable ? BLOB_TYPE_DELETABLE : BLOB_TYPE_PERMANENT;
  if (deletable) objectIdToBytes(blobType.objectId).copy(out, 40);
  return out;
}

/** Signs in the thread pool (node:crypto's callback form): a publish collects ten at once. */
export async function signConfirmation(privateKey: KeyObject, fields: ConfirmationFields): Promise<SignedConfirmation> {
  const message = confirmationMessage(fields);
  const signature = await new Promise<Buffer>((resolve, reject) => sign(null, message, privateKey, (e, s) => (e ? reject(e) : resolve(s))));
  return { serializedMessage: message.toString('base64'), signature: signature.toString('base64') };
}

/**
 * True when `confirmation` carries exactly the message for `expected` and a valid signature by
 * `publicKey` (raw 32 bytes, or its base64); checked in the thread pool. Never rejects on malformed input.
 */
export async function verifyConfirmation(
  publicKey: string | Uint8Array,
  expected: ConfirmationFields,
  confirmation: SignedConfirmation,
): Promise<boolean> {
  try {
    const key = publicKeyFromRaw(typeof publicKey === 'string' ? Buffer.from(publicKey, 'base64') : publicKey);
    const message = Buffer.from(confirmation.serializedMessage, 'base64');
    if (!message.equals(confirmationMessage(expected))) return false;
    const signature = Buffer.from(confirmation.signature, 'base64');
    return await new Promise<boolean>((resolve) => verify(null, message, key, signature, (e, ok) => resolve(!e && ok)));
  } catch {
    return false;
  }
}
