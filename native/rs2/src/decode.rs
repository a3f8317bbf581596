//! Blob reconstruction from any n_primary primary slivers (walrus.md §5.8, §11): every column
//! position of the primary code is erasure-decoded, in column batches like the encoder.

use crate::engine::Engine;
use crate::hash::Digest;
use crate::packing::{batches, Packing};
use crate::params::{EncodeError, EncodingParams};
use crate::rs::RsCode;
use crate::shared::SharedMut;
use rayon::prelude::*;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    Params(EncodeError),
    /// Fewer than n_primary distinct primary slivers were given.
    NotEnoughSlivers {
        have: usize,
        need: usize,
    },
    /// A sliver index ≥ n, a repeated index or a wrong length.
    InvalidSliver {
        index: u16,
        reason: &'static str,
    },
    /// The decoded blob does not re-encode to the expected blob id.
    BlobIdMismatch,
    /// A systematic primary sliver of the decoded blob (one of its rows) does not hash to its
    /// primary hash in the metadata.
    SliverHashMismatch {
        index: u16,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Params(e) => e.fmt(f),
            DecodeError::NotEnoughSlivers { have, need } => {
                write!(f, "not enough primary slivers to decode: {have} of {need}")
            }
            DecodeError::InvalidSliver { index, reason } => {
                write!(f, "invalid primary sliver {index}: {reason}")
            }
            DecodeError::BlobIdMismatch => write!(f, "the decoded blob does not match the blob id"),
            DecodeError::SliverHashMismatch { index } => {
                write!(
                    f,
                    "systematic primary sliver {index} of the decoded blob does not match its hash in the metadata"
                )
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Rebuilds a blob of `unencoded_length` bytes from primary slivers `(sliver index, bytes)`.
pub fn decode_primary(
    n_shards: u16,
    unencoded_length: u64,
    slivers: &[(u16, &[u8])],
    eng: &Engine,
) -> Result<Vec<u8>, DecodeError> {
    let mut blob = decode_rows(n_shards, unencoded_length, slivers, eng)?;
    blob.truncate(unencoded_length as usize);
    Ok(blob)
}

/// Walrus's default consistency check (walrus.md §11, walrus-core `default_consistency_check`):
/// each systematic primary sliver, that is each row of the rebuilt blob with its padding, hashes
/// to its primary hash in the metadata (`primary_hashes[r]` for row r). The blob is exactly those
/// rows, so with verified metadata this proves every byte, at the cost of hashing n_primary of
/// the 2n slivers instead of re-encoding the whole blob (the strict check).
pub fn check_systematic_rows(
    n_shards: u16,
    unencoded_length: u64,
    rows: &[u8],
    primary_hashes: &[Digest],
    eng: &Engine,
) -> Result<(), DecodeError> {
    let params = EncodingParams::new(n_shards, unencoded_length).map_err(DecodeError::Params)?;
    assert_eq!(rows.len(), params.n_primary * params.primary_sliver_len(), "the padded rows of the blob");
    assert!(primary_hashes.len() >= params.n_primary, "a primary hash per systematic sliver");
    let computed = crate::encode::source_row_hashes(rows, params, eng);
    match computed.iter().zip(primary_hashes).position(|(got, want)| got != want) {
        Some(r) => Err(DecodeError::SliverHashMismatch { index: r as u16 }),
        None => Ok(()),
    }
}

/// The rows 0..n_primary of the blob (primary sliver length each, the last ones zero-padded past
/// `unencoded_length`) from primary slivers `(sliver index, bytes)`.
pub(crate) fn decode_rows(
    n_shards: u16,
    unencoded_length: u64,
    slivers: &[(u16, &[u8])],
    eng: &Engine,
) -> Result<Vec<u8>, DecodeError> {
    let params = EncodingParams::new(n_shards, unencoded_length).map_err(DecodeError::Params)?;
    let EncodingParams { n_shards: n, f, n_primary, n_secondary, symbol_size: s, .. } = params;
    let row_len = params.primary_sliver_len();
    let mut by_index: Vec<Option<&[u8]>> = vec![None; n];
    for &(index, bytes) in slivers {
        let slot = by_index
            .get_mut(index as usize)
            .ok_or(DecodeError::InvalidSliver { index, reason: "index out of range" })?;
        if slot.is_some() {
            return Err(DecodeError::InvalidSliver { index, reason: "repeated index" });
        }
        if bytes.len() != row_len {
            return Err(DecodeError::InvalidSliver { index, reason: "wrong length" });
        }
        *slot = Some(bytes);
    }
    let received: Vec<usize> = (0..n).filter(|&i| by_index[i].is_some()).collect();
    let code = RsCode::cached(n_primary, 2 * f);
    let plan =
        code.plan_decode(&received).ok_or(DecodeError::NotEnoughSlivers { have: received.len(), need: n_primary })?;
    let mut blob = crate::buffer::zeroed(n_primary * row_len);
    for (r, row) in blob.chunks_exact_mut(row_len).enumerate() {
        if let Some(bytes) = by_index[r] {
            row.copy_from_slice(bytes);
        }
    }
    if !plan.outputs.is_empty() {
        let out = SharedMut::new(&mut blob);
        batches(n_secondary, Packing::bytes_per_symbol(s)).into_par_iter().for_each_init(Vec::new, |work, cols| {
            let pk = Packing::new(s, cols.len());
            let len = pk.shard_len();
            work.clear();
            work.resize(plan.work_shards * len, 0);
            for &(index, point, _) in &plan.inputs {
                let sliver = by_index[index].unwrap();
                let shard = &mut work[point * len..(point + 1) * len];
                for c in cols.clone() {
                    pk.pack(shard, c - cols.start, &sliver[c * s..(c + 1) * s]);
                }
            }
            code.decode(eng, &plan, work, len);
            for &(index, point, _) in &plan.outputs {
                let shard = &work[point * len..(point + 1) * len];
                for c in cols.clone() {
                    // SAFETY: columns `cols` of each missing row belong to this batch only.
                    let dst = unsafe { out.slice(index * row_len + c * s, s) };
                    pk.unpack(shard, c - cols.start, dst);
                }
            }
        });
    }
    Ok(blob)
}
