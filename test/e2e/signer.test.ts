// The test-side SigV4 signer must agree with the AWS SDK's, or every raw-request test is meaningless.

import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import {
  buildQuery,
  canonicalQuery,
  encodeAwsChunked,
  objectPath,
  presignQuery,
  sha256Hex,
  signHeaders,
  uriEncode,
} from './helpers/sigv4.js';

function toBytes(d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof d === 'string') return d;
  if (d instanceof ArrayBuffer) return new Uint8Array(d);
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/** node:crypto behind the SDK's Checksum interface (HMAC when constructed with a secret). */
class Sha256 {
  private readonly h: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(toBytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.h.digest();
  }
  reset(): void {}
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const date = new Date('2025-01-31T12:00:00Z');
const sdkSigner = new SignatureV4({ credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false, applyChecksum: false });

describe('test-side SigV4 signer', () => {
  it('matches @smithy/signature-v4 for a header-signed request with a nasty key and query', async () => {
    const path = objectPath('bkt', 'a b/+%/\u{1F418}//x');
    const query = buildQuery([['list-type', '2'], ['prefix', 'a b/'], ['x-id', 'GetObject'], ['empty', '']]);
    const body = Buffer.from('hello');
    const hash = sha256Hex(body);
    const ours = signHeaders({
      method: 'PUT',
      path,
      query,
      headers: [['host', '127.0.0.1:9000'], ['x-amz-meta-a', '  two  spaces '], ['content-type', 'text/plain']],
      credentials,
      date,
      payloadHash: hash,
    });
    const sdkQuery: Record<string, string> = {};
    for (const item of query.split('&')) {
      const [k, v] = item.split('=');
      sdkQuery[decodeURIComponent(k!)] = decodeURIComponent(v!);
    }
    const signed = await sdkSigner.sign(
      {
        method: 'PUT',
        protocol: 'http:',
        hostname: '127.0.0.1',
        port: 9000,
        path: path,
        query: sdkQuery,
        headers: {
          host: '127.0.0.1:9000',
          'x-amz-meta-a': '  two  spaces ',
          'content-type': 'text/plain',
          'x-amz-content-sha256': hash,
        },
        body,
      },
      { signingDate: date },
    );
    const auth = ours.headers.find(([n]) => n === 'authorization')![1];
    expect(auth).toBe(signed.headers['authorization']);
  });

  it('canonicalises raw queries (+ is space, valueless params, byte order)', () => {
    expect(canonicalQuery('b=2&a=x+y&versioning&a=%2f')).toBe('a=%2F&a=x%20y&b=2&versioning=');
    expect(uriEncode('a/b c', true)).toBe('a/b%20c');
  });

  it('presigns like the SDK', async () => {
    const path = objectPath('bkt', 'k ey');
    const ours = presignQuery({ method: 'GET', path, host: '127.0.0.1:9000', credentials, date, expiresSeconds: 300 });
    const sdk = await sdkSigner.presign(
      { method: 'GET', protocol: 'http:', hostname: '127.0.0.1', port: 9000, path, query: {}, headers: { host: '127.0.0.1:9000', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
      {
        signingDate: date,
        expiresIn: 300,
        unsignableHeaders: new Set(['x-amz-content-sha256']),
        unhoistableHeaders: new Set(['x-amz-content-sha256']),
      },
    );
    expect(new URLSearchParams(ours).get('X-Amz-Signature')).toBe(sdk.query?.['X-Amz-Signature']);
  });

  it('frames unsigned aws-chunked bodies with a trailer', () => {
    const out = encodeAwsChunked({ data: Buffer.from('abcdef'), chunkSize: 4, trailer: { name: 'x-amz-checksum-crc32', value: 'AAAAAA==' } });
    expect(out.toString()).toBe('4\r\nabcd\r\n2\r\nef\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n');
  });

  it('reproduces the AWS documentation example for signed aws-chunked uploads', () => {
    // "Signature Calculations for the Authorization Header: Transferring Payload in Multiple Chunks"
    const docCreds = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
    const signed = signHeaders({
      method: 'PUT',
      path: '/examplebucket/chunkObject.txt',
      headers: [
        ['host', 's3.amazonaws.com'],
        ['x-amz-storage-class', 'REDUCED_REDUNDANCY'],
        ['content-encoding', 'aws-chunked'],
        ['x-amz-decoded-content-length', '66560'],
        ['content-length', '66824'],
      ],
      credentials: docCreds,
      date: new Date('2013-05-24T00:00:00Z'),
      payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      signedHeaders: ['content-encoding', 'content-length', 'host', 'x-amz-content-sha256', 'x-amz-date', 'x-amz-decoded-content-length', 'x-amz-storage-class'],
    });
    expect(signed.signature).toBe('4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9');
    const body = encodeAwsChunked({
      data: Buffer.alloc(66560, 'a'),
      chunkSize: 65536,
      signing: { seedSignature: signed.signature, key: signed.key, amzDate: signed.amzDate, scope: signed.scope },
    });
    expect(body.length).toBe(66824);
    const text = body.toString('latin1');
    expect(text).toContain('10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n');
    expect(text).toContain('400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n');
    expect(text.endsWith('0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n')).toBe(true);
  });
});
