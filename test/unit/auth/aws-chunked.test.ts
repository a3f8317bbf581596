import { describe, expect, it } from 'vitest';
import { AwsChunkedDecoder, type AwsChunkedOptions } from '../../../src/s3/sigv4/aws-chunked.js';
import { deriveSigningKey } from '../../../src/s3/sigv4/signing-key.js';
import { encodeAwsChunked, type SignCtx } from './chunked-encoder.js';
import { DOC_SECRET, s3ErrorOf } from './helpers.js';

const KEY = deriveSigningKey(DOC_SECRET, '20130524', 'us-east-1');
const SCOPE = '20130524/us-east-1/s3/aws4_request';
const docCtx = (seedSignature: string): SignCtx => ({
  signingKey: KEY,
  requestTime: '20130524T000000Z',
  scope: SCOPE,
  seedSignature,
});
// AWS docs, *Transferring Payload in Multiple Chunks*: 65536 + 1024 bytes of 'a'.
const DOC_DATA = Buffer.alloc(66560, 'a');
const DOC_SEED = '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9';
// AWS docs, *Including Trailing Headers*.
const DOC_TRAILER_SEED = '106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e';

/** Runs the decoder with the body split into pieces of `split` bytes (or the given cut points). */
function decode(body: Buffer, opts: AwsChunkedOptions, split: number | 'random' = body.length) {
  const d = new AwsChunkedDecoder(opts);
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < body.length) {
    const step = split === 'random' ? 1 + Math.floor(Math.random() * 700) : Math.max(1, split);
    const piece = body.subarray(pos, pos + step);
    d.push(piece, (s) => {
      if (s.buffer !== piece.buffer) throw new Error('slice is a copy, expected a view');
      out.push(Buffer.from(s));
    });
    pos += step;
  }
  const r = d.end();
  return { data: Buffer.concat(out), trailers: r.trailers };
}

describe('AwsChunkedDecoder — AWS documentation vectors', () => {
  it('signed chunks: documented chunk signatures and 66824-byte encoding', () => {
    const enc = encodeAwsChunked(DOC_DATA, 65536, { signed: docCtx(DOC_SEED) });
    expect(enc.body.length).toBe(66824);
    expect(enc.chunkSignatures).toEqual([
      'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
      '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
      'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
    ]);
    for (const split of [enc.body.length, 1, 7, 8192, 'random'] as const) {
      const r = decode(enc.body, { decodedLength: 66560, signed: docCtx(DOC_SEED) }, split);
      expect(r.data.equals(DOC_DATA)).toBe(true);
      expect(r.trailers).toEqual({});
    }
  });

  it('signed chunks + signed trailer: documented signatures', () => {
    const trailers: Array<[string, string]> = [['x-amz-checksum-crc32c', 'sOO8/Q==']];
    const enc = encodeAwsChunked(DOC_DATA, 65536, { signed: docCtx(DOC_TRAILER_SEED), trailers });
    expect(enc.chunkSignatures).toEqual([
      'b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2',
      '1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7',
      '2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992',
    ]);
    expect(enc.trailerSignature).toBe('d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435');
    const opts = { decodedLength: 66560, signed: docCtx(DOC_TRAILER_SEED), trailer: 'x-amz-checksum-crc32c' };
    for (const split of [enc.body.length, 1, 3, 'random'] as const) {
      const r = decode(enc.body, opts, split);
      expect(r.data.equals(DOC_DATA)).toBe(true);
      expect(r.trailers).toEqual({ 'x-amz-checksum-crc32c': 'sOO8/Q==' });
    }
  });
});

describe('AwsChunkedDecoder — variants', () => {
  const data = Buffer.from(Array.from({ length: 20000 }, (_, i) => (i * 31) & 255));

  it('unsigned chunks + trailer (STREAMING-UNSIGNED-PAYLOAD-TRAILER), any split', () => {
    const enc = encodeAwsChunked(data, 8192, { trailers: [['x-amz-checksum-crc32', 'AAAAAA==']] });
    for (const split of [enc.body.length, 1, 2, 5, 'random'] as const) {
      const r = decode(enc.body, { decodedLength: data.length, trailer: 'x-amz-checksum-crc32' }, split);
      expect(r.data.equals(data)).toBe(true);
      expect(r.trailers).toEqual({ 'x-amz-checksum-crc32': 'AAAAAA==' });
    }
  });

  it('plain unsigned chunks without trailer', () => {
    const enc = encodeAwsChunked(data, 3000);
    for (const split of [enc.body.length, 1, 'random'] as const) {
      expect(decode(enc.body, { decodedLength: data.length }, split).data.equals(data)).toBe(true);
    }
  });

  it('signed chunks with arbitrary (small) chunk sizes and an empty body', () => {
    const c = docCtx('f'.repeat(64));
    const enc = encodeAwsChunked(data, 100, { signed: c });
    expect(decode(enc.body, { decodedLength: data.length, signed: c }, 'random').data.equals(data)).toBe(true);
    const empty = encodeAwsChunked(Buffer.alloc(0), 100, { signed: c });
    expect(empty.body.toString().startsWith('0;chunk-signature=')).toBe(true);
    expect(decode(empty.body, { decodedLength: 0, signed: c }, 1).data.length).toBe(0);
  });

  it('hex sizes are case-insensitive with leading zeros', () => {
    const upper = encodeAwsChunked(data, 4095, { sizeHex: (n) => n.toString(16).toUpperCase().padStart(8, '0') });
    expect(upper.body.toString('latin1', 0, 10)).toBe('00000FFF\r\n');
    expect(decode(upper.body, { decodedLength: data.length }, 1).data.equals(data)).toBe(true);
    const c = docCtx(DOC_SEED);
    const signed = encodeAwsChunked(data, 4095, { signed: c, sizeHex: (n) => `000${n.toString(16).toUpperCase()}` });
    expect(decode(signed.body, { decodedLength: data.length, signed: c }).data.equals(data)).toBe(true);
  });

  it('rejects a body without its final CRLF or the closing line of its trailer, in every variant', () => {
    const c = docCtx(DOC_SEED);
    const t: Array<[string, string]> = [['x-amz-checksum-sha256', 'abc=']];
    const cases: Array<[Buffer, AwsChunkedOptions]> = [
      [encodeAwsChunked(data, 5000).body, { decodedLength: data.length }],
      [encodeAwsChunked(data, 5000, { trailers: t }).body, { decodedLength: data.length, trailer: t[0]![0] }],
      [encodeAwsChunked(data, 5000, { signed: c }).body, { decodedLength: data.length, signed: c }],
      [encodeAwsChunked(data, 5000, { signed: c, trailers: t }).body, { decodedLength: data.length, signed: c, trailer: t[0]![0] }],
    ];
    for (const [body, opts] of cases) {
      expect(decode(body, opts, 'random').data.equals(data)).toBe(true);
      for (const cut of [2, 1]) {
        expect(() => decode(body.subarray(0, body.length - cut), opts, 'random')).toThrow(
          expect.objectContaining({ code: 'IncompleteBody' }),
        );
      }
    }
    // the last trailer line without its CRLF, and a trailer line without the closing empty line
    for (const text of ['3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==', '3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n']) {
      expect(() => decode(Buffer.from(text), { decodedLength: 3, trailer: 'x-amz-checksum-crc32' })).toThrow(
        expect.objectContaining({ code: 'IncompleteBody' }),
      );
    }
  });

  it('trailer names are lower-cased, values trimmed; unsigned chunk extensions ignored', () => {
    const body = Buffer.from('3;foo=bar\r\nabc\r\n0\r\nX-Amz-Checksum-CRC32 :  AAAAAA==  \r\n\r\n');
    expect(decode(body, { decodedLength: 3, trailer: 'x-amz-checksum-crc32' })).toEqual({
      data: Buffer.from('abc'),
      trailers: { 'x-amz-checksum-crc32': 'AAAAAA==' },
    });
  });

  it('tolerates extra line ends after the terminating empty line', () => {
    const body = Buffer.concat([encodeAwsChunked(data, 5000).body, Buffer.from('\r\n\r\n')]);
    expect(decode(body, { decodedLength: data.length }).data.equals(data)).toBe(true);
  });
});

describe('AwsChunkedDecoder — rejections', () => {
  const data = Buffer.alloc(10000, 'z');
  const c = docCtx(DOC_SEED);
  const t: Array<[string, string]> = [['x-amz-checksum-crc32', 'AAAAAA==']];
  const signedOpts: AwsChunkedOptions = { decodedLength: data.length, signed: c };
  const signedTrailerOpts: AwsChunkedOptions = { ...signedOpts, trailer: 'x-amz-checksum-crc32' };

  function flip(buf: Buffer, at: number): Buffer {
    const b = Buffer.from(buf);
    b[at] = b[at]! ^ 1;
    return b;
  }

  it('tampered chunk data → SignatureDoesNotMatch, connection closed', () => {
    const enc = encodeAwsChunked(data, 4096, { signed: c });
    const e = s3ErrorOf(() => decode(flip(enc.body, 200), signedOpts));
    expect([e.status, e.code, e.close]).toEqual([403, 'SignatureDoesNotMatch', true]);
    expect(String(e.extras.StringToSign)).toMatch(/^AWS4-HMAC-SHA256-PAYLOAD\n20130524T000000Z\n/);
  });

  it('wrong chunk signature, wrong seed, reordered chunks → SignatureDoesNotMatch', () => {
    const enc = encodeAwsChunked(data, 4096, { signed: c });
    const sigAt = enc.body.indexOf('chunk-signature=') + 'chunk-signature='.length;
    const bad = Buffer.from(enc.body);
    bad.write(enc.body[sigAt] === 0x30 ? '1' : '0', sigAt, 'latin1');
    expect(s3ErrorOf(() => decode(bad, signedOpts, 1)).code).toBe('SignatureDoesNotMatch');
    expect(s3ErrorOf(() => decode(enc.body, { ...signedOpts, signed: docCtx('a'.repeat(64)) })).code).toBe(
      'SignatureDoesNotMatch',
    );
    // Swapping two equal-sized chunks breaks the chain even though each signs its own data.
    const two = Buffer.concat([Buffer.alloc(4096, 'x'), Buffer.alloc(4096, 'y')]);
    const e2 = encodeAwsChunked(two, 4096, { signed: c });
    const lineLen = '1000;chunk-signature='.length + 64 + 2;
    const first = e2.body.subarray(0, lineLen + 4096 + 2);
    const second = e2.body.subarray(first.length, 2 * first.length);
    const swapped = Buffer.concat([second, first, e2.body.subarray(2 * first.length)]);
    expect(s3ErrorOf(() => decode(swapped, { decodedLength: 8192, signed: c })).code).toBe('SignatureDoesNotMatch');
  });

  it('wrong final-chunk signature → SignatureDoesNotMatch', () => {
    const enc = encodeAwsChunked(data, 4096, { signed: c });
    const last = enc.body.lastIndexOf('0;chunk-signature=') + '0;chunk-signature='.length;
    const e = s3ErrorOf(() => decode(flip(enc.body, last + 63), signedOpts));
    expect(e.code).toBe('SignatureDoesNotMatch');
  });

  it('wrong trailer signature or tampered trailer value → SignatureDoesNotMatch', () => {
    const enc = encodeAwsChunked(data, 4096, { signed: c, trailers: t });
    const at = enc.body.indexOf('x-amz-trailer-signature:') + 'x-amz-trailer-signature:'.length;
    const badSig = Buffer.from(enc.body);
    badSig.write(enc.body[at] === 0x30 ? '1' : '0', at, 'latin1');
    const e = s3ErrorOf(() => decode(badSig, signedTrailerOpts));
    expect([e.code, e.close]).toEqual(['SignatureDoesNotMatch', true]);
    expect(String(e.extras.StringToSign)).toMatch(/^AWS4-HMAC-SHA256-TRAILER\n/);
    const badValue = Buffer.from(enc.body.toString('latin1').replace('AAAAAA==', 'AAAAAB=='), 'latin1');
    expect(s3ErrorOf(() => decode(badValue, signedTrailerOpts)).code).toBe('SignatureDoesNotMatch');
  });

  it('signed trailer without its signature line → MalformedTrailerError', () => {
    const enc = encodeAwsChunked(data, 4096, { signed: c, trailers: t });
    const text = enc.body.toString('latin1').replace(/x-amz-trailer-signature:[0-9a-f]{64}\r\n/, '');
    const e = s3ErrorOf(() => decode(Buffer.from(text, 'latin1'), signedTrailerOpts));
    expect([e.status, e.code]).toEqual([400, 'MalformedTrailerError']);
  });

  it('missing, renamed, extra or unparsable trailer → MalformedTrailerError', () => {
    const opts = { decodedLength: data.length, trailer: 'x-amz-checksum-crc32' };
    const missing = encodeAwsChunked(data, 4096).body;
    expect(s3ErrorOf(() => decode(missing, opts)).code).toBe('MalformedTrailerError');
    const renamed = encodeAwsChunked(data, 4096, { trailers: [['x-amz-checksum-crc32c', 'AAAAAA==']] }).body;
    expect(s3ErrorOf(() => decode(renamed, opts)).code).toBe('MalformedTrailerError');
    const extra = encodeAwsChunked(data, 4096, { trailers: [...t, ['x-amz-meta-a', 'b']] }).body;
    expect(s3ErrorOf(() => decode(extra, opts)).code).toBe('MalformedTrailerError');
    const noColon = Buffer.from('1\r\na\r\n0\r\nx-amz-checksum-crc32 AAAAAA==\r\n\r\n');
    expect(s3ErrorOf(() => decode(noColon, { ...opts, decodedLength: 1 })).code).toBe('MalformedTrailerError');
    // A trailer the request did not declare.
    const undeclared = encodeAwsChunked(data, 4096, { trailers: t }).body;
    expect(s3ErrorOf(() => decode(undeclared, { decodedLength: data.length })).code).toBe('MalformedTrailerError');
    // Cut before the trailer section ends: the body is incomplete, whatever the trailer would have been.
    expect(s3ErrorOf(() => decode(Buffer.from('1\r\na\r\n0\r\n'), { ...opts, decodedLength: 1 })).code).toBe(
      'IncompleteBody',
    );
  });

  it('short body → IncompleteBody at end()', () => {
    const enc = encodeAwsChunked(data, 4096, { signed: c });
    for (const cut of [10, 100, enc.body.length - 90, enc.body.length - 200]) {
      const e = s3ErrorOf(() => decode(enc.body.subarray(0, cut), signedOpts));
      expect([e.status, e.code]).toEqual([400, 'IncompleteBody']);
    }
    expect(s3ErrorOf(() => decode(Buffer.alloc(0), { decodedLength: 0 })).code).toBe('IncompleteBody');
  });

  it('Σ chunk sizes ≠ x-amz-decoded-content-length → IncompleteBody', () => {
    const enc = encodeAwsChunked(data, 4096);
    expect(s3ErrorOf(() => decode(enc.body, { decodedLength: data.length + 1 })).code).toBe('IncompleteBody');
    const e = s3ErrorOf(() => decode(enc.body, { decodedLength: data.length - 1 }));
    expect([e.code, e.close]).toEqual(['IncompleteBody', true]);
    // An absurd size is rejected from its first digits, without parsing a huge number.
    expect(s3ErrorOf(() => decode(Buffer.from('fffffffffffffffffffffffff\r\n'), { decodedLength: 10 })).code).toBe(
      'IncompleteBody',
    );
  });

  it('bad framing → IncompleteBody', () => {
    const bad = [
      'x\r\nabc\r\n0\r\n\r\n', // not hex
      '\r\nabc\r\n0\r\n\r\n', // empty size
      '3\nabc\r\n0\r\n\r\n', // bare LF
      '3\r\nabcX\r\n0\r\n\r\n', // data longer than declared
      '3\r\nabc\n0\r\n\r\n', // no CR after data
      '3\r\nabc\r\n0\r\n\r\nGARBAGE', // bytes after the end
      '3 \r\nabc\r\n0\r\n\r\n', // junk after the size
    ];
    for (const text of bad) {
      const e = s3ErrorOf(() => decode(Buffer.from(text), { decodedLength: 3 }, 1));
      expect(e.code, JSON.stringify(text)).toBe('IncompleteBody');
    }
    // Signed mode requires a well-formed chunk-signature extension.
    for (const text of ['3\r\nabc\r\n', `3;chunk-signature=${'g'.repeat(64)}\r\n`, `3;chunk-sig=${'a'.repeat(64)}\r\n`]) {
      expect(s3ErrorOf(() => decode(Buffer.from(text), { decodedLength: 3, signed: c })).code).toBe('IncompleteBody');
    }
  });

  it('size line longer than 4 KiB → IncompleteBody; 4 KiB of leading zeros is fine', () => {
    const ok = Buffer.from(`${'0'.repeat(4000)}3\r\nabc\r\n0\r\n\r\n`);
    expect(decode(ok, { decodedLength: 3 }, 1).data.toString()).toBe('abc');
    const long = Buffer.from(`${'0'.repeat(5000)}3\r\nabc\r\n0\r\n\r\n`);
    expect(s3ErrorOf(() => decode(long, { decodedLength: 3 }, 999)).code).toBe('IncompleteBody');
  });

  it('errors are sticky: push/end after a failure rethrow it', () => {
    const d = new AwsChunkedDecoder({ decodedLength: 3 });
    const e1 = s3ErrorOf(() => d.push(Buffer.from('zz\r\n'), () => {}));
    expect(s3ErrorOf(() => d.push(Buffer.from('3\r\nabc'), () => {}))).toBe(e1);
    expect(s3ErrorOf(() => d.end())).toBe(e1);
  });

  it('reports bytesDecoded as payload is handed out', () => {
    const d = new AwsChunkedDecoder({ decodedLength: 6 });
    d.push(Buffer.from('6\r\nabc'), () => {});
    expect(d.bytesDecoded).toBe(3);
    d.push(Buffer.from('def\r\n0\r\n\r\n'), () => {});
    expect(d.bytesDecoded).toBe(6);
    expect(d.end().trailers).toEqual({});
  });
});
