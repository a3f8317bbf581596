// Storage class WALRUS's byte layout (src/s3/walrus-objects.ts): how a body is cut into blobs and
// where each sits in the object, and which blob pieces a range touches.

import { describe, expect, it } from 'vitest';
import { WalrusBlobGone, WalrusBlobUnavailable, type WalrusBlobs } from '../../../src/base/walrus-blobs.js';
import { blobsCovering, openWalrusRead, WalrusBlobSink, type WalrusBlobRef } from '../../../src/s3/walrus-objects.js';

/** A network in memory: ids are the blobs' numbers; `reads` records every read's range. */
function memoryNetwork(maxBlobSize: number) {
  const blobs: Buffer[] = [];
  const reads: Array<[string, number, number]> = [];
  const network: WalrusBlobs = {
    maxBlobSize,
    async store(data) {
      blobs.push(Buffer.from(data));
      return `b${blobs.length - 1}`;
    },
    async read(id, start, end) {
      reads.push([id, start, end]);
      return blobs[Number(id.slice(1))]!.subarray(start, end);
    },
  };
  return { network, blobs, reads };
}

async function sinkOf(network: WalrusBlobs, body: Buffer, chunk: number) {
  const sink = new WalrusBlobSink(network);
  const writes: Promise<void>[] = [];
  for (let at = 0; at < body.length; at += chunk) writes.push(sink.write(body.subarray(at, at + chunk)));
  await Promise.all(writes);
  return sink.finish();
}

async function readAll(network: WalrusBlobs, location: Awaited<ReturnType<typeof sinkOf>>, start: number, end: number): Promise<Buffer> {
  const reader = openWalrusRead(network, 'k', location, start, end);
  const parts: Buffer[] = [];
  for (let c = await reader.read(1000); c; c = await reader.read(1000)) parts.push(Buffer.from(c));
  reader.close();
  return Buffer.concat(parts);
}

describe('WalrusBlobSink', () => {
  const body = Buffer.from(Array.from({ length: 2500 }, (_, i) => i % 251));

  it.each([1, 7, 1000, 1024, 4000])('cuts a body written in chunks of %i into full blobs and a shorter last one', async (chunk) => {
    const { network, blobs } = memoryNetwork(1000);
    const location = await sinkOf(network, body, chunk);
    expect(location.size).toBe(2500);
    expect(location.blobs).toEqual([
      { blobId: 'b0', offset: 0, length: 1000 },
      { blobId: 'b1', offset: 1000, length: 1000 },
      { blobId: 'b2', offset: 2000, length: 500 },
    ]);
    expect(Buffer.concat(blobs).equals(body)).toBe(true);
  });

  it('a body of exactly N blobs has no empty last blob; an empty body has no blob', async () => {
    const { network } = memoryNetwork(1000);
    expect((await sinkOf(network, body.subarray(0, 2000), 333)).blobs.map((b) => b.length)).toEqual([1000, 1000]);
    expect(await sinkOf(network, Buffer.alloc(0), 1)).toEqual({ size: 0, blobs: [] });
  });

  it('fails when a store fails', async () => {
    const { network } = memoryNetwork(10);
    network.store = async () => {
      throw new Error('not certified');
    };
    await expect(sinkOf(network, body.subarray(0, 25), 5)).rejects.toThrow('not certified');
  });
});

describe('blobsCovering', () => {
  const blobs: WalrusBlobRef[] = [
    { blobId: 'a', offset: 0, length: 10 },
    { blobId: 'b', offset: 10, length: 10 },
    { blobId: 'c', offset: 20, length: 5 },
  ];

  it('maps an object range to ranges within the blobs it touches, and only those', () => {
    expect(blobsCovering(blobs, 0, 25)).toEqual([
      { blobId: 'a', from: 0, to: 10 },
      { blobId: 'b', from: 0, to: 10 },
      { blobId: 'c', from: 0, to: 5 },
    ]);
    expect(blobsCovering(blobs, 9, 11)).toEqual([
      { blobId: 'a', from: 9, to: 10 },
      { blobId: 'b', from: 0, to: 1 },
    ]);
    expect(blobsCovering(blobs, 10, 20)).toEqual([{ blobId: 'b', from: 0, to: 10 }]);
    expect(blobsCovering(blobs, 24, 25)).toEqual([{ blobId: 'c', from: 4, to: 5 }]);
    expect(blobsCovering(blobs, 5, 5)).toEqual([]);
  });
});

describe('openWalrusRead', () => {
  it('reads a range across blob boundaries from the blobs it covers, byte-identical', async () => {
    const body = Buffer.from(Array.from({ length: 2500 }, (_, i) => (i * 7) % 256));
    const { network, reads } = memoryNetwork(1000);
    const location = await sinkOf(network, body, 300);
    expect((await readAll(network, location, 0, 2500)).equals(body)).toBe(true);
    reads.length = 0;
    expect((await readAll(network, location, 990, 1010)).equals(body.subarray(990, 1010))).toBe(true);
    expect(reads).toEqual([
      ['b0', 990, 1000],
      ['b1', 0, 10],
    ]);
    reads.length = 0;
    expect((await readAll(network, location, 2100, 2200)).equals(body.subarray(2100, 2200))).toBe(true);
    expect(reads).toEqual([['b2', 100, 200]]);
  });

  it('a blob gone from the network is the object damaged; one unreachable now is 503', async () => {
    const { network } = memoryNetwork(100);
    const location = await sinkOf(network, Buffer.alloc(150, 1), 150);
    network.read = async (id) => {
      throw new WalrusBlobGone(id);
    };
    await expect(readAll(network, location, 0, 150)).rejects.toMatchObject({ code: 'XTuskObjectDamaged', status: 500 });
    network.read = async (id) => {
      throw new WalrusBlobUnavailable(id, 'no storage node answered');
    };
    await expect(readAll(network, location, 0, 150)).rejects.toMatchObject({ code: 'ServiceUnavailable', status: 503 });
  });

  it('refuses a blob that answers fewer bytes than asked', async () => {
    const { network } = memoryNetwork(100);
    const location = await sinkOf(network, Buffer.alloc(150, 1), 150);
    network.read = async () => Buffer.alloc(3);
    await expect(readAll(network, location, 0, 150)).rejects.toThrow(/read 3 bytes of 100/);
  });
});
