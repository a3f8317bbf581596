//! Per-sliver hashes, metadata, root hash and blob id (walrus.md §7), and their BCS forms (§8).

use crate::hash::{blake2b256, leaf_hash, merkle_root, Digest};
use crate::params::EncodingParams;

/// `EncodingType::RS2` (§7.5, §8.2).
pub const RS2_ENCODING_TYPE: u8 = 1;
/// BCS tag of `Node::Digest` (§8.2).
const NODE_DIGEST: u8 = 1;
/// BCS tag of `BlobMetadata::V1`.
const METADATA_V1: u8 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliverPairHashes {
    /// Merkle root over row p of the expanded matrix.
    pub primary: Digest,
    /// Merkle root over column n−1−p of the expanded matrix.
    pub secondary: Digest,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobMetadata {
    pub blob_id: Digest,
    pub root_hash: Digest,
    pub unencoded_length: u64,
    /// One entry per sliver pair, in pair order.
    pub pair_hashes: Vec<SliverPairHashes>,
}

impl BlobMetadata {
    pub fn from_pair_hashes(
        unencoded_length: u64,
        pair_hashes: Vec<SliverPairHashes>,
    ) -> BlobMetadata {
        let root_hash = root_hash(&pair_hashes);
        BlobMetadata {
            blob_id: blob_id(unencoded_length, &root_hash),
            root_hash,
            unencoded_length,
            pair_hashes,
        }
    }

    /// BCS `BlobMetadataWithId` (§8.2): [`metadata_bcs_len`] bytes.
    pub fn to_bcs(&self) -> Vec<u8> {
        let n = self.pair_hashes.len();
        let mut out = Vec::with_capacity(metadata_bcs_len(n));
        out.extend_from_slice(&self.blob_id);
        out.push(METADATA_V1);
        out.push(RS2_ENCODING_TYPE);
        out.extend_from_slice(&self.unencoded_length.to_le_bytes());
        write_uleb128(&mut out, n as u64);
        for h in &self.pair_hashes {
            out.push(NODE_DIGEST);
            out.extend_from_slice(&h.primary);
            out.push(NODE_DIGEST);
            out.extend_from_slice(&h.secondary);
        }
        out
    }
}

/// Length of the BCS `BlobMetadataWithId` of n sliver pairs (§8.2): `66n + 42 + uleb(n)`.
pub fn metadata_bcs_len(n: usize) -> usize {
    let mut uleb = 1;
    while n >> (7 * uleb) != 0 {
        uleb += 1;
    }
    66 * n + 42 + uleb
}

pub fn write_uleb128(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Merkle root over the pair leaves `primary ‖ secondary` (§7.4).
pub fn root_hash(pairs: &[SliverPairHashes]) -> Digest {
    let leaves: Vec<Digest> = pairs
        .iter()
        .map(|p| {
            let mut input = [0u8; 64];
            input[..32].copy_from_slice(&p.primary);
            input[32..].copy_from_slice(&p.secondary);
            leaf_hash(&input)
        })
        .collect();
    merkle_root(&leaves)
}

/// `H(0x01 ‖ u64_le(length) ‖ root)` (§7.5).
pub fn blob_id(unencoded_length: u64, root_hash: &Digest) -> Digest {
    let mut input = [0u8; 41];
    input[0] = RS2_ENCODING_TYPE;
    input[1..9].copy_from_slice(&unencoded_length.to_le_bytes());
    input[9..].copy_from_slice(root_hash);
    blake2b256(&input)
}

/// BCS `SliverData` (§8.1): `uleb(len) ‖ data ‖ u16 symbol_size ‖ u16 index`.
pub fn sliver_bcs(params: &EncodingParams, data: &[u8], index: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 9);
    write_uleb128(&mut out, data.len() as u64);
    out.extend_from_slice(data);
    out.extend_from_slice(&(params.symbol_size as u16).to_le_bytes());
    out.extend_from_slice(&(index as u16).to_le_bytes());
    out
}
