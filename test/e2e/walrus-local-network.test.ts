// `tusk serve --network local` as a real process, used by the unmodified @mysten/walrus client
// configured only from the client configuration the server prints: the Sui gRPC URL, the Walrus
// package config, the upload relay, a funded test key and the storage nodes' CA. The client stores a
// 1 MiB blob directly (register, slivers to the nodes, certify) and through the upload relay, and a
// quilt, and reads each back; every blob id equals @mysten/walrus-wasm's for the same bytes.
//
// The local network needs Node 22 (@mysten/sui 2.x): on Node 20 the server refuses it at start-up,
// which the first describe checks; the rest runs on Node 22+ (CI's Node 24 run).

import fs from 'node:fs';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { WalrusClient, WalrusFile } from '@mysten/walrus';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalClientConfig } from '../../src/publisher/local-network/serve.js';
import { NEEDS_NODE_22 } from '../double/walrus/node-version.js';
import { randomBytes } from '../unit/publisher/codec/vector-input.js';
import { wasmBlobId } from '../unit/publisher/service/native-publisher.js';
import { startTusk, type TuskServer } from './helpers/server.js';
import { localClientConfig } from './helpers/walrus.js';

const SKIP_REASON = NEEDS_NODE_22 ? '@mysten/sui 2.x needs Node 22' : '';
const MiB = 1024 * 1024;

let tusk: TuskServer | undefined;
let printed: LocalClientConfig;
let sui: SuiGrpcClient;
let signer: Ed25519Keypair;
let nShards: number;

/** A fetch trusting the printed CA (what NODE_EXTRA_CA_CERTS=<nodeCaFile> does for a whole process). */
function trustingFetch(caFile: string): typeof fetch {
  const dispatcher = new Agent({ connect: { ca: fs.readFileSync(caFile, 'utf8') } });
  // the Agent is the npm undici (6), the global fetch Node's own: their dispatch protocol is the same
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, { ...init, dispatcher } as unknown as RequestInit)) as typeof fetch;
}

function walrusClient(options: { uploadRelay?: boolean } = {}): WalrusClient {
  return new WalrusClient({
    packageConfig: printed.packageConfig,
    suiClient: sui,
    storageNodeClientOptions: { fetch: trustingFetch(printed.nodeCaFile) },
    ...(options.uploadRelay ? { uploadRelay: { host: printed.uploadRelay } } : {}),
  });
}

beforeAll(async () => {
  if (SKIP_REASON) return;
  tusk = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs: ['--network', 'local'], startTimeoutMs: 90_000 });
  printed = await localClientConfig(tusk!);
  sui = new SuiGrpcClient({ network: 'local', baseUrl: printed.suiGrpcUrl });
  signer = Ed25519Keypair.fromSecretKey(printed.testKey);
  nShards = (await walrusClient().systemState()).committee.n_shards;
}, 120_000);

afterAll(async () => {
  await tusk?.dispose();
});

describe.skipIf(!NEEDS_NODE_22)('tusk serve --network local, on Node 20', () => {
  it('refuses at start-up, naming Node 22', async () => {
    const failure = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs: ['--network', 'local'] }).catch((e: unknown) => e as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/needs Node 22 or later/);
  });
});

describe.skipIf(SKIP_REASON !== '')(`tusk serve --network local with the official SDK${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  it('prints a client configuration with a funded test key', async () => {
    expect(printed.suiGrpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed.uploadRelay).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fs.readFileSync(printed.nodeCaFile, 'utf8')).toMatch(/BEGIN CERTIFICATE/);
    const { balance } = await sui.core.getBalance({ owner: signer.toSuiAddress() });
    expect(BigInt(balance.balance)).toBeGreaterThan(0n);
  });

  it('stores 1 MiB directly (register, slivers to the nodes, certify) and reads it back', async () => {
    const data = randomBytes(201, MiB);
    const { blobId, blobObject } = await walrusClient().writeBlob({ blob: data, deletable: false, epochs: 2, signer });
    expect(blobId).toBe(wasmBlobId(data, nShards));
    expect(blobObject.certified_epoch).not.toBeNull();
    // a fresh client: nothing cached from the write
    expect(Buffer.from(await walrusClient().readBlob({ blobId })).equals(data)).toBe(true);
  }, 60_000);

  it('stores 1 MiB through the upload relay (register, relay, certify) and reads it back', async () => {
    const data = randomBytes(202, MiB);
    const { blobId, blobObject } = await walrusClient({ uploadRelay: true }).writeBlob({ blob: data, deletable: true, epochs: 1, signer });
    expect(blobId).toBe(wasmBlobId(data, nShards));
    expect(blobObject.certified_epoch).not.toBeNull();
    expect(Buffer.from(await walrusClient().readBlob({ blobId })).equals(data)).toBe(true);
  }, 60_000);

  it('stores a quilt with writeFiles and reads each file back by its id', async () => {
    const contents = { 'a.txt': randomBytes(203, 3_000), 'b.bin': randomBytes(204, 20_000) };
    const files = Object.entries(contents).map(([identifier, bytes]) => WalrusFile.from({ contents: bytes, identifier }));
    const written = await walrusClient().writeFiles({ files, deletable: true, epochs: 1, signer });
    expect(written).toHaveLength(2);
    const quiltId = written[0]!.blobId;
    expect(written.every((w) => w.blobId === quiltId)).toBe(true);
    // the quilt's blob id is the id of its bytes, as @mysten/walrus-wasm computes it
    expect(wasmBlobId(await walrusClient().readBlob({ blobId: quiltId }), nShards)).toBe(quiltId);
    const read = await walrusClient().getFiles({ ids: written.map((w) => w.id) });
    for (const file of read) {
      const identifier = (await file.getIdentifier()) as keyof typeof contents;
      expect(Buffer.from(await file.bytes()).equals(contents[identifier])).toBe(true);
    }
    expect((await Promise.all(read.map((f) => f.getIdentifier()))).sort()).toEqual(['a.txt', 'b.bin']);
  }, 60_000);
});
