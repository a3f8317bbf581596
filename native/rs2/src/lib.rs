//! Walrus RS2 encoding in pure Rust: blob ids, slivers, metadata and decoding, byte-identical to
//! Walrus (`shared/spec/walrus.md` §1–§8).

pub mod bcs;
mod blake2b_x8;
mod buffer;
mod decode;
mod encode;
mod engine;
mod fft;
mod gf;
mod hash;
mod metadata;
mod packing;
mod params;
mod rs;
mod shared;

pub use bcs::metadata_bcs_len;
pub use decode::DecodeError;
pub use encode::SliverRegion;
pub use engine::EngineKind;
pub use hash::{symbols_merkle_root, Digest};
pub use metadata::{BlobMetadata, SliverPairHashes};
pub use params::{max_blob_size, EncodeError, EncodingParams, MAX_SYMBOL_SIZE};

use engine::Engine;

/// Blob id and the values a publisher reports with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobIdInfo {
    pub blob_id: Digest,
    pub root_hash: Digest,
    pub unencoded_length: u64,
    /// Size charged on chain (§9.1).
    pub encoded_length: u64,
    pub symbol_size: u16,
    pub n_shards: u16,
}

/// A fully encoded blob: slivers by index plus metadata.
pub struct EncodedBlob {
    pub params: EncodingParams,
    pub metadata: BlobMetadata,
    /// Primary slivers 0..n back to back (`params.primary_sliver_len()` bytes each).
    primary: Vec<u8>,
    /// Secondary slivers 0..n back to back (`params.secondary_sliver_len()` bytes each).
    secondary: Vec<u8>,
}

impl EncodedBlob {
    pub fn primary_sliver(&self, index: usize) -> &[u8] {
        let l = self.params.primary_sliver_len();
        &self.primary[index * l..(index + 1) * l]
    }

    pub fn secondary_sliver(&self, index: usize) -> &[u8] {
        let l = self.params.secondary_sliver_len();
        &self.secondary[index * l..(index + 1) * l]
    }

    /// All primary slivers in index order, concatenated.
    pub fn primary_slivers(&self) -> &[u8] {
        &self.primary
    }

    /// All secondary slivers in index order, concatenated.
    pub fn secondary_slivers(&self) -> &[u8] {
        &self.secondary
    }

    /// Sliver pair p: primary sliver p and secondary sliver n−1−p (§4).
    pub fn sliver_pair(&self, pair: usize) -> (&[u8], &[u8]) {
        (self.primary_sliver(pair), self.secondary_sliver(self.params.n_shards - 1 - pair))
    }

    /// BCS `SliverData` of primary sliver `index` (§8.1).
    pub fn primary_sliver_bcs(&self, index: usize) -> Vec<u8> {
        bcs::sliver_bcs(self.primary_sliver(index), self.params.symbol_size, index)
    }

    /// BCS `SliverData` of secondary sliver `index` (§8.1).
    pub fn secondary_sliver_bcs(&self, index: usize) -> Vec<u8> {
        bcs::sliver_bcs(self.secondary_sliver(index), self.params.symbol_size, index)
    }

    pub fn blob_id_info(&self) -> BlobIdInfo {
        blob_id_info(&self.params, &self.metadata)
    }
}

/// The blob id and the sizes a publisher reports, from parameters and metadata.
pub fn blob_id_info(params: &EncodingParams, m: &BlobMetadata) -> BlobIdInfo {
    BlobIdInfo {
        blob_id: m.blob_id,
        root_hash: m.root_hash,
        unencoded_length: m.unencoded_length,
        encoded_length: params.encoded_length(),
        symbol_size: params.symbol_size as u16,
        n_shards: params.n_shards as u16,
    }
}

/// Sliver hashes, root hash and blob id of `data` for `n_shards` (no slivers kept).
pub fn compute_metadata(data: &[u8], n_shards: u16) -> Result<BlobMetadata, EncodeError> {
    let params = EncodingParams::new(n_shards, data.len() as u64)?;
    let pairs = encode::expand(data, params, None, &Engine::default());
    Ok(BlobMetadata::from_pair_hashes(params.unencoded_length, pairs))
}

/// Blob id of `data` for `n_shards`.
pub fn blob_id(data: &[u8], n_shards: u16) -> Result<BlobIdInfo, EncodeError> {
    let params = EncodingParams::new(n_shards, data.len() as u64)?;
    Ok(blob_id_info(&params, &compute_metadata(data, n_shards)?))
}

/// Full encoding: primary and secondary slivers plus metadata.
pub fn encode(data: &[u8], n_shards: u16) -> Result<EncodedBlob, EncodeError> {
    encode_with_engine(data, n_shards, EngineKind::detect())
}

/// `encode` with a chosen arithmetic engine (for tests and benchmarks; all give equal results).
pub fn encode_with_engine(data: &[u8], n_shards: u16, kind: EngineKind) -> Result<EncodedBlob, EncodeError> {
    let params = EncodingParams::new(n_shards, data.len() as u64)?;
    let (p_len, s_len) = (params.primary_sliver_len(), params.secondary_sliver_len());
    let mut primary = buffer::zeroed(params.n_shards * p_len);
    let mut secondary = buffer::zeroed(params.n_shards * s_len);
    let metadata = encode_regions(
        data,
        params,
        SliverRegion { bytes: &mut primary, offset: 0, stride: p_len },
        SliverRegion { bytes: &mut secondary, offset: 0, stride: s_len },
        &Engine::new(kind),
    );
    Ok(EncodedBlob { params, metadata, primary, secondary })
}

/// Full encoding with the slivers written where the caller wants them: primary sliver i at
/// `primary.offset + i·primary.stride`, secondary likewise (lengths from
/// `EncodingParams::new(n_shards, data.len())`). Panics if a region is too small.
pub fn encode_into(
    data: &[u8],
    n_shards: u16,
    primary: SliverRegion,
    secondary: SliverRegion,
) -> Result<BlobMetadata, EncodeError> {
    let params = EncodingParams::new(n_shards, data.len() as u64)?;
    Ok(encode_regions(data, params, primary, secondary, &Engine::default()))
}

fn encode_regions(
    data: &[u8],
    params: EncodingParams,
    primary: SliverRegion,
    secondary: SliverRegion,
    eng: &Engine,
) -> BlobMetadata {
    let pairs = encode::expand(data, params, Some((primary, secondary)), eng);
    BlobMetadata::from_pair_hashes(params.unencoded_length, pairs)
}

/// Rebuilds a blob from at least n_primary distinct primary slivers `(index, bytes)`.
/// Performs no consistency check; see `decode_verified`.
pub fn decode(n_shards: u16, unencoded_length: u64, primary_slivers: &[(u16, &[u8])]) -> Result<Vec<u8>, DecodeError> {
    decode::decode_primary(n_shards, unencoded_length, primary_slivers, &Engine::default())
}

/// `decode`, then re-encodes the result and checks it against `blob_id` (Walrus's "strict"
/// consistency check).
pub fn decode_verified(
    n_shards: u16,
    blob_id: &Digest,
    unencoded_length: u64,
    primary_slivers: &[(u16, &[u8])],
) -> Result<Vec<u8>, DecodeError> {
    let blob = decode(n_shards, unencoded_length, primary_slivers)?;
    let id = compute_metadata(&blob, n_shards).map_err(DecodeError::Params)?.blob_id;
    if &id == blob_id {
        Ok(blob)
    } else {
        Err(DecodeError::BlobIdMismatch)
    }
}

/// `decode` with Walrus's default consistency check: every systematic primary sliver of the result
/// matches `primary_hashes[r]` (the metadata's primary hash of pair r, r < n_primary).
pub fn decode_checked(
    n_shards: u16,
    primary_hashes: &[Digest],
    unencoded_length: u64,
    primary_slivers: &[(u16, &[u8])],
) -> Result<Vec<u8>, DecodeError> {
    let eng = Engine::default();
    let mut rows = decode::decode_rows(n_shards, unencoded_length, primary_slivers, &eng)?;
    decode::check_systematic_rows(n_shards, unencoded_length, &rows, primary_hashes, &eng)?;
    rows.truncate(unencoded_length as usize);
    Ok(rows)
}

/// Text form of a blob id: URL-safe base64 without padding (43 characters, §1).
pub fn blob_id_to_base64url(id: &Digest) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(43);
    for chunk in id.chunks(3) {
        let v = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(v >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Plain Reed–Solomon encoding as reed-solomon-simd computes it: `originals` (k shards of
/// `shard_bytes`, even) → `recovery_count` recovery shards, concatenated (§5.6).
pub fn rs_encode(originals: &[u8], original_count: usize, recovery_count: usize) -> Vec<u8> {
    assert!(original_count > 0 && originals.len().is_multiple_of(original_count));
    let shard_bytes = originals.len() / original_count;
    assert!(shard_bytes.is_multiple_of(2) && shard_bytes > 0, "shard size must be even");
    let code = rs::RsCode::cached(original_count, recovery_count);
    let pk = packing::Packing::new(shard_bytes, 1);
    let len = pk.shard_len();
    let mut work = vec![0u8; code.encode_work_shards() * len];
    for (i, shard) in originals.chunks_exact(shard_bytes).enumerate() {
        pk.pack(&mut work[i * len..(i + 1) * len], 0, shard);
    }
    code.encode(&Engine::default(), &mut work, len);
    let mut out = vec![0u8; recovery_count * shard_bytes];
    for (j, dst) in out.chunks_exact_mut(shard_bytes).enumerate() {
        let slot = code.recovery_slot(j);
        pk.unpack(&work[slot * len..(slot + 1) * len], 0, dst);
    }
    out
}
