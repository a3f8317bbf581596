// A copy source over 5 GiB (s3.md §3.18, §6): CopyObject answers 400 InvalidRequest naming the
// limit, over HTTP. The source is a multipart object of six ~900 MB parts (each under the
// pinned uWS's Content-Length limit) streamed as zeros with UNSIGNED-PAYLOAD.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
import { startTusk, type TuskServer } from './helpers/server.js';
import { objectPath, signHeaders, UNSIGNED_PAYLOAD, type HeaderList } from './helpers/sigv4.js';
import { expectS3Error, xmlText } from './helpers/xml.js';

const LIMIT = 5 * 1024 ** 3;
const PARTS = 6;
const PART_SIZE = Math.ceil((LIMIT + 1) / PARTS);

/** PUTs `size` zero bytes as one signed request, streamed with back-pressure; resolves to status and ETag. */
function putZeros(server: TuskServer, key: string, query: string, size: number): Promise<{ status: number; etag: string }> {
  const path = objectPath('huge', key);
  const headers: HeaderList = [['host', `127.0.0.1:${server.port}`], ['content-length', String(size)]];
  const signed = signHeaders({ method: 'PUT', path, query, headers, credentials: server.root, region: server.region, payloadHash: UNSIGNED_PAYLOAD }).headers;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, method: 'PUT', path: `${path}?${query}`, headers: Object.fromEntries(signed), agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: String(res.headers.etag ?? '') }));
      },
    );
    req.on('error', reject);
    const chunk = Buffer.alloc(8 << 20);
    let left = size;
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

describe('CopyObject of a source over 5 GiB', () => {
  let server: TuskServer;
  beforeAll(async () => {
    server = await startTusk({ durability: 'relaxed' });
  });
  afterAll(async () => server?.dispose());

  it('answers 400 InvalidRequest naming the maximum, and stores nothing', async () => {
    expect((await s3Request(server, { method: 'PUT', bucket: 'huge' })).status).toBe(200);
    const created = await s3Request(server, { method: 'POST', bucket: 'huge', key: 'big', query: 'uploads' });
    expect(created.status).toBe(200);
    const uploadId = xmlText(created.text(), 'UploadId')!;
    const parts: string[] = [];
    for (let n = 1; n <= PARTS; n++) {
      const size = n < PARTS ? PART_SIZE : LIMIT + 1 - PART_SIZE * (PARTS - 1);
      const res = await putZeros(server, 'big', `partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`, size);
      expect(res.status, `part ${n}`).toBe(200);
      parts.push(res.etag);
    }
    const xml = `<CompleteMultipartUpload>${parts.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
    const done = await s3Request(server, { method: 'POST', bucket: 'huge', key: 'big', query: `uploadId=${encodeURIComponent(uploadId)}`, body: xml });
    expect(done.status, done.text()).toBe(200);
    const head = await s3Request(server, { method: 'HEAD', bucket: 'huge', key: 'big' });
    expect(Number(head.headers['content-length'])).toBe(LIMIT + 1);

    const copy = await s3Request(server, { method: 'PUT', bucket: 'huge', key: 'copy', headers: { 'x-amz-copy-source': '/huge/big' } });
    const err = expectS3Error(copy, 400, 'InvalidRequest', 'PUT');
    expect(err.message).toBe('The specified copy source is larger than the maximum allowable size for a copy source: 5368709120');
    expect((await s3Request(server, { method: 'HEAD', bucket: 'huge', key: 'copy' })).status).toBe(404);
  }, 180_000);
});
