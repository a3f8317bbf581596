// A publisher fixture with the native RS2 codec (real blob ids), for tests that compare ids with
// the references, and the reference blob id from @mysten/walrus-wasm.
import { BlobEncoder } from '@mysten/walrus-wasm';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { openBlobCodec, type NativeBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import type { PublisherOptions } from '../../../../src/publisher/service/publisher-server.js';
import { startFixture, type PublisherFixture } from './publisher-fixture.js';

/** Registers the hooks: one codec for the file, one publisher per test (closed after it). */
export function nativePublisher(): { start(extra?: Partial<PublisherOptions>): Promise<PublisherFixture>; codec(): NativeBlobCodec } {
  let codec: NativeBlobCodec | undefined;
  let fx: PublisherFixture | undefined;
  beforeAll(async () => {
    codec = await openBlobCodec({ threads: 2 });
  });
  afterEach(async () => {
    await fx?.cleanup();
    fx = undefined;
  });
  afterAll(async () => {
    await codec?.close();
  });
  return {
    async start(extra = {}) {
      fx = await startFixture({ codec, maxBodyBytes: 1 << 20, ...extra });
      return fx;
    },
    codec: () => codec!,
  };
}

export function wasmBlobId(data: Uint8Array, nShards: number): string {
  const wasm = new BlobEncoder(nShards);
  try {
    return Buffer.from((wasm.compute_metadata(data) as [number[]])[0]).toString('base64url');
  } finally {
    wasm.free();
  }
}
