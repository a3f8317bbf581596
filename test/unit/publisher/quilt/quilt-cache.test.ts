// Patch reads share their quilt's rebuild (src/publisher/service/quilt-service.ts): patches of one
// quilt read at once, and again soon after, decode the quilt once; a read asking for the strict
// consistency check decodes it afresh; a quilt that does not exist is not remembered as missing.
import { afterAll, describe, expect, it } from 'vitest';
import { KEY, startFixture, type PublisherFixture } from '../service/publisher-fixture.js';

let fx: PublisherFixture | undefined;
afterAll(() => fx?.cleanup());

function form(files: Array<{ identifier: string; contents: Buffer }>): FormData {
  const f = new FormData();
  for (const file of files) f.append(file.identifier, new Blob([new Uint8Array(file.contents)]), file.identifier);
  return f;
}

describe('the quilt cache of patch reads', () => {
  it('decodes a quilt once for its patches read together and soon after; strict reads decode afresh', async () => {
    fx = await startFixture();
    const files = Array.from({ length: 6 }, (_, i) => ({ identifier: `f${i}`, contents: Buffer.alloc(500 + i, i + 1) }));
    const res = await fetch(`${fx.url}/${KEY}/v1/quilts?epochs=2`, { method: 'PUT', body: form(files) });
    expect(res.status).toBe(200);
    const { storedQuiltBlobs } = (await res.json()) as { storedQuiltBlobs: Array<{ identifier: string; quiltPatchId: string }> };
    const patchOf = new Map(storedQuiltBlobs.map((p) => [p.identifier, p.quiltPatchId]));

    const read = async (identifier: string, query = '') => {
      const r = await fx!.get(`/v1/blobs/by-quilt-patch-id/${patchOf.get(identifier)}${query}`);
      expect(r.status, identifier).toBe(200);
      return Buffer.from(await r.arrayBuffer());
    };
    const before = fx.codec.decodeCalls;
    const bodies = await Promise.all(files.map((f) => read(f.identifier)));
    bodies.forEach((b, i) => expect(b.equals(files[i]!.contents), files[i]!.identifier).toBe(true));
    expect((await read('f3')).equals(files[3]!.contents)).toBe(true);
    expect(fx.codec.decodeCalls - before).toBe(1);

    expect((await read('f2', '?strict_consistency_check=true')).equals(files[2]!.contents)).toBe(true);
    expect(fx.codec.decodeCalls - before).toBe(2);

    // an unknown quilt: 404 each time (a failed rebuild is not kept)
    const unknown = patchOf.get('f0')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    for (let i = 0; i < 2; i++) expect((await fx.get(`/v1/blobs/by-quilt-patch-id/${unknown}`)).status).toBe(404);
  });
});
