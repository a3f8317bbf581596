// Tusk as an upload relay, driven by the real @mysten/walrus client's upload-relay code
// (WalrusClient.writeBlobToUploadRelay and calculateUploadRelayTip, which fetch /v1/tip-config):
// the relay encodes natively, checks the id against @mysten/walrus-wasm's, stores the slivers on the
// embedded nodes and answers a certificate whose signatures verify; the blob reads back, also with
// f shards down. The chain's part (registering the blob) is played by Tusk's ledger.
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { WalrusClient } from '@mysten/walrus';
import { describe, expect, it } from 'vitest';
// The SDK's own relay HTTP client (what WalrusClient uses inside); not exported by the package, so by
// path, and its declaration file does not declare the class, so it is typed here.
import * as relayClient from '../../../../node_modules/@mysten/walrus/dist/upload-relay/client.mjs';
const { UploadRelayClient } = relayClient as unknown as { UploadRelayClient: new (options: { host: string }) => { tipConfig(): Promise<unknown> } };
import { encodedLength } from '../../../../src/publisher/ledger/index.js';
import { verifyConfirmation } from '../../../../src/publisher/nodes/confirmation.js';
import type { BlobType } from '../../../../src/publisher/nodes/types.js';
import { randomBytes } from '../codec/vector-input.js';
import { nativePublisher, wasmBlobId } from '../service/native-publisher.js';
import { N_SHARDS, type PublisherFixture } from '../service/publisher-fixture.js';

const publisher = nativePublisher();
let fx: PublisherFixture | undefined;

function walrusClient(host: string): WalrusClient {
  // No Sui call is made on the relay path: the RPC URL points nowhere on purpose. No `sendTip`: this relay asks none.
  return new WalrusClient({ network: 'testnet', suiClient: new SuiGrpcClient({ network: 'testnet', baseUrl: 'http://127.0.0.1:1' }), uploadRelay: { host } });
}

async function register(data: Buffer, deletable: boolean): Promise<{ blobId: string; objectId: string }> {
  const blobId = wasmBlobId(data, N_SHARDS);
  const reg = await fx!.ledger.registerBlob({ blobId, size: data.length, encodedLength: encodedLength(data.length, N_SHARDS)!, epochs: 2, deletable });
  return { blobId, objectId: reg.blobObject.id };
}

async function checkCertificate(cert: { signers: number[]; serializedMessage: Uint8Array; signature: Uint8Array }, blobId: string, blobType: BlobType, signers: number): Promise<void> {
  expect(cert.signers).toHaveLength(signers);
  expect(cert.signature.length).toBe(64 * signers);
  for (const [i, signer] of cert.signers.entries()) {
    const member = fx!.network.members[signer]!;
    const confirmation = { serializedMessage: Buffer.from(cert.serializedMessage).toString('base64'), signature: Buffer.from(cert.signature.subarray(64 * i, 64 * i + 64)).toString('base64') };
    const fields = { epoch: fx!.ledger.currentEpoch(), blobId: Buffer.from(blobId, 'base64url'), blobType };
    expect(await verifyConfirmation(member.publicKey, fields, confirmation), `signer ${signer}`).toBe(true);
  }
}

describe('upload relay (walrus-upload-relay API) through @mysten/walrus', () => {
  it('asks no tip, relays a registered permanent and a deletable blob, and they read back', async () => {
    fx = await publisher.start();
    const client = walrusClient(fx.url);
    expect(await new UploadRelayClient({ host: fx.url }).tipConfig()).toBeNull(); // 'no_tip'

    const data = randomBytes(21, 30_000);
    const { blobId, objectId } = await register(data, false);
    const relayed = await client.writeBlobToUploadRelay({ blobId, blob: data, nonce: new Uint8Array(32), txDigest: '', blobObjectId: objectId, deletable: false });
    expect(relayed.blobId).toBe(blobId);
    await checkCertificate(relayed.certificate, blobId, { kind: 'permanent' }, N_SHARDS);
    const read = await fetch(`${fx.url}/v1/blobs/${blobId}`);
    expect(Buffer.from(await read.arrayBuffer()).equals(data)).toBe(true);

    const other = randomBytes(22, 5_000);
    const deletable = await register(other, true);
    const relayedDeletable = await client.writeBlobToUploadRelay({ blobId: deletable.blobId, blob: other, nonce: new Uint8Array(32), txDigest: '', blobObjectId: deletable.objectId, deletable: true });
    await checkCertificate(relayedDeletable.certificate, deletable.blobId, { kind: 'deletable', objectId: deletable.objectId }, N_SHARDS);
  });

  it('still certifies with f shards down', async () => {
    fx = await publisher.start();
    const f = Math.floor((N_SHARDS - 1) / 3);
    for (const member of fx.network.members.slice(0, f)) await member.client.close();
    const data = randomBytes(23, 12_345);
    const { blobId, objectId } = await register(data, false);
    const relayed = await walrusClient(fx.url).writeBlobToUploadRelay({ blobId, blob: data, nonce: new Uint8Array(32), txDigest: '', blobObjectId: objectId, deletable: false });
    await checkCertificate(relayed.certificate, blobId, { kind: 'permanent' }, N_SHARDS - f);
    expect(relayed.certificate.signers).toEqual(Array.from({ length: N_SHARDS - f }, (_, i) => f + i));
    const read = await fetch(`${fx.url}/v1/blobs/${blobId}`);
    expect(Buffer.from(await read.arrayBuffer()).equals(data)).toBe(true);
  });

  it('refuses unregistered blobs, a wrong blob id and unknown parameters, storing nothing', async () => {
    fx = await publisher.start();
    const client = walrusClient(fx.url);
    const data = randomBytes(24, 4_000);
    const blobId = wasmBlobId(data, N_SHARDS);
    const relay = (id: string, body: Buffer, deletable = false, objectId = `0x${'00'.repeat(32)}`) =>
      client.writeBlobToUploadRelay({ blobId: id, blob: body, nonce: new Uint8Array(32), txDigest: '', blobObjectId: objectId, deletable }).then(
        () => 200,
        (e: { status?: number }) => e.status,
      );
    expect(await relay(blobId, data)).toBe(400); // not registered
    const { objectId } = await register(data, false);
    expect(await relay(blobId, data, true, objectId)).toBe(400); // registered, but not as a deletable blob
    expect(await relay(blobId, Buffer.concat([data, Buffer.from('x')]))).toBe(400); // other bytes
    expect(await fx.nodesHolding(Buffer.from(blobId, 'base64url'))).toBe(0);
    const raw = await fetch(`${fx.url}/v1/blob-upload-relay?blob_id=${blobId}&bogus=1`, { method: 'POST', body: data });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error.details[0].reason).toBe('MALFORMED_REQUEST');
    expect(await (await fetch(`${fx.url}/v1/tip-config`)).json()).toBe('no_tip');
  });
});
