// Storage class WALRUS's byte layout (src/s3/walrus-objects.ts): how a body is cut into blobs and
// where each sits in the object, and which blob pieces a range touches.

import { describe, expect, it } from 'vitest';
import { WalrusBlobGone, WalrusBlobUnavailable, type WalrusBlobs } from '../../../src/base/walrus-blobs.js';
import type { S3ObjectAttrs } from '../../../src/s3/object-attrs.js';
import { blobsCovering, openWalrusRead, WalrusBlobSink, walrusHeaders, walrusPatchLabel, type WalrusBlobRef, type WalrusPatchLabel } from '../../../src/s3/walrus-objects.js';

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
    patchMaxSize: Math.min(maxBlobSize, 100),
    async storePatch(identifier, data, tags) {
      patches.push({ identifier, data: Buffer.from(data), tags });
      return { quiltId: 'q0', patchId: `p${patches.length - 1}` };
    },
    async readPatch(id, start, end) {
      reads.push([id, start, end]);
      return patches[Number(id.slice(1))]!.data.subarray(start, end);
    },
    // the layout never lists quilts
    async *quiltPatches() {},
  };
  const patches: Array<{ identifier: string; data: Buffer; tags: Record<string, string> }> = [];
  return { network, blobs, reads, patches };
}

async function sinkOf(network: WalrusBlobs, body: Buffer, chunk: number, label?: WalrusPatchLabel) {
  const sink = new WalrusBlobSink(network);
  const writes: Promise<void>[] = [];
  for (let at = 0; at < body.length; at += chunk) writes.push(sink.write(body.subarray(at, at + chunk)));
  await Promise.all(writes);
  return sink.finish(label);
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

  it('stores a labelled body of at most patchMaxSize as a quilt patch, a larger one as blobs', async () => {
    const { network, blobs, patches } = memoryNetwork(1000);
    const label = { identifier: 'bkt/k', tags: { 'tusk-key': 'k' } };
    const small = await sinkOf(network, body.subarray(0, 100), 30, label);
    expect(small).toEqual({ size: 100, blobs: [{ blobId: 'q0', offset: 0, length: 100, patchId: 'p0' }] });
    expect(patches).toEqual([{ identifier: 'bkt/k', data: body.subarray(0, 100), tags: { 'tusk-key': 'k' } }]);
    expect(blobs).toEqual([]);
    expect((await readAll(network, small, 10, 60)).equals(body.subarray(10, 60))).toBe(true);
    expect(walrusHeaders({ attrs: { walrus: small } })).toEqual([
      ['x-tusk-walrus-blob-id', 'q0'],
      ['x-tusk-walrus-patch-id', 'p0'],
    ]);
    // one byte over: a blob of its own; and an unlabelled body is never a patch
    expect((await sinkOf(network, body.subarray(0, 101), 30, label)).blobs).toEqual([{ blobId: 'b0', offset: 0, length: 101 }]);
    expect((await sinkOf(network, body.subarray(0, 10), 30)).blobs).toEqual([{ blobId: 'b1', offset: 0, length: 10 }]);
    expect(patches).toHaveLength(1);
  });

  it('sets the label, the object size, and each blob index and offset as attributes of the blobs of a labelled body before finishing', async () => {
    const { network } = memoryNetwork(1000);
    const set: Array<[string, Record<string, string>]> = [];
    network.setAttributes = async (blobId, attributes) => {
      set.push([blobId, attributes]);
    };
    const label = { identifier: 'bkt/k', tags: { 'tusk-key': 'k' } };
    await sinkOf(network, body, 300, label);
    expect(set).toEqual([0, 1, 2].map((i) => [`b${i}`, { 'tusk-key': 'k', 'tusk-size': '2500', 'tusk-blob-index': String(i), 'tusk-blob-offset': String(i * 1000) }]));
    // unlabelled and patches: none
    await sinkOf(network, body, 300);
    await sinkOf(network, body.subarray(0, 50), 300, label);
    expect(set).toHaveLength(3);
    // a lifecycle transition's small body: a blob (not a patch) with attributes
    const sink = new WalrusBlobSink(network);
    await sink.write(body.subarray(0, 50));
    expect((await sink.finish(label, false)).blobs).toEqual([{ blobId: 'b6', offset: 0, length: 50 }]);
    expect(set[3]).toEqual(['b6', { 'tusk-key': 'k', 'tusk-size': '50', 'tusk-blob-index': '0', 'tusk-blob-offset': '0' }]);
  });

  it('labels a patch with the object facts known before its commit', () => {
    const attrs = { contentType: 'text/plain', checksum: { algorithm: 'CRC32' as const, value: 'AAAAAA==', type: 'FULL_OBJECT' as const } };
    expect(walrusPatchLabel('bkt', 'a/b c', attrs as S3ObjectAttrs, 'e7', 1700000000000)).toEqual({
      identifier: 'bkt/a/b c',
      tags: {
        'tusk-bucket': 'bkt',
        'tusk-key': 'a/b c',
        'content-type': 'text/plain',
        'tusk-etag': 'e7',
        'tusk-last-modified': '1700000000000',
        'tusk-checksum': 'CRC32:FULL_OBJECT:AAAAAA==',
      },
    });
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

  it('fetches the next blob while the one before is read out, and nothing more once closed', async () => {
    const body = Buffer.from(Array.from({ length: 2500 }, (_, i) => i % 256));
    const { network, reads } = memoryNetwork(1000);
    const location = await sinkOf(network, body, 1000);
    reads.length = 0;
    const reader = openWalrusRead(network, 'k', location, 0, 2500);
    expect((await reader.read(10))!.equals(body.subarray(0, 10))).toBe(true);
    // b1 is asked for before the client has taken b0's bytes
    expect(reads).toEqual([
      ['b0', 0, 1000],
      ['b1', 0, 1000],
    ]);
    expect((await reader.read(990))!.equals(body.subarray(10, 1000))).toBe(true);
    expect((await reader.read(1000))!.equals(body.subarray(1000, 2000))).toBe(true);
    expect(reads.map(([id]) => id)).toEqual(['b0', 'b1', 'b2']);
    reader.close();
    expect(await reader.read(1000)).toBeNull();
    expect(reads).toHaveLength(3);

    // a read ahead that fails where nobody asks for it raises nothing; asked for, it is the read's failure
    const failing = memoryNetwork(1000);
    const at = await sinkOf(failing.network, body, 1000);
    const read = failing.network.read.bind(failing.network);
    failing.network.read = async (id, start, end) => (id === 'b0' ? read(id, start, end) : Promise.reject(new WalrusBlobGone(id)));
    const early = openWalrusRead(failing.network, 'k', at, 0, 2500);
    expect((await early.read(1000))!.length).toBe(1000);
    early.close();
    const late = openWalrusRead(failing.network, 'k', at, 0, 2500);
    await late.read(1000);
    await expect(late.read(1000)).rejects.toMatchObject({ code: 'XTuskObjectDamaged' });
  });

  it('refuses a blob that answers fewer bytes than asked', async () => {
    const { network } = memoryNetwork(100);
    const location = await sinkOf(network, Buffer.alloc(150, 1), 150);
    network.read = async () => Buffer.alloc(3);
    await expect(readAll(network, location, 0, 150)).rejects.toThrow(/read 3 bytes of 100/);
  });
});
