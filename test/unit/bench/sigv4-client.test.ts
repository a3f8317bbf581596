import { describe, expect, it } from 'vitest';
import { canonicalQuery, EMPTY_SHA256, SigV4Signer, uriEncode } from '../../../src/bench/sigv4-client.js';

// Examples from the AWS documentation "Signature Calculations for the Authorization Header" (S3).
const signer = new SigV4Signer({
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
});
const now = new Date(Date.UTC(2013, 4, 24));

function signatureOf(headers: Record<string, string>): string {
  return /Signature=([0-9a-f]{64})$/.exec(headers['authorization']!)![1]!;
}

describe('SigV4Signer', () => {
  it('signs the AWS GET Object example', () => {
    const headers: Record<string, string> = { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9' };
    signer.sign({ method: 'GET', path: '/test.txt', query: '', headers, payloadHash: EMPTY_SHA256 }, now);
    expect(headers).toMatchObject({ 'x-amz-date': '20130524T000000Z', 'x-amz-content-sha256': EMPTY_SHA256 });
    expect(headers['authorization']).toContain(
      'Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,',
    );
    expect(signatureOf(headers)).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
  });

  it('signs the AWS PUT Object example (key with $, Date and storage-class headers)', () => {
    const headers = {
      host: 'examplebucket.s3.amazonaws.com',
      date: 'Fri, 24 May 2013 00:00:00 GMT',
      'x-amz-storage-class': 'REDUCED_REDUNDANCY',
    };
    signer.sign({
      method: 'PUT', path: `/${uriEncode('test$file.text', true)}`, query: '', headers,
      payloadHash: '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
    }, now);
    expect(signatureOf(headers)).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('signs the AWS GET Bucket (list objects) example with a sorted, encoded query', () => {
    const headers = { host: 'examplebucket.s3.amazonaws.com' };
    const query = canonicalQuery([['prefix', 'J'], ['max-keys', '2']]);
    expect(query).toBe('max-keys=2&prefix=J');
    signer.sign({ method: 'GET', path: '/', query, headers, payloadHash: EMPTY_SHA256 }, now);
    expect(signatureOf(headers)).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });
});

describe('uriEncode / canonicalQuery (spec/s3.md §2.3)', () => {
  it('keeps unreserved bytes and slashes in paths, encodes everything else once', () => {
    expect(uriEncode('a b+c/%/~._-/é😀', true)).toBe('a%20b%2Bc/%25/~._-/%C3%A9%F0%9F%98%80');
    expect(uriEncode('a/b', false)).toBe('a%2Fb');
  });

  it('encodes names and values, sorts by name then value, keeps valueless parameters as name=', () => {
    expect(canonicalQuery([['uploads', ''], ['prefix', 'a b/'], ['a', '2'], ['a', '1']])).toBe(
      'a=1&a=2&prefix=a%20b%2F&uploads=',
    );
  });
});
