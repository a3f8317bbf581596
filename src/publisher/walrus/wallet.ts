// The publisher's Sui wallet, as the Sui and Walrus CLIs keep it: a `client.yaml` naming a keystore
// file (`keystore: { File: … }`) and an `active_address`, or the `sui.keystore` itself — a JSON
// list of keys, each base64 of a scheme flag byte and the 32-byte secret (sui keytool), or a
// Bech32 `suiprivkey…` string.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeSuiPrivateKey, type Keypair } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { parse as parseYaml } from 'yaml';
import { YAML_STRINGS } from '../../config/walrus-network.js';

const SCHEMES: Record<number, (secret: Uint8Array) => Keypair> = {
  0: (s) => Ed25519Keypair.fromSecretKey(s),
  1: (s) => Secp256k1Keypair.fromSecretKey(s),
  2: (s) => Secp256r1Keypair.fromSecretKey(s),
};
const FLAG_OF: Record<string, number> = { ED25519: 0, Secp256k1: 1, Secp256r1: 2 };

/** The key of `address` (default: the client.yaml's active address, else the keystore's first key). */
export function loadWallet(walletPath: string, address?: string): Keypair {
  const { keystore, activeAddress } = locateKeystore(walletPath);
  const keys = readKeystore(keystore);
  if (keys.length === 0) throw new Error(`wallet: ${keystore} holds no key`);
  const wanted = address ?? activeAddress;
  if (wanted === undefined) return keys[0]!;
  const key = keys.find((k) => k.toSuiAddress() === wanted.toLowerCase());
  if (!key) throw new Error(`wallet: ${keystore} holds no key for ${wanted}`);
  return key;
}

function locateKeystore(walletPath: string): { keystore: string; activeAddress?: string } {
  const text = read(walletPath);
  if (text.trimStart().startsWith('[')) return { keystore: walletPath };
  let doc: Record<string, unknown>;
  try {
    doc = parseYaml(text, YAML_STRINGS) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`wallet: ${walletPath} is neither a Sui keystore nor a client.yaml: ${(e as Error).message}`);
  }
  const file = (doc?.keystore as { File?: unknown } | undefined)?.File;
  if (typeof file !== 'string') throw new Error(`wallet: ${walletPath} names no keystore file (keystore: File: …)`);
  const activeAddress = typeof doc.active_address === 'string' ? doc.active_address.toLowerCase() : undefined;
  return { keystore: path.resolve(path.dirname(walletPath), file), activeAddress };
}

function readKeystore(file: string): Keypair[] {
  let entries: unknown;
  try {
    entries = JSON.parse(read(file));
  } catch (e) {
    throw new Error(`wallet: ${file} is not a Sui keystore (a JSON list of keys): ${(e as Error).message}`);
  }
  if (!Array.isArray(entries)) throw new Error(`wallet: ${file} is not a Sui keystore (a JSON list of keys)`);
  return entries.map((entry, i) => {
    if (typeof entry !== 'string') throw new Error(`wallet: ${file}: key ${i} is not a string`);
    if (entry.startsWith('suiprivkey')) {
      const { scheme, secretKey } = decodeSuiPrivateKey(entry);
      return keypairOf(FLAG_OF[scheme] ?? -1, secretKey, file, i);
    }
    const bytes = Buffer.from(entry, 'base64');
    if (bytes.length !== 33) throw new Error(`wallet: ${file}: key ${i} is not a flag byte and a 32-byte secret`);
    return keypairOf(bytes[0]!, bytes.subarray(1), file, i);
  });
}

function keypairOf(flag: number, secret: Uint8Array, file: string, i: number): Keypair {
  const make = SCHEMES[flag];
  if (!make) throw new Error(`wallet: ${file}: key ${i} has signature scheme flag ${flag}; Ed25519, Secp256k1 and Secp256r1 keys are supported`);
  return make(secret);
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`wallet: cannot read ${file}: ${(e as Error).message}`);
  }
}
