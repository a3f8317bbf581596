// The KMS master key: it encrypts the customer keys' material in <data-dir>/kms-keys.json, so a
// copy of the data directory alone decrypts no SSE-KMS object. From, in order: TUSK_KMS_MASTER_KEY
// (base64 of 32 bytes), --kms-master-key-file FILE (32 bytes; created at first start when absent),
// else <data-dir>/kms-master.key, created at first start: a file of its own, to be moved out of the
// data directory (docs/KMS.md). A key store never gets a new master key: its keys would be lost.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import { writeFileDurably } from '../base/durable-file.js';

export const KMS_MASTER_KEY_FILE = 'kms-master.key';
export const KMS_MASTER_KEY_ENV = 'TUSK_KMS_MASTER_KEY';
const KEY_BYTES = 32;

export interface KmsMasterKeySource {
  dataDir: string;
  /** --kms-master-key-file */
  file?: string;
  /** TUSK_KMS_MASTER_KEY (base64) */
  base64?: string;
}

export interface KmsMasterKey {
  key: Buffer;
  /** where it came from, for the start-up log */
  from: string;
  /** true when the key sits in the data directory (a start-up warning) */
  inDataDir: boolean;
}

/** The master key; `storeExists` (keys already sealed) forbids making a new one. */
export function loadKmsMasterKey(source: KmsMasterKeySource, storeExists: boolean): KmsMasterKey {
  if (source.base64 !== undefined) {
    const key = Buffer.from(source.base64, 'base64');
    if (key.length !== KEY_BYTES || key.toString('base64') !== source.base64.trim()) {
      throw new Error(`${KMS_MASTER_KEY_ENV}: expected the base64 of ${KEY_BYTES} bytes (e.g. openssl rand -base64 32)`);
    }
    return { key, from: KMS_MASTER_KEY_ENV, inDataDir: false };
  }
  const path = source.file ?? join(source.dataDir, KMS_MASTER_KEY_FILE);
  const inside = relative(source.dataDir, path);
  const inDataDir = !inside.startsWith('..') && !isAbsolute(inside);
  if (existsSync(path)) {
    const key = readFileSync(path);
    if (key.length !== KEY_BYTES) throw new Error(`${path}: the KMS master key must be ${KEY_BYTES} bytes, found ${key.length}`);
    return { key, from: path, inDataDir };
  }
  if (storeExists) {
    throw new Error(`the KMS master key ${path} is missing, and the key store holds keys sealed under it: give its file (--kms-master-key-file) or ${KMS_MASTER_KEY_ENV}`);
  }
  const key = randomBytes(KEY_BYTES);
  writeFileDurably(path, key, 0o600);
  return { key, from: `${path} (created)`, inDataDir };
}
