//! The per-sliver hashes of `encode` (climbed over aligned groups of columns, never the whole
//! leaf matrix at once) against the definition a storage node checks (walrus.md §7.2): sliver
//! re-encoded with the other code, one Merkle root over its n symbols. Shard counts around the
//! group size cover a single group, full groups only, and last groups of one to fifteen columns.

mod common;

use common::splitmix64;
use tusk_rs2::{blob_id, encode, rs_encode, symbols_merkle_root};

#[test]
fn every_sliver_hash_matches_its_re_encoded_sliver() {
    for n in [4u16, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 65, 100, 130] {
        for size in [1usize, 1000, 40_000] {
            let data = splitmix64(u64::from(n) * 7919 + size as u64, size);
            let enc = encode(&data, n).unwrap();
            let p = enc.params;
            let (n, np, ns, s) = (p.n_shards, p.n_primary, p.n_secondary, p.symbol_size);
            for pair in 0..n {
                let (primary, secondary) = enc.sliver_pair(pair);
                let rows = rs_encode(primary, ns, n - ns);
                let cols = rs_encode(secondary, np, n - np);
                let hashes = &enc.metadata.pair_hashes[pair];
                assert_eq!(
                    symbols_merkle_root(&[primary, &rows], s),
                    hashes.primary,
                    "n={n} size={size} pair {pair} primary"
                );
                assert_eq!(
                    symbols_merkle_root(&[secondary, &cols], s),
                    hashes.secondary,
                    "n={n} size={size} pair {pair} secondary"
                );
            }
            assert_eq!(blob_id(&data, n as u16).unwrap(), enc.blob_id_info(), "n={n} size={size} id-only path");
        }
    }
}
