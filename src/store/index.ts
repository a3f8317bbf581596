// The storage engine's entry point: open a data directory as a Store (contract: ./types.ts).

import type { SegmentStore } from './segment-store.js';
import { openSegmentStore, type StoreInternals } from './open-segment-store.js';
import type { BucketRecord, StoreOptions } from './types.js';

export type { SegmentStore } from './segment-store.js';
export type { StoreInternals } from './open-segment-store.js';
export type { StoreStats } from './store-stats.js';
export type { Crc32c } from './crc32c.js';
export * from './types.js';
export * from './errors.js';

/** Opens (creating if needed) `<dataDir>/index.mdb` and `<dataDir>/segments/`, recovering after a crash. */
export function openStore<A = unknown, P = unknown, B extends BucketRecord = BucketRecord>(
  options: StoreOptions,
  internals?: StoreInternals,
): Promise<SegmentStore<A, P, B>> {
  return openSegmentStore<A, P, B>(options, internals);
}
