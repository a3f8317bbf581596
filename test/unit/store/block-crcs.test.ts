import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BLOCK_SIZE, BlockCrcs } from '../../../src/store/block-crcs.js';
import { fastestCrc32c } from '../../../src/store/crc32c.js';

const crc32c = await fastestCrc32c();

describe('BlockCrcs', () => {
  it('gives each block its CRC and the whole body the CRC of all its bytes, combined from the blocks, for any chunking', () => {
    for (const size of [0, 1, BLOCK_SIZE - 1, BLOCK_SIZE, BLOCK_SIZE + 1, 3 * BLOCK_SIZE + 12_345]) {
      const body = randomBytes(size);
      const blocks = new BlockCrcs(size, crc32c);
      // odd chunk sizes, so that chunks straddle block boundaries
      for (let at = 0; at < size; at += 300_007) blocks.update(body.subarray(at, at + 300_007));
      expect(blocks.bodyCrc()).toBe(crc32c(body, 0));
      const crcs = Buffer.from(blocks.finish());
      expect(crcs.length).toBe(Math.ceil(size / BLOCK_SIZE) * 4);
      for (let b = 0; b * BLOCK_SIZE < size; b++) {
        expect(crcs.readUInt32LE(b * 4)).toBe(crc32c(body.subarray(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE), 0));
      }
    }
  });

  it('ends the body once: bodyCrc and finish agree in either order, and later bytes are refused', () => {
    const body = randomBytes(BLOCK_SIZE + 10);
    const blocks = new BlockCrcs(body.length, crc32c);
    blocks.update(body);
    const crcs = blocks.finish();
    expect(blocks.bodyCrc()).toBe(crc32c(body, 0));
    expect(blocks.finish()).toBe(crcs);
    expect(() => blocks.update(Buffer.alloc(1))).toThrow(/after finish/);
  });
});
