//! Erasure decoding: blobs rebuilt from random subsets of n_primary primary slivers, plus the
//! error cases; and all arithmetic engines giving the same encoding.

mod common;

use common::splitmix64;
use tusk_rs2::{decode, decode_checked, decode_verified, encode, encode_with_engine, DecodeError, Digest, EngineKind};

/// Deterministic shuffle (Fisher–Yates driven by SplitMix64 bytes).
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let rnd = splitmix64(seed, 8 * n);
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let r = u64::from_le_bytes(rnd[8 * i..8 * i + 8].try_into().unwrap());
        v.swap(i, (r % (i as u64 + 1)) as usize);
    }
    v
}

fn round_trip(n: u16, size: usize, seed: u64) {
    let data = splitmix64(seed, size);
    let enc = encode(&data, n).unwrap();
    let need = enc.params.n_primary;
    let mut subsets: Vec<Vec<usize>> = Vec::new();
    // Random subsets, only recovery slivers, and the systematic rows (no arithmetic needed).
    for t in 0..3 {
        subsets.push(shuffled(n as usize, seed ^ (t + 1))[..need].to_vec());
    }
    subsets.push((n as usize - need..n as usize).collect());
    subsets.push((0..need).collect());
    for picked in subsets {
        let slivers: Vec<(u16, &[u8])> = picked.iter().map(|&i| (i as u16, enc.primary_sliver(i))).collect();
        let out = decode(n, size as u64, &slivers).unwrap();
        assert!(out == data, "n={n} size={size} picked={picked:?}");
        let verified = decode_verified(n, &enc.metadata.blob_id, size as u64, &slivers).unwrap();
        assert!(verified == data);
        let checked = decode_checked(n, &primary_hashes(&enc), size as u64, &slivers).unwrap();
        assert!(checked == data);
    }
}

fn primary_hashes(enc: &tusk_rs2::EncodedBlob) -> Vec<Digest> {
    enc.metadata.pair_hashes.iter().map(|h| h.primary).collect()
}

#[test]
fn decodes_from_any_n_primary_slivers() {
    for (n, sizes) in [
        (4u16, &[0usize, 1, 13, 1000, 4096][..]),
        (7, &[13, 2500]),
        (10, &[33, 1793, 100_000]),
        (100, &[4557, 300_001]),
        (1000, &[10, 1_048_579]),
    ] {
        for (i, &size) in sizes.iter().enumerate() {
            round_trip(n, size, 0xDEC0DE + n as u64 * 1000 + i as u64);
        }
    }
}

#[test]
fn decode_errors() {
    let data = splitmix64(7, 5000);
    let enc = encode(&data, 10).unwrap();
    let need = enc.params.n_primary;
    let few: Vec<(u16, &[u8])> = (0..need - 1).map(|i| (i as u16 + 5, enc.primary_sliver(i + 5))).collect();
    assert_eq!(decode(10, 5000, &few).unwrap_err(), DecodeError::NotEnoughSlivers { have: need - 1, need });
    let repeated = vec![(3u16, enc.primary_sliver(3)); need];
    assert!(matches!(decode(10, 5000, &repeated), Err(DecodeError::InvalidSliver { index: 3, .. })));
    let short = &enc.primary_sliver(0)[1..];
    assert!(matches!(decode(10, 5000, &[(0, short)]), Err(DecodeError::InvalidSliver { index: 0, .. })));
    let out_of_range: Vec<(u16, &[u8])> = vec![(10, enc.primary_sliver(0))];
    assert!(matches!(decode(10, 5000, &out_of_range), Err(DecodeError::InvalidSliver { index: 10, .. })));
    // A corrupted sliver decodes to other bytes, which the blob-id check rejects.
    let mut bad = enc.primary_sliver(9).to_vec();
    bad[0] ^= 1;
    let mut slivers: Vec<(u16, &[u8])> = (5..9).map(|i| (i as u16, enc.primary_sliver(i))).collect();
    slivers[0] = (9, &bad);
    assert_eq!(decode_verified(10, &enc.metadata.blob_id, 5000, &slivers).unwrap_err(), DecodeError::BlobIdMismatch);
    // The default check finds the rows it rebuilt from it wrong; with a systematic sliver
    // corrupted, its own row (taken as it is).
    assert!(matches!(
        decode_checked(10, &primary_hashes(&enc), 5000, &slivers),
        Err(DecodeError::SliverHashMismatch { .. })
    ));
    let mut bad_row = enc.primary_sliver(2).to_vec();
    bad_row[7] ^= 0x40;
    let mut systematic: Vec<(u16, &[u8])> = (0..need).map(|i| (i as u16, enc.primary_sliver(i))).collect();
    systematic[2] = (2, &bad_row);
    assert_eq!(
        decode_checked(10, &primary_hashes(&enc), 5000, &systematic).unwrap_err(),
        DecodeError::SliverHashMismatch { index: 2 }
    );
}

#[test]
fn engines_agree_on_full_encodings() {
    for (n, size) in [(10u16, 70_000usize), (100, 1_000_001), (1000, 300_000)] {
        let data = splitmix64(size as u64, size);
        let reference = encode_with_engine(&data, n, EngineKind::Portable).unwrap();
        for kind in [EngineKind::Avx2, EngineKind::Avx512Gfni] {
            if !kind.is_supported() {
                continue;
            }
            let enc = encode_with_engine(&data, n, kind).unwrap();
            assert_eq!(enc.metadata, reference.metadata, "{kind:?} n={n}");
            assert!(enc.primary_slivers() == reference.primary_slivers(), "{kind:?} n={n}");
            assert!(enc.secondary_slivers() == reference.secondary_slivers(), "{kind:?} n={n}");
        }
    }
}
