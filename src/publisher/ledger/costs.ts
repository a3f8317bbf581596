// Sizes and prices of a registration: encoded length (walrus.md §2, §9.1) and cost (§9.2).

/** 1 WAL = 10⁹ FROST (walrus.md §9.2). */
export const FROST_PER_WAL = 1_000_000_000n;
/** Storage is bought in 1 MiB units (`BYTES_PER_UNIT_SIZE`, walrus.md §9.2). */
export const BYTES_PER_UNIT = 1_048_576;
/** Defaults reproduce the docs example of walrus.md §9.2: 63 units, 1 epoch → 132,300 FROST. */
export const DEFAULT_STORAGE_PRICE_PER_UNIT = 100n;
export const DEFAULT_WRITE_PRICE_PER_UNIT = 2_000n;
/** RS2 symbols are whole GF(2^16) elements, at most u16::MAX - 1 bytes (walrus.md §2). */
export const MAX_SYMBOL_SIZE = 65_534;

export interface Prices {
  storagePricePerUnit: bigint;
  writePricePerUnit: bigint;
}

export interface ShardParameters {
  nShards: number;
  /** maximum Byzantine shards */
  f: number;
  nPrimary: number;
  nSecondary: number;
  /** source symbols per blob */
  sourceSymbols: number;
}

export function shardParameters(nShards: number): ShardParameters {
  if (!Number.isInteger(nShards) || nShards < 4) {
    // walrus.md §2: for n ≤ 3, f = 0 and the codes have no recovery symbols.
    throw new RangeError(`the number of shards must be an integer ≥ 4, got ${nShards}`);
  }
  const f = Math.floor((nShards - 1) / 3);
  const nPrimary = nShards - 2 * f;
  const nSecondary = nShards - f;
  return { nShards, f, nPrimary, nSecondary, sourceSymbols: nPrimary * nSecondary };
}

/** Symbol size S of a blob of `size` bytes, or undefined when it is too large to encode (walrus.md §2). */
export function symbolSize(size: number, nShards: number): number | undefined {
  assertSize(size);
  const { sourceSymbols } = shardParameters(nShards);
  let s = Math.ceil(Math.max(size, 1) / sourceSymbols);
  if (s % 2 === 1) s += 1;
  return s <= MAX_SYMBOL_SIZE ? s : undefined;
}

/** Largest encodable blob: C · 65534 bytes (walrus.md §2). */
export function maxBlobSize(nShards: number): number {
  return shardParameters(nShards).sourceSymbols * MAX_SYMBOL_SIZE;
}

/** 2n hashes + the blob id, stored once per shard (walrus.md §9.1). */
export function metadataLength(nShards: number): number {
  return 64 * nShards + 32;
}

/** `encodedLength` = `storageSize` of a registration (walrus.md §9.1); undefined if too large to encode. */
export function encodedLength(size: number, nShards: number): number | undefined {
  const s = symbolSize(size, nShards);
  if (s === undefined) return undefined;
  const { nPrimary, nSecondary } = shardParameters(nShards);
  return nShards * (metadataLength(nShards) + (nPrimary + nSecondary) * s);
}

export function storageUnits(encodedLen: number): bigint {
  assertSize(encodedLen);
  return BigInt(Math.ceil(encodedLen / BYTES_PER_UNIT));
}

/** Cost of `registerFromScratch` in FROST: storage fee for `epochs` plus the write fee (walrus.md §9.2). */
export function registrationCost(encodedLen: number, epochs: number, prices: Prices): bigint {
  if (!Number.isInteger(epochs) || epochs < 0) throw new RangeError(`epochs must be a non-negative integer, got ${epochs}`);
  const units = storageUnits(encodedLen);
  return units * prices.storagePricePerUnit * BigInt(epochs) + units * prices.writePricePerUnit;
}

function assertSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`a size must be a non-negative integer, got ${size}`);
}
