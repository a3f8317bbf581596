// PUT /v1/quilts and the quilt read routes through a running publisher with the native codec: the
// quilt id and every patch id equal what the references give for the same files (the SDK's quilt
// layout, @mysten/walrus-wasm's blob id), and every file reads back byte-identical by patch id and
// by identifier.
import { encodeQuilt as sdkEncodeQuilt } from '@mysten/walrus';
import { describe, expect, it } from 'vitest';
import { randomBytes } from '../codec/vector-input.js';
import { nativePublisher, wasmBlobId } from '../service/native-publisher.js';
import { KEY, N_SHARDS, type PublisherFixture } from '../service/publisher-fixture.js';

const publisher = nativePublisher();
let fx: PublisherFixture | undefined;

const FILES: Array<{ identifier: string; contents: Buffer; tags?: Record<string, string> }> = [
  { identifier: 'walrus.jpeg', contents: randomBytes(7, 20_000), tags: { 'content-type': 'image/jpeg', creator: 'walrus' } },
  { identifier: 'notes.txt', contents: Buffer.from('a small text file\n') },
  { identifier: 'data.bin', contents: randomBytes(8, 5_000), tags: { version: '1.0' } },
];

/** What Walrus gives for these files: the SDK's quilt bytes, wasm's blob id, patch ids from the SDK's index. */
function reference(): { quiltId: string; patchIds: Map<string, string> } {
  const { quilt, index } = sdkEncodeQuilt({ blobs: FILES.map((f) => ({ contents: new Uint8Array(f.contents), identifier: f.identifier, tags: f.tags })), numShards: N_SHARDS });
  const idBytes = Buffer.from(wasmBlobId(quilt, N_SHARDS), 'base64url');
  const patchIds = new Map(
    index.patches.map((p) => {
      const internal = Buffer.alloc(5);
      internal.writeUInt8(1, 0);
      internal.writeUInt16LE(p.startIndex, 1);
      internal.writeUInt16LE(p.endIndex, 3);
      return [p.identifier, Buffer.concat([idBytes, internal]).toString('base64url')];
    }),
  );
  return { quiltId: idBytes.toString('base64url'), patchIds };
}

function form(files = FILES, metadata = true): FormData {
  const f = new FormData();
  for (const file of files) f.append(file.identifier, new Blob([new Uint8Array(file.contents)]), file.identifier);
  if (metadata) f.append('_metadata', JSON.stringify(files.filter((x) => x.tags).map((x) => ({ identifier: x.identifier, tags: x.tags }))));
  return f;
}

describe('quilts over HTTP (walrus.md §10.1, §11)', () => {
  it('stores a quilt of several files; ids match the references; each file reads back by patch id and by identifier', async () => {
    fx = await publisher.start();
    const res = await fetch(`${fx.url}/${KEY}/v1/quilts?epochs=2&quilt_version=V1`, { method: 'PUT', body: form() });
    expect(res.status).toBe(200);
    const json = (await res.json()) as any;
    const ref = reference();
    expect(json.blobStoreResult.newlyCreated.blobObject.blobId).toBe(ref.quiltId);
    expect(json.blobStoreResult.newlyCreated.blobObject.storage.endEpoch - json.blobStoreResult.newlyCreated.blobObject.storage.startEpoch).toBe(2);
    expect(json.storedQuiltBlobs.map((p: any) => p.identifier)).toEqual(['data.bin', 'notes.txt', 'walrus.jpeg']);
    for (const stored of json.storedQuiltBlobs) expect(stored.quiltPatchId, stored.identifier).toBe(ref.patchIds.get(stored.identifier));

    for (const file of FILES) {
      const byId = await fetch(`${fx.url}/v1/blobs/by-quilt-patch-id/${ref.patchIds.get(file.identifier)}`);
      expect(byId.status).toBe(200);
      expect(byId.headers.get('x-quilt-patch-identifier')).toBe(file.identifier);
      expect(byId.headers.get('etag')).toBe(ref.quiltId);
      expect(Buffer.from(await byId.arrayBuffer()).equals(file.contents)).toBe(true);
      const byName = await fetch(`${fx.url}/v1/blobs/by-quilt-id/${ref.quiltId}/${encodeURIComponent(file.identifier)}`);
      expect(byName.status).toBe(200);
      expect(Buffer.from(await byName.arrayBuffer()).equals(file.contents)).toBe(true);
    }
    // Allowed tags become headers (walrus daemon allowed_headers); others do not.
    const jpeg = await fetch(`${fx.url}/v1/blobs/by-quilt-patch-id/${ref.patchIds.get('walrus.jpeg')}`);
    expect(jpeg.headers.get('content-type')).toBe('image/jpeg');
    expect(jpeg.headers.get('creator')).toBeNull();
    const asked = await fetch(`${fx.url}/v1/blobs/by-quilt-patch-id/${ref.patchIds.get('walrus.jpeg')}`, { headers: { accept: 'application/x-mine' } });
    expect(asked.headers.get('content-type')).toBe('application/x-mine');
    expect((await fetch(`${fx.url}/v1/blobs/by-quilt-patch-id/${ref.patchIds.get('notes.txt')}`)).headers.get('content-type')).toBe('application/octet-stream');
    const list = await fetch(`${fx.url}/v1/quilts/${ref.quiltId}/patches`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual(
      [...FILES].sort((a, b) => (a.identifier < b.identifier ? -1 : 1)).map((f) => ({ identifier: f.identifier, patch_id: ref.patchIds.get(f.identifier), tags: f.tags ?? {} })),
    );
    // The quilt is a blob like any other: it reads whole through /v1/blobs.
    expect((await fetch(`${fx.url}/v1/blobs/${ref.quiltId}`)).status).toBe(200);
  });

  it('answers quilt mistakes with clear JSON errors', async () => {
    fx = await publisher.start();
    const put = (body: string | FormData, query = '', headers: Record<string, string> = {}) => fetch(`${fx!.url}/${KEY}/v1/quilts${query}`, { method: 'PUT', body, headers });
    const reasonOf = async (res: Response) => [res.status, ((await res.json()) as any).error.details[0].reason];
    expect(await reasonOf(await put('not a form', '', { 'content-type': 'text/plain' }))).toEqual([400, 'MALFORMED_REQUEST']);
    expect(await reasonOf(await put(form([], false)))).toEqual([400, 'MALFORMED_REQUEST']);
    const dup = form();
    dup.append('notes.txt', new Blob(['again']), 'notes.txt');
    expect(await reasonOf(await put(dup))).toEqual([400, 'MALFORMED_REQUEST']);
    const badMeta = form(FILES, false);
    badMeta.append('_metadata', '{not json');
    expect(await reasonOf(await put(badMeta))).toEqual([400, 'MALFORMED_REQUEST']);
    expect(await reasonOf(await put(form(), '?quilt_version=v2'))).toEqual([400, 'MALFORMED_REQUEST']);
    const before = fx.transactions();
    expect(await reasonOf(await put(form(), '?deletable=true&permanent=true'))).toEqual([400, 'INVALID_BLOB_PERSISTENCE']);
    expect(fx.transactions()).toBe(before);

    const stored = (await (await put(form([FILES[1]!], false))).json()) as any;
    const quiltId: string = stored.blobStoreResult.newlyCreated.blobObject.blobId;
    expect(await reasonOf(await fetch(`${fx.url}/v1/blobs/by-quilt-id/${quiltId}/missing.txt`))).toEqual([404, 'QUILT_PATCH_NOT_FOUND']);
    expect(await reasonOf(await fetch(`${fx.url}/v1/blobs/by-quilt-patch-id/short`))).toEqual([400, 'INVALID_QUILT_PATCH_ID']);
    const wrongColumns = Buffer.concat([Buffer.from(quiltId, 'base64url'), Buffer.from([1, 6, 0, 7, 0])]).toString('base64url');
    expect(await reasonOf(await fetch(`${fx.url}/v1/blobs/by-quilt-patch-id/${wrongColumns}`))).toEqual([404, 'QUILT_PATCH_NOT_FOUND']);
    const plain = (await fx.put('', Buffer.from('not a quilt at all'))).json.newlyCreated.blobObject.blobId;
    expect(await reasonOf(await fetch(`${fx.url}/v1/quilts/${plain}/patches`))).toEqual([404, 'QUILT_PATCH_NOT_FOUND']);
    expect(await reasonOf(await fetch(`${fx.url}/v1/quilts/${'A'.repeat(43)}/patches`))).toEqual([404, 'BLOB_NOT_FOUND']);
  });
});
