// Keys of encryption at rest: the master key (created on first start, mode 0600, in the data
// directory) and per-object data keys, stored wrapped (AES-256-GCM) by the master key (SSE-S3)
// or by the customer's key (SSE-C).

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const MASTER_KEY_FILE = 'sse-master.key';
export const KEY_BYTES = 32;
const WRAP_IV = 12;
const WRAP_TAG = 16;
const WRAP_AAD = Buffer.from('tusk-sse-data-key-v1');

/** Reads the master key, creating it (32 random bytes, mode 0600) when there is none. */
export function loadOrCreateMasterKey(dataDir: string): Buffer {
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    const key = readFileSync(path);
    if (key.length !== KEY_BYTES) throw new Error(`${path}: expected ${KEY_BYTES} bytes, found ${key.length}`);
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const key = randomBytes(KEY_BYTES);
  // 'wx': never overwrite a key that appeared meanwhile; objects sealed under it would be lost
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, key);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return key;
}

export function newDataKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/** iv ‖ wrapped key ‖ tag */
export function wrapKey(wrappingKey: Buffer, dataKey: Buffer): Buffer {
  const iv = randomBytes(WRAP_IV);
  const cipher = createCipheriv('aes-256-gcm', wrappingKey, iv);
  cipher.setAAD(WRAP_AAD);
  return Buffer.concat([iv, cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
}

/** The data key, or undefined when `wrappingKey` is not the key it was wrapped with. */
export function unwrapKey(wrappingKey: Buffer, wrapped: Buffer): Buffer | undefined {
  if (wrapped.length !== WRAP_IV + KEY_BYTES + WRAP_TAG) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', wrappingKey, wrapped.subarray(0, WRAP_IV));
  decipher.setAAD(WRAP_AAD);
  decipher.setAuthTag(wrapped.subarray(WRAP_IV + KEY_BYTES));
  try {
    return Buffer.concat([decipher.update(wrapped.subarray(WRAP_IV, WRAP_IV + KEY_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
