//! Parameters derived from the shard count and blob length (walrus.md §2, §9.1).

use std::fmt;

/// The largest RS2 symbol (`u16::MAX - 1`, an even number of bytes).
pub const MAX_SYMBOL_SIZE: usize = u16::MAX as usize - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodingParams {
    pub n_shards: usize,
    /// Maximum number of Byzantine shards, `⌊(n-1)/3⌋`.
    pub f: usize,
    /// Rows of the message matrix = symbols per secondary sliver (`n - 2f`).
    pub n_primary: usize,
    /// Columns of the message matrix = symbols per primary sliver (`n - f`).
    pub n_secondary: usize,
    pub symbol_size: usize,
    pub unencoded_length: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// RS2 needs n ≥ 4 (for smaller n there are no recovery symbols).
    InvalidShardCount(u16),
    /// The blob exceeds `max_blob_size(n)` ("the data is too large to be encoded/decoded").
    DataTooLarge { length: u64, max: u64 },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::InvalidShardCount(n) => {
                write!(f, "invalid number of shards {n}: RS2 needs at least 4")
            }
            EncodeError::DataTooLarge { length, max } => {
                write!(f, "the data is too large to be encoded/decoded ({length} > {max} bytes)")
            }
        }
    }
}

impl std::error::Error for EncodeError {}

/// Source symbols per blob and the maximum blob size, or an error for n < 4.
pub fn source_symbols(n_shards: u16) -> Result<(usize, usize), EncodeError> {
    if n_shards < 4 {
        return Err(EncodeError::InvalidShardCount(n_shards));
    }
    let n = n_shards as usize;
    let f = (n - 1) / 3;
    Ok((n - 2 * f, n - f))
}

/// Largest encodable blob for n shards: `n_primary · n_secondary · 65534`.
pub fn max_blob_size(n_shards: u16) -> Result<u64, EncodeError> {
    let (p, s) = source_symbols(n_shards)?;
    Ok((p * s) as u64 * MAX_SYMBOL_SIZE as u64)
}

impl EncodingParams {
    pub fn new(n_shards: u16, unencoded_length: u64) -> Result<EncodingParams, EncodeError> {
        let (n_primary, n_secondary) = source_symbols(n_shards)?;
        let n = n_shards as usize;
        let c = (n_primary * n_secondary) as u64;
        let mut s = unencoded_length.max(1).div_ceil(c);
        s += s % 2;
        if s > MAX_SYMBOL_SIZE as u64 {
            return Err(EncodeError::DataTooLarge { length: unencoded_length, max: c * MAX_SYMBOL_SIZE as u64 });
        }
        Ok(EncodingParams {
            n_shards: n,
            f: (n - 1) / 3,
            n_primary,
            n_secondary,
            symbol_size: s as usize,
            unencoded_length,
        })
    }

    pub fn primary_sliver_len(&self) -> usize {
        self.n_secondary * self.symbol_size
    }

    pub fn secondary_sliver_len(&self) -> usize {
        self.n_primary * self.symbol_size
    }

    /// Per-shard metadata size `64n + 32` (§9.1).
    pub fn metadata_length(&self) -> u64 {
        64 * self.n_shards as u64 + 32
    }

    /// Encoded length charged on chain: `n · (metadata + (n_primary + n_secondary) · S)` (§9.1).
    pub fn encoded_length(&self) -> u64 {
        let per_shard = (self.n_primary + self.n_secondary) as u64 * self.symbol_size as u64;
        self.n_shards as u64 * (self.metadata_length() + per_shard)
    }
}
