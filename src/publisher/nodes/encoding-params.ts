// RS2 sizes that follow from the shard count alone (walrus.md §2): what a storage node needs to check
// that metadata and slivers are consistently sized, without the RS2 code itself.

/** RS2 symbols are whole GF(2^16) elements: u16::MAX − 1 bytes at most (walrus.md §2). */
export const MAX_SYMBOL_SIZE = 65_534;

export interface EncodingParams {
  nShards: number;
  /** maximum Byzantine shards, floor((n − 1) / 3) */
  f: number;
  /** source symbols of the primary (column) code = rows = symbols per secondary sliver */
  nPrimary: number;
  /** source symbols of the secondary (row) code = columns = symbols per primary sliver */
  nSecondary: number;
  /** largest encodable blob, C · 65534 bytes */
  maxBlobSize: number;
}

export function encodingParams(nShards: number): EncodingParams {
  // For n ≤ 3, f = 0 and the codes have no recovery symbols (walrus.md §2).
  if (!Number.isSafeInteger(nShards) || nShards < 4 || nShards > 65_535) {
    throw new RangeError(`n_shards must be an integer in 4..65535, got ${nShards}`);
  }
  const f = Math.floor((nShards - 1) / 3);
  const nPrimary = nShards - 2 * f;
  const nSecondary = nShards - f;
  return { nShards, f, nPrimary, nSecondary, maxBlobSize: nPrimary * nSecondary * MAX_SYMBOL_SIZE };
}

/** Symbol size for a blob of `length` bytes (walrus.md §2), or undefined when the blob is too large. */
export function symbolSize(length: number, params: EncodingParams): number | undefined {
  const sourceSymbols = params.nPrimary * params.nSecondary;
  let size = Math.ceil(Math.max(length, 1) / sourceSymbols);
  if (size % 2 === 1) size += 1;
  return size <= MAX_SYMBOL_SIZE ? size : undefined;
}

/** Bytes of symbol data in a sliver of `axis` (walrus.md §2: primary n_secondary·S, secondary n_primary·S). */
export function sliverDataLength(axis: 'primary' | 'secondary', symbol: number, params: EncodingParams): number {
  return (axis === 'primary' ? params.nSecondary : params.nPrimary) * symbol;
}
