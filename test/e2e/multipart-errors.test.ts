// Every error of the multipart / copy / batch-delete / tagging family provoked over HTTP, with its
// status, Code and RequestId checked (s3.md §3.17–3.26, §5), and nothing left behind by a failure.

import { beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { useTusk } from './helpers/lifecycle.js';
import { putAwsChunked } from './helpers/chunked.js';
import { bucketName, crc32Base64, md5Hex, randomBody } from './helpers/fixtures.js';
import { md5Base64, STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER } from './helpers/sigv4.js';
import { expectS3Error, xmlAll, xmlText } from './helpers/xml.js';

const ctx = useTusk();
const bucket = bucketName('mperr');
const MiB = 1024 * 1024;

async function createUpload(key: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await s3Request(ctx.server, { method: 'POST', bucket, key, query: 'uploads', headers });
  expect(res.status, res.text()).toBe(200);
  return xmlText(res.text(), 'UploadId')!;
}

async function uploadPart(key: string, uploadId: string, n: number, body: Buffer, headers: Record<string, string> = {}): Promise<string> {
  const res = await s3Request(ctx.server, { method: 'PUT', bucket, key, query: { partNumber: String(n), uploadId }, body, headers });
  expect(res.status, res.text()).toBe(200);
  return res.headers['etag']!;
}

function completeXml(parts: Array<[number, string]>, extra = ''): string {
  return `<CompleteMultipartUpload>${parts.map(([n, e]) => `<Part><PartNumber>${n}</PartNumber><ETag>${e}</ETag>${extra}</Part>`).join('')}</CompleteMultipartUpload>`;
}

function complete(key: string, uploadId: string, body: string, headers: Record<string, string> = {}) {
  return s3Request(ctx.server, { method: 'POST', bucket, key, query: { uploadId }, body, headers });
}

async function absent(key: string): Promise<void> {
  expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key })).status, `${key} must not exist`).toBe(404);
}

beforeAll(async () => {
  expect((await s3Request(ctx.server, { method: 'PUT', bucket })).status).toBe(200);
  expect((await s3Request(ctx.server, { method: 'PUT', bucket, key: 'src', body: 'source bytes' })).status).toBe(200);
});

describe('multipart errors', () => {
  it('NoSuchUpload for parts, Complete, Abort and ListParts of an unknown or finished upload', async () => {
    const unknown = 'A'.repeat(32);
    for (const odd of ['x'.repeat(3000), '../..', '%00']) {
      expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'k'.repeat(1000), query: { uploadId: odd } }), 404, 'NoSuchUpload');
      expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket, key: 'k'.repeat(1000), query: { uploadId: odd } }), 404, 'NoSuchUpload');
    }
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket, key: 'k', query: { partNumber: '1', uploadId: unknown }, body: 'x' }), 404, 'NoSuchUpload');
    expectS3Error(await complete('k', unknown, completeXml([[1, '"x"']])), 404, 'NoSuchUpload');
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket, key: 'k', query: { uploadId: unknown } }), 404, 'NoSuchUpload');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'k', query: { uploadId: unknown } }), 404, 'NoSuchUpload');
    const id = await createUpload('k');
    // an upload id belongs to its key
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'other', query: { uploadId: id } }), 404, 'NoSuchUpload');
    expect((await s3Request(ctx.server, { method: 'DELETE', bucket, key: 'k', query: { uploadId: id } })).status).toBe(204);
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket, key: 'k', query: { partNumber: '1', uploadId: id }, body: 'x' }), 404, 'NoSuchUpload');
    await absent('k');
  });

  it('InvalidArgument for part numbers outside 1…10000', async () => {
    const id = await createUpload('pn');
    for (const n of ['0', '10001', 'abc', '-1', '1.5']) {
      const res = await s3Request(ctx.server, { method: 'PUT', bucket, key: 'pn', query: { partNumber: n, uploadId: id }, body: 'x' });
      const err = expectS3Error(res, 400, 'InvalidArgument');
      expect(err.message).toBe('Part number must be an integer between 1 and 10000, inclusive');
    }
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'src', query: { partNumber: '0' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'src', query: { partNumber: '2' } }), 416, 'InvalidPartNumber');
  });

  it('MalformedXML, InvalidPartOrder, InvalidPart, EntityTooSmall at Complete; the upload survives each', async () => {
    const id = await createUpload('mp');
    const e1 = await uploadPart('mp', id, 1, randomBody(5 * MiB));
    const e2 = await uploadPart('mp', id, 2, randomBody(1000));
    const e3 = await uploadPart('mp', id, 3, randomBody(10));
    for (const bad of ['', 'not xml', '<CompleteMultipartUpload></CompleteMultipartUpload>', '<Other/>',
      '<CompleteMultipartUpload><Part><ETag>"x"</ETag></Part></CompleteMultipartUpload>',
      '<CompleteMultipartUpload><Part><PartNumber>x</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>']) {
      expectS3Error(await complete('mp', id, bad), 400, 'MalformedXML');
    }
    for (const n of [0, 10001]) expectS3Error(await complete('mp', id, completeXml([[1, e1], [n, e2]])), 400, 'InvalidArgument');
    expectS3Error(await complete('mp', id, completeXml([[2, e2], [1, e1]])), 400, 'InvalidPartOrder');
    expectS3Error(await complete('mp', id, completeXml([[1, e1], [1, e1]])), 400, 'InvalidPartOrder');
    const missing = expectS3Error(await complete('mp', id, completeXml([[1, e1], [4, e2]])), 400, 'InvalidPart');
    expect(xmlText(missing.xml, 'PartNumber')).toBe('4');
    expectS3Error(await complete('mp', id, completeXml([[1, '"0123456789abcdef0123456789abcdef"']])), 400, 'InvalidPart');
    const small = expectS3Error(await complete('mp', id, completeXml([[1, e1], [2, e2], [3, e3]])), 400, 'EntityTooSmall');
    expect(xmlText(small.xml, 'PartNumber')).toBe('2');
    expect(xmlText(small.xml, 'MinSizeAllowed')).toBe(String(5 * MiB));
    expectS3Error(await complete('mp', id, completeXml([[1, e1], [3, e3]]), { 'x-amz-mp-object-size': '1' }), 400, 'InvalidRequest');
    // the headers' form is checked before the parts (here too small), as S3 does
    const badSize = expectS3Error(await complete('mp', id, completeXml([[1, e1], [2, e2], [3, e3]]), { 'x-amz-mp-object-size': 'size' }), 400, 'InvalidRequest');
    expect(badSize.message).toBe('Value for x-amz-mp-object-size header is invalid.');
    for (const [name, value] of [['x-amz-checksum-crc32', 'wrong'], ['x-amz-checksum-sha256', 'AAAA-2'], ['x-amz-checksum-crc33', 'AAAAAA==']]) {
      const bad = expectS3Error(await complete('mp', id, completeXml([[1, e1], [2, e2], [3, e3]]), { [name!]: value! }), 400, 'InvalidRequest');
      expect(bad.message).toBe(`Value for ${name} header is invalid.`);
    }
    await absent('mp');
    const ok = await complete('mp', id, completeXml([[1, e1], [3, e3]]));
    expect(ok.status, ok.text()).toBe(200);
    // an identical retry (its answer was lost) gets the same 200; any other Complete finds no upload (s3.md §3.23)
    const retry = await complete('mp', id, completeXml([[1, e1], [3, e3]]));
    expect(retry.status).toBe(200);
    expect(xmlText(retry.text(), 'ETag')).toBe(xmlText(ok.text(), 'ETag'));
    expectS3Error(await complete('mp', id, completeXml([[1, e1]])), 404, 'NoSuchUpload');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket, key: 'mp', query: { partNumber: '2', uploadId: id }, body: 'x' }), 404, 'NoSuchUpload');
  }, 60_000);

  it('checksum rules: type header alone, mismatched algorithm, missing composite part checksum, bad expected checksum', async () => {
    expectS3Error(await s3Request(ctx.server, { method: 'POST', bucket, key: 'ck', query: 'uploads', headers: { 'x-amz-checksum-type': 'COMPOSITE' } }), 400, 'InvalidRequest');
    const unknown = expectS3Error(await s3Request(ctx.server, { method: 'POST', bucket, key: 'ck', query: 'uploads', headers: { 'x-amz-checksum-algorithm': 'crc64nvm' } }), 400, 'InvalidRequest');
    expect(unknown.message).toBe('Checksum algorithm provided is unsupported.');
    expectS3Error(await s3Request(ctx.server, {
      method: 'POST', bucket, key: 'ck', query: 'uploads', headers: { 'x-amz-checksum-algorithm': 'SHA1', 'x-amz-checksum-type': 'FULL_OBJECT' },
    }), 400, 'InvalidRequest');
    const id = await createUpload('ck', { 'x-amz-checksum-algorithm': 'CRC32' });
    const body = Buffer.from('part body');
    const wrong = await s3Request(ctx.server, {
      method: 'PUT', bucket, key: 'ck', query: { partNumber: '1', uploadId: id }, body, headers: { 'x-amz-checksum-crc32c': 'AAAAAA==' },
    });
    expect(expectS3Error(wrong, 400, 'InvalidRequest').message).toBe('Checksum Type mismatch occurred, expected checksum Type: crc32, actual checksum Type: crc32c');
    const bad = await s3Request(ctx.server, {
      method: 'PUT', bucket, key: 'ck', query: { partNumber: '1', uploadId: id }, body, headers: { 'x-amz-checksum-crc32': 'AAAAAA==' },
    });
    expectS3Error(bad, 400, 'BadDigest');
    const etag = await uploadPart('ck', id, 1, body);
    const noPartSum = await complete('ck', id, completeXml([[1, etag]]));
    expect(expectS3Error(noPartSum, 400, 'InvalidRequest').message).toMatch(/It was missing for part 1 in the request/);
    expectS3Error(await complete('ck', id, completeXml([[1, etag]], '<ChecksumCRC32>AAAAAA==</ChecksumCRC32>')), 400, 'InvalidPart');
    const parts = await s3Request(ctx.server, { method: 'GET', bucket, key: 'ck', query: { uploadId: id } });
    const sum = xmlText(parts.text(), 'ChecksumCRC32')!;
    const withSum = completeXml([[1, etag]], `<ChecksumCRC32>${sum}</ChecksumCRC32>`);
    expectS3Error(await complete('ck', id, withSum, { 'x-amz-checksum-crc32': 'AAAAAA==' }), 400, 'BadDigest');
    expectS3Error(await complete('ck', id, withSum, { 'x-amz-checksum-type': 'FULL_OBJECT' }), 400, 'InvalidRequest');
    await absent('ck');
    expect((await complete('ck', id, withSum)).status).toBe(200);
  });

  it('ListParts and ListMultipartUploads reject bad paging arguments', async () => {
    const id = await createUpload('lp');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'lp', query: { uploadId: id, 'max-parts': 'x' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'lp', query: { uploadId: id, 'part-number-marker': '-1' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, query: { uploads: '', 'max-uploads': 'many' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, query: { uploads: '', 'encoding-type': 'base64' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket: 'no-such-bucket-mperr', query: { uploads: '' } }), 404, 'NoSuchBucket');
  });
});

describe('UploadPart body variants (s3.md §2.8, §3.21)', () => {
  it('takes aws-chunked parts in every streaming mode, with trailer checksums verified', async () => {
    const id = await createUpload('chunked-parts', { 'x-amz-checksum-algorithm': 'CRC32' });
    const bodies = [randomBody(5 * MiB), randomBody(5 * MiB), randomBody(777)];
    const modes = [STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER] as const;
    const parts: Array<[number, string]> = [];
    for (const [i, mode] of modes.entries()) {
      const data = bodies[i]!;
      const trailer = mode === STREAMING_SIGNED ? undefined : { name: 'x-amz-checksum-crc32', value: crc32Base64(data) };
      const res = await putAwsChunked(ctx.server, {
        bucket, key: 'chunked-parts', query: `partNumber=${i + 1}&uploadId=${id}`, data, mode, trailer, chunkSize: 64 * 1024,
      });
      expect(res.status, res.text()).toBe(200);
      expect(res.headers['etag']).toBe(`"${md5Hex(data)}"`);
      expect(res.headers['x-amz-checksum-crc32']).toBe(crc32Base64(data));
      parts.push([i + 1, res.headers['etag']!]);
    }
    const bad = await putAwsChunked(ctx.server, {
      bucket, key: 'chunked-parts', query: `partNumber=4&uploadId=${id}`, data: Buffer.from('x'), mode: STREAMING_UNSIGNED_TRAILER,
      trailer: { name: 'x-amz-checksum-crc32', value: crc32Base64(Buffer.from('y')) },
    });
    expectS3Error(bad, 400, 'BadDigest');
    const listed = await s3Request(ctx.server, { method: 'GET', bucket, key: 'chunked-parts', query: { uploadId: id } });
    expect(xmlAll(listed.text(), 'PartNumber')).toEqual(['1', '2', '3']);
    const sums = xmlAll(listed.text(), 'ChecksumCRC32');
    const body = completeXml(parts).replace(/<\/ETag>/g, () => `</ETag><ChecksumCRC32>${sums.shift()}</ChecksumCRC32>`);
    const done = await complete('chunked-parts', id, body);
    expect(done.status, done.text()).toBe(200);
    const got = await s3Request(ctx.server, { method: 'GET', bucket, key: 'chunked-parts' });
    expect(got.body.equals(Buffer.concat(bodies))).toBe(true);
  }, 60_000);
});

describe('copy errors', () => {
  const copy = (key: string, source: string, headers: Record<string, string> = {}) =>
    s3Request(ctx.server, { method: 'PUT', bucket, key, headers: { 'x-amz-copy-source': source, ...headers } });

  it('missing source bucket, key or version; malformed source; bad directives', async () => {
    expectS3Error(await copy('c', `/${bucket}/nope`), 404, 'NoSuchKey');
    expectS3Error(await copy('c', '/no-such-bucket-x1/src'), 404, 'NoSuchBucket');
    expectS3Error(await copy('c', `/${bucket}/src?versionId=${'B'.repeat(32)}`), 404, 'NoSuchVersion');
    expectS3Error(await copy('c', `/${bucket}/src?versionId=bad`), 400, 'InvalidArgument');
    expectS3Error(await copy('c', 'just-a-bucket'), 400, 'InvalidArgument');
    expectS3Error(await copy('c', `/${bucket}/`), 400, 'InvalidArgument');
    expectS3Error(await copy('c', `/${bucket}/src`, { 'x-amz-metadata-directive': 'MERGE' }), 400, 'InvalidArgument');
    expectS3Error(await copy('c', `/${bucket}/src`, { 'x-amz-tagging-directive': 'MERGE' }), 400, 'InvalidArgument');
    expectS3Error(await copy('src', `/${bucket}/src`), 400, 'InvalidRequest');
    await absent('c');
  });

  it('PreconditionFailed for each copy conditional that does not hold', async () => {
    const past = new Date(Date.now() - 86_400_000).toUTCString();
    const etag = (await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'src' })).headers['etag']!;
    const conditions: Array<Record<string, string>> = [
      { 'x-amz-copy-source-if-match': '"0123456789abcdef0123456789abcdef"' },
      { 'x-amz-copy-source-if-none-match': etag },
      { 'x-amz-copy-source-if-unmodified-since': past },
      // modified before now: "not modified since now"
      { 'x-amz-copy-source-if-modified-since': new Date().toUTCString() },
    ];
    for (const headers of conditions) {
      expectS3Error(await copy('cond', `/${bucket}/src`, headers), 412, 'PreconditionFailed');
    }
    // destination write conditionals are the engine's (If-None-Match: * on an existing key)
    expectS3Error(await copy('src-copy-target', `/${bucket}/src`, { 'if-match': '"0123456789abcdef0123456789abcdef"' }), 404, 'NoSuchKey');
    await absent('cond');
  });

  it('UploadPartCopy: NoSuchUpload, bad ranges, missing source', async () => {
    const id = await createUpload('upc');
    const part = (headers: Record<string, string>, uploadId = id) =>
      s3Request(ctx.server, { method: 'PUT', bucket, key: 'upc', query: { partNumber: '1', uploadId }, headers: { 'x-amz-copy-source': `/${bucket}/src`, ...headers } });
    expectS3Error(await part({}, 'C'.repeat(32)), 404, 'NoSuchUpload');
    for (const range of ['bytes=0-100', 'bytes=5-2', 'bytes=0-', 'items=0-1', 'bytes=12-12']) {
      const err = expectS3Error(await part({ 'x-amz-copy-source-range': range }), 400, 'InvalidArgument');
      expect(err.message).toBe('Range specified is not valid for source object of size: 12');
    }
    expectS3Error(await part({ 'x-amz-copy-source': `/${bucket}/gone` }), 404, 'NoSuchKey');
    expectS3Error(await part({ 'x-amz-copy-source-if-match': '"nope"' }), 412, 'PreconditionFailed');
    const ok = await part({ 'x-amz-copy-source-range': 'bytes=7-11' });
    expect(ok.status, ok.text()).toBe(200);
    expect(xmlText(ok.text(), 'ETag')).toMatch(/^"[0-9a-f]{32}"$/);
  });
});

describe('DeleteObjects errors', () => {
  const del = (body: string, headers: Record<string, string> | null = null) =>
    s3Request(ctx.server, { method: 'POST', bucket, query: 'delete', body, headers: headers ?? { 'content-md5': md5Base64(body) } });
  const entries = (n: number) => `<Delete>${Array.from({ length: n }, (_, i) => `<Object><Key>k${i}</Key></Object>`).join('')}</Delete>`;

  it('MalformedXML for 0 or more than 1000 keys and bad XML; 1000 keys are fine', async () => {
    expectS3Error(await del(entries(1001)), 400, 'MalformedXML');
    expectS3Error(await del(entries(0)), 400, 'MalformedXML');
    expectS3Error(await del('<Delete><Object></Object></Delete>'), 400, 'MalformedXML');
    expectS3Error(await del('<Delete><Object><Key>a</Key>'), 400, 'MalformedXML');
    const ok = await del(entries(1000));
    expect(ok.status).toBe(200);
    expect(ok.text().match(/<Deleted>/g)?.length).toBe(1000);
  });

  it('Content-MD5 or a checksum is required and verified', async () => {
    const body = '<Delete><Object><Key>src</Key></Object></Delete>';
    expect(expectS3Error(await del(body, {}), 400, 'InvalidRequest').message).toBe('Missing required header for this request: Content-MD5 OR x-amz-checksum-*');
    expectS3Error(await del(body, { 'content-md5': md5Base64('other') }), 400, 'BadDigest');
    expectS3Error(await del(body, { 'content-md5': 'not-md5' }), 400, 'InvalidDigest');
    expectS3Error(await del(body, { 'x-amz-checksum-crc32': 'AAAAAA==' }), 400, 'BadDigest');
    expect((await s3Request(ctx.server, { method: 'HEAD', bucket, key: 'src' })).status).toBe(200);
  });
});

describe('tagging errors', () => {
  const putTags = (xml: string) => s3Request(ctx.server, { method: 'PUT', bucket, key: 'src', query: 'tagging', body: xml });

  it('InvalidTag for limits, MalformedXML for bad bodies, InvalidArgument for a bad x-amz-tagging, NoSuchKey', async () => {
    const tag = (k: string, v: string) => `<Tag><Key>${k}</Key><Value>${v}</Value></Tag>`;
    expectS3Error(await putTags(`<Tagging><TagSet>${Array.from({ length: 11 }, (_, i) => tag(`k${i}`, 'v')).join('')}</TagSet></Tagging>`), 400, 'InvalidTag');
    expectS3Error(await putTags(`<Tagging><TagSet>${tag('a', '1')}${tag('a', '2')}</TagSet></Tagging>`), 400, 'InvalidTag');
    expectS3Error(await putTags(`<Tagging><TagSet>${tag('a', 'v'.repeat(257))}</TagSet></Tagging>`), 400, 'InvalidTag');
    expectS3Error(await putTags(`<Tagging><TagSet>${tag('', 'v')}</TagSet></Tagging>`), 400, 'InvalidTag');
    expectS3Error(await putTags('<Tagging>'), 400, 'MalformedXML');
    expectS3Error(await putTags('<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>'), 400, 'MalformedXML');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket, key: 't', body: 'x', headers: { 'x-amz-tagging': 'a=%zz' } }), 400, 'InvalidArgument');
    expectS3Error(await s3Request(ctx.server, { method: 'PUT', bucket, key: 't', body: 'x', headers: { 'x-amz-tagging': 'a=1&a=2' } }), 400, 'InvalidTag');
    await absent('t');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'missing', query: 'tagging' }), 404, 'NoSuchKey');
    expectS3Error(await s3Request(ctx.server, { method: 'DELETE', bucket, key: 'missing', query: 'tagging' }), 404, 'NoSuchKey');
    expectS3Error(await s3Request(ctx.server, { method: 'GET', bucket, key: 'src', query: 'attributes' }), 400, 'InvalidArgument');
  });
});
