// A storage node's Ed25519 identity: created on first start, kept as PKCS#8 PEM (mode 0600) in the
// node's directory so that its public key survives restarts.

import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const NODE_KEY_FILE = 'node-key.pem';

export interface NodeKey {
  privateKey: KeyObject;
  /** raw 32-byte Ed25519 public key */
  publicKeyRaw: Buffer;
}

export function loadOrCreateNodeKey(dir: string): NodeKey {
  const file = path.join(dir, NODE_KEY_FILE);
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    // Write-then-rename so a crash never leaves a truncated key behind.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, pem, { mode: 0o600, flag: 'w' });
    const fd = fs.openSync(tmp, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
  }
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 private key`);
  return { privateKey, publicKeyRaw: rawPublicKey(createPublicKey(privateKey)) };
}

export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new RangeError(`an Ed25519 public key is 32 bytes, got ${raw.length}`);
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}
