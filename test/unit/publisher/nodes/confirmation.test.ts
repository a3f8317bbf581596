import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { confirmationMessage, signConfirmation, verifyConfirmation } from '../../../../src/publisher/nodes/confirmation.js';
import { loadOrCreateNodeKey, NODE_KEY_FILE } from '../../../../src/publisher/nodes/node-key.js';
import { tempDir } from './helpers.js';

const blobId = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 0xa0));
const objectId = `0x${'11'.repeat(16)}${'ef'.repeat(16)}`;

describe('confirmation message (walrus.md §12.2)', () => {
  it('permanent: intent 01 00 03, epoch u32 LE, blob id, variant 0', () => {
    const msg = confirmationMessage({ epoch: 0x01020304, blobId, blobType: { kind: 'permanent' } });
    expect(msg.toString('hex')).toBe(`010003` + `04030201` + blobId.toString('hex') + `00`);
    expect(msg.length).toBe(40);
  });

  it('deletable: variant 1 followed by the 32-byte object id', () => {
    const msg = confirmationMessage({ epoch: 7, blobId, blobType: { kind: 'deletable', objectId } });
    expect(msg.toString('hex')).toBe(`010003` + `07000000` + blobId.toString('hex') + `01` + '11'.repeat(16) + 'ef'.repeat(16));
    expect(msg.length).toBe(72);
  });

  it('rejects epochs outside u32 and malformed ids', () => {
    expect(() => confirmationMessage({ epoch: 2 ** 32, blobId, blobType: { kind: 'permanent' } })).toThrow(RangeError);
    expect(() => confirmationMessage({ epoch: 1, blobId: blobId.subarray(1), blobType: { kind: 'permanent' } })).toThrow(/blob id/);
    expect(() => confirmationMessage({ epoch: 1, blobId, blobType: { kind: 'deletable', objectId: '0x12' } })).toThrow(/object id/);
  });
});

describe('node key and signatures', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('persists the key with mode 0600 and reloads the same identity', () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = loadOrCreateNodeKey(dir);
    expect(first.publicKeyRaw.length).toBe(32);
    const stat = fs.statSync(path.join(dir, NODE_KEY_FILE));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(loadOrCreateNodeKey(dir).publicKeyRaw.equals(first.publicKeyRaw)).toBe(true);
    const other = tempDir();
    dirs.push(other);
    expect(loadOrCreateNodeKey(other).publicKeyRaw.equals(first.publicKeyRaw)).toBe(false);
  });

  it('verifies a genuine confirmation and rejects tampering, other keys and other fields', async () => {
    const dir = tempDir();
    const otherDir = tempDir();
    dirs.push(dir, otherDir);
    const key = loadOrCreateNodeKey(dir);
    const other = loadOrCreateNodeKey(otherDir);
    const fields = { epoch: 3, blobId, blobType: { kind: 'deletable' as const, objectId } };
    const signed = await signConfirmation(key.privateKey, fields);
    expect(Buffer.from(signed.serializedMessage, 'base64').equals(confirmationMessage(fields))).toBe(true);
    expect(Buffer.from(signed.signature, 'base64').length).toBe(64);

    const pk = key.publicKeyRaw.toString('base64');
    expect(await verifyConfirmation(pk, fields, signed)).toBe(true);
    expect(await verifyConfirmation(key.publicKeyRaw, fields, signed)).toBe(true);
    expect(await verifyConfirmation(other.publicKeyRaw, fields, signed)).toBe(false);
    expect(await verifyConfirmation(pk, { ...fields, epoch: 4 }, signed)).toBe(false);
    expect(await verifyConfirmation(pk, { ...fields, blobType: { kind: 'permanent' } }, signed)).toBe(false);

    const sig = Buffer.from(signed.signature, 'base64');
    sig[5] ^= 1;
    expect(await verifyConfirmation(pk, fields, { ...signed, signature: sig.toString('base64') })).toBe(false);
    // A valid signature over a different message is still refused: the message must be the expected one.
    const forOtherEpoch = await signConfirmation(key.privateKey, { ...fields, epoch: 9 });
    expect(await verifyConfirmation(pk, fields, forOtherEpoch)).toBe(false);
    expect(await verifyConfirmation('not a key', fields, signed)).toBe(false);
  });
});
