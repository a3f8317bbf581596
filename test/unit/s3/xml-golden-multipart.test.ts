// Golden strings for the XML of the multipart, copy, batch-delete, tagging and attributes
// responses (style.md §10, s3.md §4.8, §4.11–4.18): namespace, element order, escaping.

import { describe, expect, it } from 'vitest';
import { renderCopyObjectResult } from '../../../src/s3/handlers/copy-object.js';
import { renderDeleteResult } from '../../../src/s3/handlers/delete-objects.js';
import { renderListMultipartUploadsResult, renderListPartsResult } from '../../../src/s3/handlers/list-multipart.js';
import { renderCompleteMultipartUploadResult, renderInitiateMultipartUploadResult } from '../../../src/s3/handlers/multipart.js';
import { renderGetObjectAttributesResponse } from '../../../src/s3/handlers/object-attributes.js';
import { renderCopyPartResult } from '../../../src/s3/handlers/upload-part.js';
import type { S3Object, S3ObjectAttrs } from '../../../src/s3/object-attrs.js';
import { MAX_BUCKET_TAGS, parseTaggingHeader, parseTaggingXml, renderTagging } from '../../../src/s3/tagging.js';
import { el } from '../../../src/s3/xml.js';
import type { Upload } from '../../../src/store/types.js';

const T = Date.parse('2025-01-31T12:00:00.789Z');
const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';
const OWNER = { id: 'c'.repeat(64), displayName: 'o&wner' };
const OWNER_XML = `<ID>${'c'.repeat(64)}</ID><DisplayName>o&amp;wner</DisplayName>`;
/** an upload another account began: it is the Initiator, the bucket's ownership controls made OWNER the Owner */
const WRITER = { id: 'd'.repeat(64), displayName: 'writer' };
const WRITER_XML = `<ID>${'d'.repeat(64)}</ID><DisplayName>writer</DisplayName>`;
const PEOPLE = { initiator: WRITER, owner: OWNER };
const ATTRS: S3ObjectAttrs = { contentType: 'text/plain', storageClass: 'STANDARD', acl: 'private', headers: {}, meta: {} };

describe('multipart responses', () => {
  it('InitiateMultipartUploadResult (§4.13)', () => {
    expect(renderInitiateMultipartUploadResult('b', 'a<b', 'UP1')).toBe(
      `${DECL}<InitiateMultipartUploadResult ${NS}><Bucket>b</Bucket><Key>a&lt;b</Key><UploadId>UP1</UploadId></InitiateMultipartUploadResult>`,
    );
  });

  it('CompleteMultipartUploadResult with and without a checksum (§4.16)', () => {
    expect(renderCompleteMultipartUploadResult('http://h/b/k%20x', 'b', 'k x', 'abc-2', { algorithm: 'CRC32', value: 'AAAAAA==-2', type: 'COMPOSITE' })).toBe(
      `${DECL}<CompleteMultipartUploadResult ${NS}><Location>http://h/b/k%20x</Location><Bucket>b</Bucket><Key>k x</Key>` +
        '<ETag>&quot;abc-2&quot;</ETag><ChecksumCRC32>AAAAAA==-2</ChecksumCRC32><ChecksumType>COMPOSITE</ChecksumType></CompleteMultipartUploadResult>',
    );
    expect(renderCompleteMultipartUploadResult('http://h/b/k', 'b', 'k', 'abc-1', undefined)).toBe(
      `${DECL}<CompleteMultipartUploadResult ${NS}><Location>http://h/b/k</Location><Bucket>b</Bucket><Key>k</Key><ETag>&quot;abc-1&quot;</ETag></CompleteMultipartUploadResult>`,
    );
  });

  it('CopyPartResult and CopyObjectResult (§4.11, §4.14)', () => {
    expect(renderCopyPartResult(T, 'e1', { algorithm: 'CRC64NVME', value: 'AAAAAAAAAAA=', type: 'FULL_OBJECT' })).toBe(
      `${DECL}<CopyPartResult ${NS}><LastModified>2025-01-31T12:00:00.000Z</LastModified><ETag>&quot;e1&quot;</ETag><ChecksumCRC64NVME>AAAAAAAAAAA=</ChecksumCRC64NVME></CopyPartResult>`,
    );
    expect(renderCopyObjectResult(T, 'e2', { algorithm: 'SHA256', value: 'x-2', type: 'COMPOSITE' })).toBe(
      `${DECL}<CopyObjectResult ${NS}><LastModified>2025-01-31T12:00:00.000Z</LastModified><ETag>&quot;e2&quot;</ETag></CopyObjectResult>`,
    );
  });

  it('ListPartsResult (§4.17)', () => {
    const upload: Upload<S3ObjectAttrs> = {
      bucket: 'b', key: 'k&', uploadId: 'UP', initiated: T, attrs: { ...ATTRS, uploadChecksum: { algorithm: 'CRC32', type: 'COMPOSITE' } },
    };
    const parts = [
      { partNumber: 2, size: 5, etag: 'p2', lastModified: T, extents: [], attrs: { checksum: { algorithm: 'CRC32' as const, value: 'AQIDBA==', type: 'FULL_OBJECT' as const } } },
    ];
    expect(renderListPartsResult({ bucket: 'b', upload, people: PEOPLE, marker: 1, maxParts: 1, parts, isTruncated: true })).toBe(
      `${DECL}<ListPartsResult ${NS}><Bucket>b</Bucket><Key>k&amp;</Key><UploadId>UP</UploadId>` +
        `<Initiator>${WRITER_XML}</Initiator><Owner>${OWNER_XML}</Owner><StorageClass>STANDARD</StorageClass>` +
        '<PartNumberMarker>1</PartNumberMarker><NextPartNumberMarker>2</NextPartNumberMarker><MaxParts>1</MaxParts>' +
        '<IsTruncated>true</IsTruncated><ChecksumAlgorithm>CRC32</ChecksumAlgorithm><ChecksumType>COMPOSITE</ChecksumType>' +
        '<Part><PartNumber>2</PartNumber><LastModified>2025-01-31T12:00:00.000Z</LastModified><ETag>&quot;p2&quot;</ETag><Size>5</Size>' +
        '<ChecksumCRC32>AQIDBA==</ChecksumCRC32></Part></ListPartsResult>',
    );
  });

  it('ListMultipartUploadsResult with prefixes, url encoding and next markers (§4.18)', () => {
    const upload = { bucket: 'b', key: 'a b+', uploadId: 'U1', initiated: T, attrs: ATTRS };
    const xml = renderListMultipartUploadsResult({
      bucket: 'b', people: () => PEOPLE, keyMarker: '', uploadIdMarker: '', prefix: '', delimiter: '/', maxUploads: 2, url: true,
      result: { items: [{ kind: 'upload', upload }, { kind: 'prefix', prefix: 'd ir/' }], isTruncated: true },
    });
    expect(xml).toBe(
      `${DECL}<ListMultipartUploadsResult ${NS}><Bucket>b</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker>` +
        '<NextKeyMarker>d%20ir/</NextKeyMarker><NextUploadIdMarker></NextUploadIdMarker><Delimiter>/</Delimiter><Prefix></Prefix>' +
        '<EncodingType>url</EncodingType><MaxUploads>2</MaxUploads><IsTruncated>true</IsTruncated>' +
        `<Upload><Key>a%20b%2B</Key><UploadId>U1</UploadId><Initiator>${WRITER_XML}</Initiator><Owner>${OWNER_XML}</Owner>` +
        '<StorageClass>STANDARD</StorageClass><Initiated>2025-01-31T12:00:00.000Z</Initiated></Upload>' +
        '<CommonPrefixes><Prefix>d%20ir/</Prefix></CommonPrefixes></ListMultipartUploadsResult>',
    );
  });
});

describe('DeleteResult (§4.8)', () => {
  const entries = [
    { kind: 'deleted' as const, key: 'a&' },
    { kind: 'deleted' as const, key: 'v', versionId: 'V1', deleteMarker: true, deleteMarkerVersionId: 'V1' },
    { kind: 'error' as const, key: 'e', versionId: 'bad', code: 'NoSuchVersion' as const, message: 'The specified version does not exist.' },
  ];
  it('lists Deleted and Error entries in request order', () => {
    expect(renderDeleteResult(entries, false)).toBe(
      `${DECL}<DeleteResult ${NS}><Deleted><Key>a&amp;</Key></Deleted>` +
        '<Deleted><Key>v</Key><VersionId>V1</VersionId><DeleteMarker>true</DeleteMarker><DeleteMarkerVersionId>V1</DeleteMarkerVersionId></Deleted>' +
        '<Error><Key>e</Key><VersionId>bad</VersionId><Code>NoSuchVersion</Code><Message>The specified version does not exist.</Message></Error></DeleteResult>',
    );
  });
  it('quiet mode keeps only errors; nothing at all is a self-closing root', () => {
    expect(renderDeleteResult(entries, true)).toBe(
      `${DECL}<DeleteResult ${NS}><Error><Key>e</Key><VersionId>bad</VersionId><Code>NoSuchVersion</Code><Message>The specified version does not exist.</Message></Error></DeleteResult>`,
    );
    expect(renderDeleteResult(entries.slice(0, 1), true)).toBe(`${DECL}<DeleteResult ${NS}/>`);
  });
});

describe('tagging (§4.12, §3.19)', () => {
  const taggingXml = (tags: Array<[string, string]>) =>
    Buffer.from(`<Tagging><TagSet>${tags.map(([k, v]) => `<Tag>${el('Key', k)}${el('Value', v)}</Tag>`).join('')}</TagSet></Tagging>`);
  it('renders (in key order, escaped) and parses the Tagging document, keeping spaces and decoding references', () => {
    const xml = renderTagging([['k <1>', ' v '], ['empty', '']]);
    expect(xml).toBe(
      `${DECL}<Tagging ${NS}><TagSet><Tag><Key>empty</Key><Value></Value></Tag><Tag><Key>k &lt;1&gt;</Key><Value> v </Value></Tag></TagSet></Tagging>`,
    );
    expect(renderTagging([])).toBe(`${DECL}<Tagging ${NS}><TagSet></TagSet></Tagging>`);
    const body = '<Tagging><TagSet><Tag><Key> k 1 </Key><Value> v </Value></Tag><Tag><Key>caf&#xE9;</Key><Value></Value></Tag></TagSet></Tagging>';
    expect(parseTaggingXml(Buffer.from(body))).toEqual([[' k 1 ', ' v '], ['café', '']]);
  });
  it('parses x-amz-tagging as URL query form', () => {
    expect(parseTaggingHeader('a=1&b=two%20words&c=&d+e=%2B')).toEqual([['a', '1'], ['b', 'two words'], ['c', ''], ['d e', '+']]);
    expect(parseTaggingHeader(undefined)).toBeUndefined();
  });
  it('skips the empty pairs of x-amz-tagging, as AWS does: `&` is no tag, `key=&` one empty-valued tag', () => {
    expect(parseTaggingHeader('')).toEqual([]);
    expect(parseTaggingHeader('&')).toEqual([]);
    expect(parseTaggingHeader('key=&')).toEqual([['key', '']]);
    expect(parseTaggingHeader('&a=1&&b=2&')).toEqual([['a', '1'], ['b', '2']]);
    expect(() => parseTaggingHeader('=v')).toThrow(expect.objectContaining({ code: 'InvalidTag' }));
  });
  it('accepts AWS\'s tag alphabet: letters and digits of any script, spaces, + - = . _ : / @', () => {
    const tags: Array<[string, string]> = [['café', '日本'], ['a+b-c=d.e_f:g/h@i', 'x y+-=._:/@'], ['٣', '𝟘'], ['k', '']];
    expect(parseTaggingXml(taggingXml(tags))).toEqual(tags);
    expect(parseTaggingHeader('caf%C3%A9=%E6%97%A5%E6%9C%AC&a%2Bb=%40%3A%2F')).toEqual([['café', '日本'], ['a+b', '@:/']]);
    expect(parseTaggingXml(taggingXml([['k'.repeat(128), 'v'.repeat(256)]]))).toHaveLength(1);
    expect(parseTaggingXml(taggingXml([['日'.repeat(128), '本'.repeat(256)]]))).toHaveLength(1);
    expect(parseTaggingXml(taggingXml([['awsx:k', 'aws:v'], ['AWS:k', '']]))).toHaveLength(2);
  });
  it('refuses other characters, TAB, lengths past the limits and aws: keys with InvalidTag', () => {
    const refused = (tags: Array<[string, string]>, message: string, max?: number) =>
      expect(() => parseTaggingXml(taggingXml(tags), max)).toThrow(expect.objectContaining({ code: 'InvalidTag', status: 400, message }));
    const badKey = 'The TagKey you have provided is invalid';
    const badValue = 'The TagValue you have provided is invalid';
    refused([['te&st', 'v']], badKey);
    refused([['a\tb', 'v']], badKey);
    refused([['k', 'a\tb']], badValue);
    refused([['k', 'line\nbreak']], badValue);
    for (const c of ['*', '?', '#', '!', ',', ';', '(', '"', '<', '%', '~']) refused([[`k${c}`, 'v']], badKey);
    refused([['k', 'v$']], badValue);
    refused([['', 'v']], badKey);
    refused([['k'.repeat(129), 'v']], badKey);
    refused([['k', 'v'.repeat(257)]], badValue);
    refused([['aws:k', 'v']], 'Your TagKey cannot be prefixed with aws:');
    refused([['aws:k', 'v']], 'System tags cannot be added/updated by requester', MAX_BUCKET_TAGS);
    expect(() => parseTaggingHeader('te%26st=v')).toThrow(expect.objectContaining({ code: 'InvalidTag', message: badKey }));
    expect(() => parseTaggingHeader('k=a%09b')).toThrow(expect.objectContaining({ code: 'InvalidTag', message: badValue }));
  });
});

describe('GetObjectAttributesResponse', () => {
  it('renders the asked attributes in AWS order, parts paged', () => {
    const version: S3Object = {
      key: 'k', versionId: 'null', deleteMarker: false, size: 15, etag: 'abc-3', lastModified: T, extents: [],
      attrs: { ...ATTRS, checksum: { algorithm: 'CRC32C', value: 'AAAAAA==', type: 'FULL_OBJECT' }, parts: [{ size: 5, checksum: 'AQ==' }, { size: 5 }, { size: 5 }] },
    };
    const all = new Set(['ObjectSize', 'StorageClass', 'ObjectParts', 'Checksum', 'ETag'] as const);
    expect(renderGetObjectAttributesResponse(version, all, 0, 1)).toBe(
      `${DECL}<GetObjectAttributesResponse ${NS}><ETag>abc-3</ETag>` +
        '<Checksum><ChecksumCRC32C>AAAAAA==</ChecksumCRC32C><ChecksumType>FULL_OBJECT</ChecksumType></Checksum>' +
        '<ObjectParts><PartsCount>3</PartsCount><PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>1</NextPartNumberMarker>' +
        '<MaxParts>1</MaxParts><IsTruncated>true</IsTruncated><Part><PartNumber>1</PartNumber><Size>5</Size><ChecksumCRC32C>AQ==</ChecksumCRC32C></Part></ObjectParts>' +
        '<StorageClass>STANDARD</StorageClass><ObjectSize>15</ObjectSize></GetObjectAttributesResponse>',
    );
  });
});
