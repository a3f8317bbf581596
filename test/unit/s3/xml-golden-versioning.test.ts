// Golden strings for the versioning, object-lock and lifecycle documents (style.md §10, s3.md §4.5,
// §4.6, §4.19): namespace, element order, escaping.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3ObjectAttrs, S3Store } from '../../../src/s3/object-attrs.js';
import type { VersionInput } from '../../../src/store/types.js';
import { isoSeconds } from '../../../src/s3/xml.js';
import { openHarness, OWNER_ID, type Harness } from './helpers/harness.js';

const T = Date.parse('2025-01-31T12:00:00.789Z');
const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';
const OWNER = `<Owner><ID>${OWNER_ID}</ID><DisplayName>owner</DisplayName></Owner>`;
const ETAG = 'e'.repeat(32);

function input(extra: Partial<S3ObjectAttrs> = {}): VersionInput<S3ObjectAttrs> {
  return { etag: ETAG, lastModified: T, attrs: { contentType: 'text/plain', storageClass: 'STANDARD', acl: 'private', headers: {}, meta: {}, ...extra } };
}

async function put(store: S3Store, bucket: string, key: string, extra?: Partial<S3ObjectAttrs>): Promise<string> {
  const w = store.beginWrite(1);
  await w.write(Buffer.from('x'));
  return (await w.commit(bucket, key, input(extra))).versionId;
}

let h: Harness;
let store: S3Store;
beforeAll(async () => {
  h = await openHarness();
  store = h.store;
  const base = { owner: OWNER_ID, created: T, acl: 'private', objectLock: false } as const;
  await store.createBucket({ ...base, name: 'plain', versioning: 'Unversioned' });
  await store.createBucket({
    ...base, name: 'vgold', objectLock: true, versioning: 'Enabled',
    versionControl: { lockRule: { mode: 'COMPLIANCE', years: 1 } },
  });
});
afterAll(() => h.close());

describe('versioning documents', () => {
  it('VersioningConfiguration: empty when never configured, Status once set (§4.6)', async () => {
    expect((await h.request('GET', '/plain?versioning')).body).toBe(`${DECL}<VersioningConfiguration ${NS}/>`);
    expect((await h.request('GET', '/vgold?versioning')).body).toBe(
      `${DECL}<VersioningConfiguration ${NS}><Status>Enabled</Status></VersioningConfiguration>`,
    );
  });

  it('ListVersionsResult interleaves versions and markers newest first, escaped, truncated (§4.5)', async () => {
    const v1 = await put(store, 'vgold', 'a&b');
    const v2 = await put(store, 'vgold', 'a&b');
    await put(store, 'vgold', 'c');
    const marker = await store.deleteObject('vgold', 'c');
    if (marker.kind !== 'marker') throw new Error('expected a marker');
    const m = marker.marker;
    const version = (id: string, latest: boolean) =>
      `<Version><Key>a&amp;b</Key><VersionId>${id}</VersionId><IsLatest>${latest}</IsLatest>` +
      `<LastModified>2025-01-31T12:00:00.000Z</LastModified><ETag>&quot;${ETAG}&quot;</ETag><Size>1</Size>${OWNER}` +
      '<StorageClass>STANDARD</StorageClass></Version>';
    const r = await h.request('GET', '/vgold?versions&max-keys=3');
    expect(r.body).toBe(
      `${DECL}<ListVersionsResult ${NS}><Name>vgold</Name><Prefix></Prefix><KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker>` +
        `<NextKeyMarker>c</NextKeyMarker><NextVersionIdMarker>${m.versionId}</NextVersionIdMarker><MaxKeys>3</MaxKeys>` +
        `<IsTruncated>true</IsTruncated>${version(v2, true)}${version(v1, false)}` +
        `<DeleteMarker><Key>c</Key><VersionId>${m.versionId}</VersionId><IsLatest>true</IsLatest>` +
        `<LastModified>${isoSeconds(m.lastModified)}</LastModified>${OWNER}</DeleteMarker></ListVersionsResult>`,
    );
    const prefixes = await h.request('GET', `/vgold?versions&delimiter=%26&encoding-type=url&key-marker=a&version-id-marker=${v2}`);
    expect(prefixes.body).toContain(
      `<KeyMarker>a</KeyMarker><VersionIdMarker>${v2}</VersionIdMarker><MaxKeys>1000</MaxKeys><Delimiter>%26</Delimiter><IsTruncated>false</IsTruncated>`,
    );
    expect(prefixes.body).toMatch(/<CommonPrefixes><Prefix>a%26<\/Prefix><\/CommonPrefixes><EncodingType>url<\/EncodingType><\/ListVersionsResult>$/);
  });
});

describe('object lock documents (§4.19)', () => {
  it('ObjectLockConfiguration with its default retention rule', async () => {
    expect((await h.request('GET', '/vgold?object-lock')).body).toBe(
      `${DECL}<ObjectLockConfiguration ${NS}><ObjectLockEnabled>Enabled</ObjectLockEnabled>` +
        '<Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Years>1</Years></DefaultRetention></Rule></ObjectLockConfiguration>',
    );
  });
  it('Retention and LegalHold', async () => {
    await put(store, 'vgold', 'locked', { retention: { mode: 'GOVERNANCE', until: Date.parse('2031-02-03T04:05:06Z') }, legalHold: true });
    expect((await h.request('GET', '/vgold/locked?retention')).body).toBe(
      `${DECL}<Retention ${NS}><Mode>GOVERNANCE</Mode><RetainUntilDate>2031-02-03T04:05:06.000Z</RetainUntilDate></Retention>`,
    );
    expect((await h.request('GET', '/vgold/locked?legal-hold')).body).toBe(`${DECL}<LegalHold ${NS}><Status>ON</Status></LegalHold>`);
  });
});

describe('lifecycle document', () => {
  it('LifecycleConfiguration in AWS element order, legacy Prefix kept as given', async () => {
    const body =
      '<LifecycleConfiguration><Rule><ID>a&amp;b</ID><Prefix>logs/</Prefix><Status>Enabled</Status><Expiration><Days>3</Days></Expiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>' +
      '<Rule><Filter><And><Prefix>p/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag><ObjectSizeLessThan>100</ObjectSizeLessThan></And></Filter>' +
      '<Status>Disabled</Status><NoncurrentVersionExpiration><NoncurrentDays>5</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions>' +
      '</NoncurrentVersionExpiration></Rule>' +
      '<Rule><Filter><Tag><Key>t</Key><Value></Value></Tag></Filter><Status>Enabled</Status><Expiration><Date>2030-01-01T00:00:00.000Z</Date></Expiration></Rule>' +
      '</LifecycleConfiguration>';
    const put = await h.request('PUT', '/plain?lifecycle', { body, headers: { 'content-md5': createHash('md5').update(body).digest('base64') } });
    expect(put.status, put.body).toBe(200);
    // rules without an ID were given one (48 characters of base64)
    const generated = /<Rule><ID>[A-Za-z0-9+/]{48}<\/ID>/g;
    expect((await h.request('GET', '/plain?lifecycle')).body.replace(generated, '<Rule><ID>generated</ID>')).toBe(
      `${DECL}<LifecycleConfiguration ${NS}><Rule><ID>a&amp;b</ID><Prefix>logs/</Prefix><Status>Enabled</Status><Expiration><Days>3</Days></Expiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
        '<Rule><ID>generated</ID><Filter><And><Prefix>p/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag><ObjectSizeLessThan>100</ObjectSizeLessThan></And></Filter>' +
        '<Status>Disabled</Status><NoncurrentVersionExpiration><NoncurrentDays>5</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions>' +
        '</NoncurrentVersionExpiration></Rule>' +
        '<Rule><ID>generated</ID><Filter><Tag><Key>t</Key><Value></Value></Tag></Filter><Status>Enabled</Status><Expiration><Date>2030-01-01T00:00:00Z</Date></Expiration></Rule>' +
        '</LifecycleConfiguration>',
    );
  });
});
