// The built-in key service: names (id, ARN, alias), states, rotation, the master key kept apart,
// and that what it persists opens again in a new process (a new registry over the same files).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultKeyId, KeyRegistry, KMS_KEYS_FILE } from '../../../src/kms/key-registry.js';
import { KMS_MASTER_KEY_FILE } from '../../../src/kms/master-key.js';

const A = '111111111111';
const B = '222222222222';
const REGION = 'us-east-1';

describe('KeyRegistry', () => {
  let dir: string;
  let now = Date.parse('2026-01-01T00:00:00Z');
  const open = (master: { file?: string; base64?: string } = {}) => KeyRegistry.open({ dataDir: dir, region: REGION, master, now: () => now }).registry;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tusk-kms-'));
    now = Date.parse('2026-01-01T00:00:00Z');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names a key by id, ARN, alias and alias ARN; a data key decrypts only with its context', async () => {
    const kms = open();
    const key = kms.create(A, { description: 'logs' });
    expect(key.KeyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(key.Arn).toBe(`arn:aws:kms:${REGION}:${A}:key/${key.KeyId}`);
    kms.putAlias(A, 'alias/logs', key.KeyId);
    const ctx = { 'aws:s3:arn': 'arn:aws:s3:::b/k' };
    for (const ref of [key.KeyId, key.Arn, 'alias/logs', `arn:aws:kms:${REGION}:${A}:alias/logs`]) {
      const dk = await kms.generateDataKey(A, ref, ctx);
      expect(dk.keyArn).toBe(key.Arn);
      expect(await kms.decrypt(dk.keyArn, dk.ciphertext, ctx)).toEqual(dk.plaintext);
      await expect(kms.decrypt(dk.keyArn, dk.ciphertext, { 'aws:s3:arn': 'arn:aws:s3:::b/other' })).rejects.toMatchObject({ kind: 'Invalid' });
    }
    expect(kms.describe('alias/logs', A).Aliases).toEqual(['alias/logs']);
  });

  it('refuses unknown keys and other accounts\' keys; a bare id resolves in the caller\'s account', async () => {
    const kms = open();
    const key = kms.create(A);
    await expect(kms.generateDataKey(A, 'no-such-key', {})).rejects.toMatchObject({ kind: 'NotFound', message: 'Invalid keyId no-such-key' });
    await expect(kms.generateDataKey(A, 'alias/none', {})).rejects.toMatchObject({ kind: 'NotFound' });
    await expect(kms.generateDataKey(B, key.KeyId, {})).rejects.toMatchObject({ kind: 'NotFound' });
    await expect(kms.generateDataKey(B, key.Arn, {})).rejects.toMatchObject({ kind: 'AccessDenied' });
    await expect(kms.generateDataKey(A, `arn:aws:kms:eu-west-1:${A}:key/${key.KeyId}`, {})).rejects.toMatchObject({ kind: 'NotFound' });
    // the check can pass
    await expect(kms.generateDataKey(A, key.Arn, {})).resolves.toMatchObject({ keyArn: key.Arn });
  });

  it('gives each account a default key (alias/aws/s3) that is always enabled and cannot be changed', async () => {
    const kms = open();
    const a = await kms.generateDataKey(A, undefined, {});
    const b = await kms.generateDataKey(B, undefined, {});
    expect(a.keyArn).toBe(`arn:aws:kms:${REGION}:${A}:key/${defaultKeyId(A)}`);
    expect(b.keyArn).not.toBe(a.keyArn);
    expect(await kms.decrypt(a.keyArn, a.ciphertext, {})).toEqual(a.plaintext);
    expect(kms.describe('alias/aws/s3', A)).toMatchObject({ KeyManager: 'AWS', KeyState: 'Enabled' });
    expect(() => kms.setEnabled('alias/aws/s3', A, false)).toThrow(/AWS managed/);
    expect(() => kms.putAlias(A, 'alias/aws/mine', (kms.create(A)).KeyId)).toThrow(/alias\/aws/);
  });

  it('a disabled key neither encrypts nor decrypts until enabled; pending deletion likewise, then the key is gone', async () => {
    const kms = open();
    const key = kms.create(A);
    const dk = await kms.generateDataKey(A, key.KeyId, {});
    kms.setEnabled(key.KeyId, A, false);
    await expect(kms.generateDataKey(A, key.KeyId, {})).rejects.toMatchObject({ kind: 'Disabled', message: `${key.Arn} is disabled.` });
    await expect(kms.decrypt(key.Arn, dk.ciphertext, {})).rejects.toMatchObject({ kind: 'Disabled' });
    kms.setEnabled(key.KeyId, A, true);
    expect(await kms.decrypt(key.Arn, dk.ciphertext, {})).toEqual(dk.plaintext);

    expect(() => kms.scheduleDeletion(key.KeyId, A, 6)).toThrow(/7 to 30/);
    expect(kms.scheduleDeletion(key.KeyId, A, 7)).toMatchObject({ KeyState: 'PendingDeletion', DeletionDate: '2026-01-08T00:00:00.000Z' });
    await expect(kms.decrypt(key.Arn, dk.ciphertext, {})).rejects.toMatchObject({ kind: 'PendingDeletion' });
    expect(kms.cancelDeletion(key.KeyId, A).KeyState).toBe('Disabled');
    kms.setEnabled(key.KeyId, A, true);
    expect(await kms.decrypt(key.Arn, dk.ciphertext, {})).toEqual(dk.plaintext);

    kms.putAlias(A, 'alias/gone', key.KeyId);
    kms.scheduleDeletion(key.KeyId, A, 7);
    now += 7 * 86_400_000;
    await expect(kms.decrypt(key.Arn, dk.ciphertext, {})).rejects.toMatchObject({ kind: 'NotFound' });
    expect(kms.list(A)).toEqual([]);
    kms.create(A); // a write purges the deleted key's material and its aliases from the file
    const file = JSON.parse(readFileSync(join(dir, KMS_KEYS_FILE), 'utf8')) as { keys: Array<{ id: string }>; aliases: unknown[] };
    expect(file.keys.map((k) => k.id)).not.toContain(key.KeyId);
    expect(file.aliases).toEqual([]);
  });

  it('rotation keeps every version: old data keys decrypt, new ones use the newest version', async () => {
    const kms = open();
    const key = kms.create(A, { id: 'testkey-1' });
    expect(key.Arn).toBe(`arn:aws:kms:${REGION}:${A}:key/testkey-1`);
    const before = await kms.generateDataKey(A, 'testkey-1', {});
    expect(kms.rotate('testkey-1', A).KeyVersions).toBe(2);
    const after = await kms.generateDataKey(A, 'testkey-1', {});
    expect(after.ciphertext.readUInt32BE(1)).toBe(1);
    expect(before.ciphertext.readUInt32BE(1)).toBe(0);
    // a new process over the same files
    const again = open();
    expect(await again.decrypt(key.Arn, before.ciphertext, {})).toEqual(before.plaintext);
    expect(await again.decrypt(key.Arn, after.ciphertext, {})).toEqual(after.plaintext);
    expect(() => again.create(A, { id: 'testkey-1' })).toThrow(/exists/);
    expect(() => again.create(A, { id: 'bad/id' })).toThrow(/key id/);
  });

  it('keeps the material sealed under the master key, and refuses another master key or a lost one', async () => {
    const masterFile = join(dir, '..', `${dir.split('/').pop()}-master.key`);
    try {
      const kms = open({ file: masterFile });
      const key = kms.create(A);
      const text = readFileSync(join(dir, KMS_KEYS_FILE), 'utf8');
      expect(readFileSync(masterFile)).toHaveLength(32);
      expect(text).not.toContain(readFileSync(masterFile).toString('base64'));
      expect(() => open({ base64: Buffer.alloc(32, 7).toString('base64') })).toThrow(/another KMS master key/);
      expect(() => open({ base64: 'short' })).toThrow(/32 bytes/);
      // without its master key file the store does not start with a new one
      expect(() => open()).toThrow(/missing/);
      writeFileSync(join(dir, KMS_MASTER_KEY_FILE), readFileSync(masterFile));
      expect(open().describe(key.KeyId, A).KeyState).toBe('Enabled');
    } finally {
      rmSync(masterFile, { force: true });
    }
  });

  it('a registry sees another thread\'s changes when the shared counter moves', async () => {
    const generation = new Int32Array(new SharedArrayBuffer(4));
    const writer = KeyRegistry.open({ dataDir: dir, region: REGION, master: {}, generation }).registry;
    const reader = KeyRegistry.open({ dataDir: dir, region: REGION, master: {}, generation }).registry;
    const key = writer.create(A);
    const dk = await reader.generateDataKey(A, key.KeyId, {});
    writer.setEnabled(key.KeyId, A, false);
    await expect(reader.decrypt(key.Arn, dk.ciphertext, {})).rejects.toMatchObject({ kind: 'Disabled' });
  });
});
