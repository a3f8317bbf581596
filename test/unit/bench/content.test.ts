import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ContentSource, objectKey, sizeFromKey, STAMP_BYTES } from '../../../src/bench/content.js';

const whole = (parts: Buffer[]) => Buffer.concat(parts);

describe('deterministic content', () => {
  const content = new ContentSource(9);

  it('is a function of (seed, key, size) and differs between keys of one size', () => {
    const a = whole(content.body('k1-4096', 4096));
    expect(a.length).toBe(4096);
    expect(whole(new ContentSource(9).body('k1-4096', 4096))).toEqual(a);
    expect(whole(content.body('k2-4096', 4096))).not.toEqual(a);
    expect(whole(new ContentSource(10).body('k1-4096', 4096))).not.toEqual(a);
  });

  it('shares one pattern buffer: a body is two views, not a copy', () => {
    content.ensure(1 << 20);
    const [p1] = content.body('a-65536', 65536);
    const [p2] = content.body('b-1048576', 1 << 20);
    expect(p1.buffer).toBe(p2.buffer);
  });

  it('handles sizes below the stamp length, and zero', () => {
    expect(whole(content.body('x-5', 5))).toEqual(content.stamp('x-5', 5).subarray(0, 5));
    expect(whole(content.body('x-0', 0)).length).toBe(0);
    expect(content.body('x-100', 100)[1].length).toBe(STAMP_BYTES);
  });

  it('sha256Hex equals the digest of the body (cached prefix hash reused)', () => {
    for (const key of ['k-70000', 'j-70000']) {
      const expected = createHash('sha256').update(whole(content.body(key, 70000))).digest('hex');
      expect(content.sha256Hex(key, 70000)).toBe(expected);
    }
  });

  it('keys carry their size', () => {
    expect(objectKey('p/', 12, 4096)).toBe('p/000000012-4096');
    expect(sizeFromKey('p/000000012-4096')).toBe(4096);
    expect(sizeFromKey('nope')).toBeUndefined();
  });
});

describe('BodyVerifier', () => {
  const content = new ContentSource(1);
  const body = whole(content.body('v-100000', 100000));

  function feed(bytes: Buffer, chunk: number) {
    const v = content.verifier('v-100000', 100000);
    for (let i = 0; i < bytes.length; i += chunk) v.update(bytes.subarray(i, i + chunk));
    return v.finish();
  }

  it('accepts the exact body in any chunking', () => {
    for (const chunk of [1 << 20, 65536, 99990, 7]) expect(feed(body, chunk)).toBe('ok');
  });

  it('rejects one flipped bit anywhere, including the stamp', () => {
    for (const at of [0, 50000, 99999 - STAMP_BYTES, 99999]) {
      const bad = Buffer.from(body);
      bad[at]! ^= 0x80;
      expect(feed(bad, 4096)).toBe('verify:content');
    }
  });

  it('rejects short and long bodies', () => {
    expect(feed(body.subarray(0, 99999), 4096)).toBe('verify:length');
    expect(feed(Buffer.concat([body, Buffer.from('x')]), 4096)).toBe('verify:length');
  });

  it('rejects another key\'s body of the same size', () => {
    expect(feed(whole(content.body('w-100000', 100000)), 65536)).toBe('verify:content');
  });
});
