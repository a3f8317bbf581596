// A 64 MiB blob at n = 1000 (~300 MB of slivers) encodes in the worker pool while the event loop
// keeps turning: setImmediate ticks are counted and the longest gap between two is bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openBlobCodec, type NativeBlobCodec } from '../../../../src/publisher/rs2/codec.js';
import { rs2BlobId } from '../../../../src/publisher/rs2/rs2-native.js';

let codec: NativeBlobCodec;

beforeAll(async () => {
  codec = await openBlobCodec();
});

afterAll(async () => {
  await codec.close();
});

describe('the worker pool', () => {
  it('keeps the event loop responsive while 64 MiB encode at n=1000', async () => {
    const data = Buffer.alloc(64 << 20);
    for (let i = 0; i < data.length; i += 509) data[i] = (i * 31) & 0xff;

    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    let running = true;
    const tick = () => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const started = performance.now();
    const e = await codec.encode(data, 1000);
    const took = performance.now() - started;
    running = false;

    expect(e.unencodedLength).toBe(data.length);
    expect(e.encodedLength).toBeGreaterThan(300e6);
    // Encoding on this thread would stall the loop for the whole encode (over a second here).
    expect(ticks, `ticks during a ${took.toFixed(0)} ms encode`).toBeGreaterThan(1000);
    // An encode on this thread is one gap as long as the encode; on a pool the gaps are the machine's
    // scheduling, which other test files sharing two cores stretch past any fixed bound (274 ms seen).
    expect(longestGap, `longest gap during a ${took.toFixed(0)} ms encode`).toBeLessThan(took / 2);
    // The transferred result is intact: slivers at both ends of the one buffer parse to their pair.
    expect(e.sliverPair(999).primary.readUInt16LE(e.sliverPair(999).primary.length - 2)).toBe(999);
    expect(e.sliverPair(0).secondary.readUInt16LE(e.sliverPair(0).secondary.length - 2)).toBe(999);
    const small = data.subarray(0, 1 << 20);
    expect((await codec.blobId(small, 1000)).blobId.equals(Buffer.from(rs2BlobId(small, 1000).blobId))).toBe(true);
  });
});
