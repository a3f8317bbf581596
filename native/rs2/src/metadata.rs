//! Per-sliver hashes, metadata, root hash and blob id (walrus.md §7); their BCS forms are in `bcs`.

use crate::hash::{blake2b256, leaf_hash, merkle_root, Digest};

/// `EncodingType::RS2` (§7.5, §8.2).
pub const RS2_ENCODING_TYPE: u8 = 1;

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
    pub fn from_pair_hashes(unencoded_length: u64, pair_hashes: Vec<SliverPairHashes>) -> BlobMetadata {
        let root_hash = root_hash(&pair_hashes);
        BlobMetadata { blob_id: blob_id(unencoded_length, &root_hash), root_hash, unencoded_length, pair_hashes }
    }

    /// BCS `BlobMetadataWithId` (§8.2).
    pub fn to_bcs(&self) -> Vec<u8> {
        crate::bcs::metadata_bcs(self)
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
