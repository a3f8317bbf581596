// Identifiers (walrus.md §9.4): object ids and addresses are 0x + 64 lower-case hex; transaction
// digests are 32 bytes in Base58; blob ids are 32 bytes in unpadded base64url (walrus.md §1).
//
// Digests use SHA-256 from node:crypto. Sui and Walrus hash with BLAKE2b-256, but these digests
// are Tusk's own (nothing outside Tusk recomputes them), and SHA-256 needs no extra dependency.

import { createHash, randomBytes } from 'node:crypto';
import { base58Decode, base58Encode } from './base58.js';
import { canonicalJson } from './canonical-json.js';
import { LedgerError } from './errors.js';

const OBJECT_ID_PATTERN = /^0x[0-9a-fA-F]{64}$/;
const BLOB_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Domain-separation prefixes: a transaction body, its effects and an object id never share a preimage. */
const TX_DOMAIN = 'tusk-ledger/tx/v1\n';
const EFFECTS_DOMAIN = 'tusk-ledger/effects/v1\n';
const OBJECT_ID_DOMAIN = 'tusk-ledger/object-id/v1\n';

/** The `prevDigest` of the first transaction: 32 zero bytes. */
export const ZERO_DIGEST = base58Encode(new Uint8Array(32));

export function txDigestOf(body: unknown): string {
  return base58Encode(sha256(TX_DOMAIN + canonicalJson(body)));
}

export function effectsDigestOf(effects: unknown): string {
  return base58Encode(sha256(EFFECTS_DOMAIN + canonicalJson(effects)));
}

/** Object id of the `index`-th object a transaction creates: SHA-256(domain ‖ digest bytes ‖ u64le index). */
export function deriveObjectId(txDigest: string, index: number): string {
  const digest = base58Decode(txDigest);
  if (digest?.length !== 32) throw new TypeError(`not a transaction digest: ${txDigest}`);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64LE(BigInt(index));
  const hash = createHash('sha256').update(OBJECT_ID_DOMAIN).update(digest).update(counter).digest('hex');
  return `0x${hash}`;
}

export function isTxDigest(text: string): boolean {
  return text.length <= 44 && base58Decode(text)?.length === 32;
}

/** Validates an address or object id and returns it in its canonical lower-case form. */
export function normalizeAddress(text: string): string {
  if (!OBJECT_ID_PATTERN.test(text)) throw new LedgerError('InvalidAddress', { address: text });
  return text.toLowerCase();
}

export function isObjectId(text: string): boolean {
  return OBJECT_ID_PATTERN.test(text);
}

/** Blob ids are exactly 32 bytes, so 43 base64url characters whose last one carries no stray bits. */
export function assertBlobId(text: string): void {
  if (!BLOB_ID_PATTERN.test(text) || Buffer.from(text, 'base64url').toString('base64url') !== text) {
    throw new LedgerError('InvalidBlobId', { blobId: text });
  }
}

export function randomAddress(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

function sha256(text: string): Uint8Array {
  return createHash('sha256').update(text, 'utf8').digest();
}
