// The family on a versioned bucket (the engine's version chains; the versioning API itself is
// another issue's): copy from `?versionId=`, DeleteObjects with and without VersionId, delete
// markers as copy sources, tagging of one version (s3.md §3.0.7, §3.17–3.19).

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, OWNER_ID, type Harness, type Recorded } from './helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
  await h.store.createBucket({ name: 'ver', owner: OWNER_ID, created: 0, acl: 'private', objectLock: false, versioning: 'Enabled' });
});
afterAll(() => h.close());

const header = (r: Recorded, name: string) => r.headers.find(([k]) => k.toLowerCase() === name)?.[1];
const md5b64 = (s: string) => createHash('md5').update(s).digest('base64');

function deleteObjects(xml: string) {
  return h.request('POST', '/ver?delete', { body: xml, headers: { 'content-md5': md5b64(xml) } });
}

describe('versioned bucket', () => {
  it('copies a named version, deletes by version, refuses a delete marker as a copy source', async () => {
    const v1 = header(await h.request('PUT', '/ver/k', { body: 'one' }), 'x-amz-version-id')!;
    const v2 = header(await h.request('PUT', '/ver/k', { body: 'two' }), 'x-amz-version-id')!;
    expect(v1).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(v2).not.toBe(v1);

    const copy = await h.request('PUT', '/ver/c', { headers: { 'x-amz-copy-source': `/ver/k?versionId=${v1}` } });
    expect(copy.status).toBe(200);
    expect(header(copy, 'x-amz-copy-source-version-id')).toBe(v1);
    expect(header(copy, 'x-amz-version-id')).toMatch(/^[0-9A-Za-z]{32}$/);
    expect((await h.request('GET', '/ver/c')).body).toBe('one');

    const tagged = await h.request('PUT', `/ver/k?tagging&versionId=${v1}`, { body: '<Tagging><TagSet><Tag><Key>a</Key><Value>1</Value></Tag></TagSet></Tagging>' });
    expect(header(tagged, 'x-amz-version-id')).toBe(v1);
    expect((await h.request('GET', `/ver/k?tagging&versionId=${v1}`)).body).toContain('<Key>a</Key>');
    expect((await h.request('GET', '/ver/k?tagging')).body).toContain('<TagSet></TagSet>');

    const marked = await deleteObjects('<Delete><Object><Key>k</Key></Object></Delete>');
    const marker = /<DeleteMarkerVersionId>([^<]+)</.exec(marked.body)?.[1];
    expect(marked.body).toMatch(/<Deleted><Key>k<\/Key><DeleteMarker>true<\/DeleteMarker><DeleteMarkerVersionId>[0-9A-Za-z]{32}<\/DeleteMarkerVersionId><\/Deleted>/);
    expect((await h.request('PUT', '/ver/d', { headers: { 'x-amz-copy-source': '/ver/k' } })).body).toContain('<Code>NoSuchKey</Code>');
    const fromMarker = await h.request('PUT', '/ver/d', { headers: { 'x-amz-copy-source': `/ver/k?versionId=${marker}` } });
    expect(fromMarker.status).toBe(400);
    expect(fromMarker.body).toContain('may not specifically refer to a delete marker');

    const removed = await deleteObjects(`<Delete><Object><Key>k</Key><VersionId>${v1}</VersionId></Object><Object><Key>k</Key><VersionId>${marker}</VersionId></Object></Delete>`);
    expect(removed.body).toContain(`<Deleted><Key>k</Key><VersionId>${v1}</VersionId></Deleted>`);
    expect(removed.body).toContain(`<Deleted><Key>k</Key><VersionId>${marker}</VersionId><DeleteMarker>true</DeleteMarker><DeleteMarkerVersionId>${marker}</DeleteMarkerVersionId></Deleted>`);
    // with the marker gone, v2 is the latest again
    expect((await h.request('GET', '/ver/k')).body).toBe('two');
  });
});
