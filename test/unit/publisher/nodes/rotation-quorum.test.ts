import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blobRotation, pairToShard, shardToPair } from '../../../../src/publisher/nodes/rotation.js';
import { isQuorum, maxFaultyShards, quorumWeight } from '../../../../src/publisher/nodes/quorum.js';
import { formatShardRanges, parseShardRanges, shardAssignment } from '../../../../src/publisher/nodes/shard-assignment.js';

describe('pair ↔ shard rotation (walrus.md §12.1)', () => {
  it('reads the blob id as a big-endian 256-bit integer', () => {
    const one = Buffer.alloc(32);
    one[31] = 1;
    expect(blobRotation(one, 1000)).toBe(1);
    const high = Buffer.alloc(32);
    high[0] = 1; // 2^248
    expect(blobRotation(high, 1000)).toBe(Number((1n << 248n) % 1000n));
    expect(blobRotation(Buffer.alloc(32, 0xff), 7)).toBe(Number(((1n << 256n) - 1n) % 7n));
  });

  it('matches BigInt arithmetic for random ids and shard counts', () => {
    for (const n of [4, 7, 10, 100, 333, 1000]) {
      for (let i = 0; i < 50; i++) {
        const id = randomBytes(32);
        const rot = Number(BigInt(`0x${id.toString('hex')}`) % BigInt(n));
        expect(blobRotation(id, n)).toBe(rot);
        const pair = i % n;
        expect(pairToShard(pair, id, n)).toBe((pair + rot) % n);
        expect(shardToPair(pairToShard(pair, id, n), id, n)).toBe(pair);
      }
    }
  });

  it('takes shard → pair modulo n non-negatively', () => {
    const id = Buffer.alloc(32);
    id[31] = 9; // rot 9 at n = 10
    expect(shardToPair(0, id, 10)).toBe(1);
    expect(shardToPair(9, id, 10)).toBe(0);
    expect(pairToShard(1, id, 10)).toBe(0);
  });
});

describe('quorum (walrus.md §2, §9.3)', () => {
  it('n = 10: f = 3, quorum 7 shards', () => {
    expect(maxFaultyShards(10)).toBe(3);
    expect(quorumWeight(10)).toBe(7);
    expect(isQuorum(7, 10)).toBe(true);
    expect(isQuorum(6, 10)).toBe(false);
  });

  it('n = 1000: f = 333, quorum 667 shards', () => {
    expect(maxFaultyShards(1000)).toBe(333);
    expect(quorumWeight(1000)).toBe(667);
    expect(isQuorum(667, 1000)).toBe(true);
    expect(isQuorum(666, 1000)).toBe(false);
  });

  it('n − f shards always make a quorum', () => {
    for (let n = 4; n <= 1000; n++) {
      expect(isQuorum(n - maxFaultyShards(n), n)).toBe(true);
      expect(isQuorum(quorumWeight(n) - 1, n)).toBe(false);
    }
  });
});

describe('shard assignment', () => {
  it('splits shards into contiguous ranges covering each shard once', () => {
    const a = shardAssignment(1000, 10);
    expect(a.map((s) => [s[0], s.at(-1), s.length])).toEqual(Array.from({ length: 10 }, (_, i) => [i * 100, i * 100 + 99, 100]));
    const b = shardAssignment(100, 7);
    expect(b.flat()).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(Math.max(...b.map((s) => s.length)) - Math.min(...b.map((s) => s.length))).toBeLessThanOrEqual(1);
    expect(() => shardAssignment(10, 11)).toThrow(RangeError);
  });

  it('parses and formats --shards ranges', () => {
    expect(parseShardRanges('0-3,7,5-6', 10)).toEqual([0, 1, 2, 3, 5, 6, 7]);
    expect(formatShardRanges([0, 1, 2, 3, 5, 6, 7])).toBe('0-3,5-7');
    expect(() => parseShardRanges('5-3', 10)).toThrow(/not within/);
    expect(() => parseShardRanges('0-10', 10)).toThrow(/not within/);
    expect(() => parseShardRanges('a-b', 10)).toThrow(/invalid shard range/);
  });
});
