import { describe, expect, it } from 'vitest';
import {
  encodedLength,
  maxBlobSize,
  registrationCost,
  shardParameters,
  storageUnits,
  symbolSize,
  DEFAULT_STORAGE_PRICE_PER_UNIT,
  DEFAULT_WRITE_PRICE_PER_UNIT,
} from '../../../../src/publisher/ledger/costs.js';

const DEFAULT_PRICES = { storagePricePerUnit: DEFAULT_STORAGE_PRICE_PER_UNIT, writePricePerUnit: DEFAULT_WRITE_PRICE_PER_UNIT };
const MiB = 1_048_576;

describe('shard parameters (walrus.md §2)', () => {
  it.each([
    [4, 1, 2, 3, 6],
    [7, 2, 3, 5, 15],
    [10, 3, 4, 7, 28],
    [100, 33, 34, 67, 2278],
    [333, 110, 113, 223, 25199],
    [1000, 333, 334, 667, 222778],
  ])('n=%i', (n, f, nPrimary, nSecondary, c) => {
    expect(shardParameters(n)).toEqual({ nShards: n, f, nPrimary, nSecondary, sourceSymbols: c });
  });

  it('refuses n < 4', () => {
    expect(() => shardParameters(3)).toThrow(RangeError);
  });

  it('gives the maximum blob sizes of the table', () => {
    expect(maxBlobSize(4)).toBe(393_204);
    expect(maxBlobSize(1000)).toBe(14_599_533_452);
  });
});

describe('symbol size (walrus.md §2)', () => {
  it('is 2 for the empty blob and rounds odd sizes up', () => {
    expect(symbolSize(0, 1000)).toBe(2);
    expect(symbolSize(17, 1000)).toBe(2);
    expect(symbolSize(MiB, 1000)).toBe(6); // ceil(1048576 / 222778) = 5 → 6
    expect(symbolSize(10 * MiB, 1000)).toBe(48);
    expect(symbolSize(6 * 3, 4)).toBe(4); // 18 / 6 = 3 → 4
  });

  it('is undefined above C · 65534', () => {
    expect(symbolSize(maxBlobSize(4), 4)).toBe(65_534);
    expect(symbolSize(maxBlobSize(4) + 1, 4)).toBeUndefined();
    expect(encodedLength(maxBlobSize(4) + 1, 4)).toBeUndefined();
  });
});

describe('encoded length (walrus.md §9.1)', () => {
  it.each([
    [17, 66_034_000],
    [MiB, 70_038_000],
    [10 * MiB, 112_080_000],
  ])('%i bytes at n=1000 → %i', (size, expected) => {
    expect(encodedLength(size, 1000)).toBe(expected);
  });

  it('at n=4 is n·(64n+32 + 5·S)', () => {
    expect(encodedLength(0, 4)).toBe(4 * (288 + 5 * 2));
  });
});

describe('cost (walrus.md §9.2)', () => {
  it('reproduces the docs example: 66,034,000 bytes, 1 epoch → 63 units, 132,300 FROST', () => {
    expect(storageUnits(66_034_000)).toBe(63n);
    expect(registrationCost(66_034_000, 1, DEFAULT_PRICES)).toBe(132_300n);
  });

  it('charges storage per epoch and writing once', () => {
    expect(registrationCost(66_034_000, 5, DEFAULT_PRICES)).toBe(63n * 100n * 5n + 63n * 2000n);
    expect(registrationCost(MiB, 2, { storagePricePerUnit: 7n, writePricePerUnit: 11n })).toBe(1n * 7n * 2n + 11n);
    expect(storageUnits(MiB + 1)).toBe(2n);
  });
});
