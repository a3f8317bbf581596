import { afterEach, describe, expect, it } from 'vitest';
import { startFixture, type PublisherFixture } from './publisher-fixture.js';

let fx: PublisherFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

describe('certification across an epoch change', () => {
  it('collects fresh confirmations when the epoch turns between upload and certification', async () => {
    fx = await startFixture();
    fx.toEpoch(5);
    const network = fx.network;
    const original = network.storeBlob.bind(network);
    const signedFor: number[] = [];
    network.storeBlob = async (...args) => {
      signedFor.push(args[4]);
      const result = await original(...args);
      if (signedFor.length === 1) fx!.toEpoch(6); // the epoch ends while the nodes were confirming
      return result;
    };
    const r = await fx.put('epochs=2', 'a blob certified one epoch after it was registered');
    expect(r.status).toBe(200);
    expect(signedFor).toEqual([5, 6]);
    expect(r.json.newlyCreated.blobObject).toMatchObject({ registeredEpoch: 5, certifiedEpoch: 6, storage: { startEpoch: 5, endEpoch: 7 } });
  });
});
