// `--network` and the wallet: the Walrus client config file's two shapes (flat, and contexts with a
// default_context), a Sui client.yaml naming the keystore and the active address, and the keystore's
// key encodings (base64 flag + secret, Bech32 suiprivkey).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWalrusBackend } from '../../../../src/publisher/walrus/load-backend.js';
import { parseNetwork } from '../../../../src/config/walrus-network.js';
import { loadWallet } from '../../../../src/publisher/walrus/wallet.js';

const SYSTEM = `0x${'11'.repeat(32)}`;
const STAKING = `0x${'22'.repeat(32)}`;
let dir: string | undefined;

afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tmp(): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-network-config-'));
  return dir;
}

/** A Sui keystore entry: base64 of the scheme flag and the 32-byte secret, as `sui keytool` writes it. */
function keystoreEntry(flag: number, secret: Uint8Array): string {
  return Buffer.concat([Buffer.from([flag]), secret]).toString('base64');
}

describe('--network', () => {
  it('embedded is the default shape; testnet and mainnet carry the published object ids and RPC', () => {
    expect(parseNetwork({ network: 'embedded' })).toEqual({ kind: 'embedded' });
    const testnet = parseNetwork({ network: 'testnet', wallet: '/w/client.yaml' });
    expect(testnet).toMatchObject({
      kind: 'walrus',
      name: 'testnet',
      systemObjectId: '0x6c2547cbbc38025cf3adac45f63cb0a8d12ecf777cdc75a4971612bf97fdf6af',
      rpcUrl: 'https://fullnode.testnet.sui.io:443',
      walletPath: '/w/client.yaml',
    });
    expect(parseNetwork({ network: 'mainnet', suiRpc: 'http://127.0.0.1:9/' })).toMatchObject({ name: 'mainnet', rpcUrl: 'http://127.0.0.1:9/' });
    expect(() => parseNetwork({ network: 'embedded', wallet: '/w' })).toThrow(/--wallet/);
    expect(() => parseNetwork({ network: 'testnet', walletAddress: '0x12' })).toThrow(/wallet-address/);
  });

  it('local makes its own wallet: --sub-wallets applies, --wallet, --wallet-address and --sui-rpc do not', () => {
    expect(parseNetwork({ network: 'local' })).toEqual({ kind: 'local', subWallets: 8 });
    expect(parseNetwork({ network: 'local', subWallets: 2 })).toEqual({ kind: 'local', subWallets: 2 });
    expect(() => parseNetwork({ network: 'local', wallet: '/w' })).toThrow(/do not apply to --network local/);
    expect(() => parseNetwork({ network: 'local', suiRpc: 'http://127.0.0.1:9/' })).toThrow(/do not apply to --network local/);
  });

  it('reads a flat Walrus client config, with the wallet path relative to the file', () => {
    const d = tmp();
    const file = path.join(d, 'client_config.yaml');
    fs.writeFileSync(file, `system_object: ${SYSTEM}\nstaking_object: ${STAKING}\nwallet_config:\n  path: sui/client.yaml\n  active_address: 0x${'AB'.repeat(32)}\nrpc_urls:\n  - http://127.0.0.1:9000\n`);
    expect(parseNetwork({ network: file })).toEqual({
      kind: 'walrus',
      name: file,
      systemObjectId: SYSTEM,
      stakingPoolId: STAKING,
      rpcUrl: 'http://127.0.0.1:9000',
      walletPath: path.join(d, 'sui', 'client.yaml'),
      walletAddress: `0x${'ab'.repeat(32)}`,
      subWallets: 8,
    });
  });

  it('picks the default context, and takes the RPC from the wallet client.yaml when the config has none', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'client.yaml'), 'keystore:\n  File: sui.keystore\nenvs:\n  - alias: local\n    rpc: http://127.0.0.1:9123\nactive_env: local\n');
    const file = path.join(d, 'walrus.yaml');
    fs.writeFileSync(
      file,
      `contexts:\n  other:\n    system_object: ${STAKING}\n    staking_object: ${STAKING}\n  local:\n    system_object: ${SYSTEM}\n    staking_object: ${STAKING}\n    wallet_config:\n      path: ${path.join(d, 'client.yaml')}\ndefault_context: local\n`,
    );
    expect(parseNetwork({ network: file })).toMatchObject({ name: 'local', systemObjectId: SYSTEM, rpcUrl: 'http://127.0.0.1:9123' });
  });

  it('refuses what is neither a known network nor a usable config file, saying why', () => {
    const d = tmp();
    expect(() => parseNetwork({ network: 'devnet' })).toThrow(/not embedded, testnet, mainnet or a readable Walrus client config file/);
    const bad = path.join(d, 'bad.yaml');
    fs.writeFileSync(bad, `system_object: 0x12\nstaking_object: ${STAKING}\nrpc_urls: [http://x]\n`);
    expect(() => parseNetwork({ network: bad })).toThrow(/system_object: expected 0x followed by 64 hexadecimal digits/);
    const noRpc = path.join(d, 'norpc.yaml');
    fs.writeFileSync(noRpc, `system_object: ${SYSTEM}\nstaking_object: ${STAKING}\nwallet_config:\n  path: missing.yaml\n`);
    expect(() => parseNetwork({ network: noRpc })).toThrow(/no rpc_urls/);
  });
});

describe('the Walrus backend module', () => {
  it('is refused on Node before 22, naming Node 22 (the Sui SDK needs it); loads on 22 and later', async () => {
    await expect(loadWalrusBackend('20.20.2')).rejects.toThrow(/needs Node 22 or later .*this is Node 20\.20\.2/);
    const loaded = await loadWalrusBackend('22.0.0');
    expect(typeof loaded.openWalrusBackend).toBe('function');
  });

  it('holds no Sui JSON-RPC client: the SDK is reached through its gRPC client only', () => {
    // Sui disabled JSON-RPC on its public full nodes (July 2026) and removed it (October 2026)
    const dir = path.join(import.meta.dirname, '../../../../src');
    const sources = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const mysten = sources.flatMap((f) => [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/from '(@mysten\/[^']+)'/g)].map((m) => m[1]!));
    expect(mysten).toContain('@mysten/sui/grpc');
    expect(mysten.filter((m) => /jsonRpc|\/client$/.test(m))).toEqual([]);
    // nor a hand-made JSON-RPC request; the run-time check: test/e2e/publisher-walrus.test.ts (the double counts what it refuses)
    for (const f of sources) expect(fs.readFileSync(path.join(dir, f), 'utf8'), f).not.toMatch(/SuiJsonRpcClient|new SuiClient\(|["']?jsonrpc["']?\s*:\s*["']2\.0/);
  });
});

describe('wallet', () => {
  it('loads the active address of a client.yaml from its keystore, and any key by address', () => {
    const d = tmp();
    const ed = Ed25519Keypair.generate();
    const k1 = Secp256k1Keypair.generate();
    // one key Bech32-encoded (getSecretKey()), one as flag + secret in base64: both are keystore formats
    const keystore = [ed.getSecretKey(), keystoreEntry(1, decodeSuiPrivateKey(k1.getSecretKey()).secretKey)];
    fs.writeFileSync(path.join(d, 'sui.keystore'), JSON.stringify(keystore));
    fs.writeFileSync(path.join(d, 'client.yaml'), `keystore:\n  File: sui.keystore\nactive_address: "${k1.toSuiAddress()}"\n`);
    expect(loadWallet(path.join(d, 'client.yaml')).toSuiAddress()).toBe(k1.toSuiAddress());
    expect(loadWallet(path.join(d, 'client.yaml'), ed.toSuiAddress()).toSuiAddress()).toBe(ed.toSuiAddress());
    expect(loadWallet(path.join(d, 'sui.keystore')).toSuiAddress()).toBe(ed.toSuiAddress());
    expect(() => loadWallet(path.join(d, 'sui.keystore'), `0x${'00'.repeat(32)}`)).toThrow(/holds no key for/);
  });

  it('says what is wrong with an unreadable or malformed wallet', () => {
    const d = tmp();
    expect(() => loadWallet(path.join(d, 'nope.yaml'))).toThrow(/cannot read/);
    fs.writeFileSync(path.join(d, 'ks'), JSON.stringify([Buffer.alloc(20).toString('base64')]));
    expect(() => loadWallet(path.join(d, 'ks'))).toThrow(/not a flag byte and a 32-byte secret/);
    fs.writeFileSync(path.join(d, 'ks2'), JSON.stringify([keystoreEntry(3, Buffer.alloc(32, 1))]));
    expect(() => loadWallet(path.join(d, 'ks2'))).toThrow(/scheme flag 3/);
    fs.writeFileSync(path.join(d, 'client.yaml'), 'active_address: "0x1"\n');
    expect(() => loadWallet(path.join(d, 'client.yaml'))).toThrow(/names no keystore file/);
  });
});
