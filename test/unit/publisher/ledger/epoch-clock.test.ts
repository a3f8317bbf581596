import { describe, expect, it } from 'vitest';
import { epochAt, epochStartMs, genesisClock, GENESIS_EPOCH, reanchor } from '../../../../src/publisher/ledger/epoch-clock.js';

describe('epoch clock', () => {
  const clock = genesisClock(1_000_000, 100);

  it('starts at epoch 1 and advances once per epoch length', () => {
    expect(GENESIS_EPOCH).toBe(1);
    expect(epochAt(clock, 1_000_000)).toBe(1);
    expect(epochAt(clock, 1_000_099)).toBe(1);
    expect(epochAt(clock, 1_000_100)).toBe(2);
    expect(epochAt(clock, 1_000_000 + 100 * 41 + 5)).toBe(42);
    expect(epochStartMs(clock, 42)).toBe(1_000_000 + 100 * 41);
  });

  it('never goes before the anchor epoch when the wall clock is earlier', () => {
    expect(epochAt(clock, 0)).toBe(1);
  });

  it('re-anchors on a new length without moving the current epoch back', () => {
    const later = reanchor(clock, 1_000_550, 1000); // epoch 6 under the old clock
    expect(epochAt(later, 1_000_550)).toBe(6);
    expect(epochAt(later, 1_001_549)).toBe(6);
    expect(epochAt(later, 1_001_550)).toBe(7);
  });

  it('rejects a non-positive epoch length', () => {
    expect(() => genesisClock(0, 0)).toThrow(RangeError);
    expect(() => genesisClock(0, 1.5)).toThrow(RangeError);
  });
});
