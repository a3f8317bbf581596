// The epoch clock: epochs of a fixed length counted from an anchor. The ledger's first epoch is
// 1 (Walrus's epoch 0 is the set-up epoch in which no storage is sold). Changing the epoch length
// re-anchors the clock at the moment of the change so epoch numbers never jump back.

export const GENESIS_EPOCH = 1;

export interface EpochClock {
  /** wall-clock ms at which `anchorEpoch` began */
  anchorMs: number;
  anchorEpoch: number;
  epochLengthMs: number;
}

export function genesisClock(genesisMs: number, epochLengthMs: number): EpochClock {
  assertEpochLength(epochLengthMs);
  return { anchorMs: genesisMs, anchorEpoch: GENESIS_EPOCH, epochLengthMs };
}

/** A clock read before its anchor (the wall clock went back) stays at the anchor epoch. */
export function epochAt(clock: EpochClock, nowMs: number): number {
  if (nowMs <= clock.anchorMs) return clock.anchorEpoch;
  return clock.anchorEpoch + Math.floor((nowMs - clock.anchorMs) / clock.epochLengthMs);
}

export function epochStartMs(clock: EpochClock, epoch: number): number {
  return clock.anchorMs + (epoch - clock.anchorEpoch) * clock.epochLengthMs;
}

/** The current epoch starts over at `nowMs` with the new length. */
export function reanchor(clock: EpochClock, nowMs: number, epochLengthMs: number): EpochClock {
  assertEpochLength(epochLengthMs);
  return { anchorMs: Math.max(nowMs, clock.anchorMs), anchorEpoch: epochAt(clock, nowMs), epochLengthMs };
}

export function assertEpochLength(epochLengthMs: number): void {
  if (!Number.isSafeInteger(epochLengthMs) || epochLengthMs < 1) {
    throw new RangeError(`the epoch length must be a positive integer of milliseconds, got ${epochLengthMs}`);
  }
}
