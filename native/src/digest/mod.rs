//! One streaming pass over a body computing any subset of MD5, SHA-256, SHA-1, CRC32, CRC32C and
//! CRC64NVME. The input is walked in cache-sized blocks and every requested algorithm consumes a
//! block before the next is touched, so a large body is read from memory once. Several bodies can
//! be updated in one call (`FusedHasher::update_many`): their MD5s, and their SHA-256s when there
//! are enough of them, then advance together in SIMD lanes (md5_lanes.rs, sha256_lanes.rs).

mod block_stream;
mod clmul_fold;
pub mod crc32;
pub mod crc32c;
pub mod crc64nvme;
mod fold_kernel;
mod lanes;
mod md5;
pub mod md5_lanes;
mod sha256;
pub mod sha256_lanes;
mod tables;

use self::md5::Md5;
use self::sha256::Sha256;
use sha1::{Digest, Sha1};

pub const MD5: u32 = 1 << 0;
pub const SHA256: u32 = 1 << 1;
pub const SHA1: u32 = 1 << 2;
pub const CRC32: u32 = 1 << 3;
pub const CRC32C: u32 = 1 << 4;
pub const CRC64NVME: u32 = 1 << 5;
pub const ALL: u32 = MD5 | SHA256 | SHA1 | CRC32 | CRC32C | CRC64NVME;

/// Small enough to stay in L1/L2 while six algorithms read it.
const BLOCK: usize = 32 * 1024;

#[derive(Clone)]
pub struct FusedHasher {
    md5: Option<Md5>,
    sha256: Option<Sha256>,
    sha1: Option<Sha1>,
    crc32: Option<u32>,
    crc32c: Option<u32>,
    crc64nvme: Option<u64>,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Digests {
    pub md5: Option<[u8; 16]>,
    pub sha256: Option<[u8; 32]>,
    pub sha1: Option<[u8; 20]>,
    pub crc32: Option<u32>,
    pub crc32c: Option<u32>,
    pub crc64nvme: Option<u64>,
}

impl FusedHasher {
    /// `mask` must be a non-empty subset of [`ALL`] (checked by the caller).
    pub fn new(mask: u32) -> Self {
        FusedHasher {
            md5: (mask & MD5 != 0).then(Md5::new),
            sha256: (mask & SHA256 != 0).then(Sha256::new),
            sha1: (mask & SHA1 != 0).then(Sha1::new),
            crc32: (mask & CRC32 != 0).then_some(!0),
            crc32c: (mask & CRC32C != 0).then_some(!0),
            crc64nvme: (mask & CRC64NVME != 0).then_some(!0),
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        let crcs = CrcKernels::detect();
        for block in data.chunks(BLOCK) {
            self.update_block(&crcs, block, false, false);
        }
    }

    /// Updates each hasher with its input, as `hasher.update(input)` for every pair would, but
    /// with the MD5s of the streams, and their SHA-256s when there are enough of them, advanced
    /// together in SIMD lanes (the other algorithms run stream by stream). `BLOCK` bytes of
    /// every stream are hashed by every algorithm before the next ones are read.
    pub fn update_many(jobs: &mut [(&mut FusedHasher, &[u8])]) {
        Self::update_many_with(LaneKernels::detect(), jobs)
    }

    /// [`FusedHasher::update_many`] with the given kernels (which must be available).
    pub fn update_many_with(kernels: LaneKernels, jobs: &mut [(&mut FusedHasher, &[u8])]) {
        let streams =
            |has: fn(&FusedHasher) -> bool| jobs.iter().filter(|(h, data)| has(h) && data.len() >= 64).count();
        let laned_md5 = kernels.md5 != md5_lanes::Kernel::Scalar && streams(|h| h.md5.is_some()) >= 2;
        let laned_sha256 = kernels.sha256 != sha256_lanes::Kernel::Single
            && streams(|h| h.sha256.is_some()) >= sha256_lanes::MIN_LANES;
        if !laned_md5 && !laned_sha256 {
            for (h, data) in jobs.iter_mut() {
                h.update(data);
            }
            return;
        }
        // The laned digests buffer the partial blocks at both ends of each input now and leave
        // its whole blocks (at most 63 bytes into the input) to the lanes.
        let deferred: Vec<(&[u8], &[u8])> = jobs
            .iter_mut()
            .map(|(h, data)| {
                let md5 = h.md5.as_mut().filter(|_| laned_md5).map_or(&[][..], |m| m.update_deferred(data));
                let sha256 = h.sha256.as_mut().filter(|_| laned_sha256).map_or(&[][..], |m| m.update_deferred(data));
                (md5, sha256)
            })
            .collect();
        let crcs = CrcKernels::detect();
        let longest = jobs.iter().map(|(_, data)| data.len()).max().unwrap_or(0);
        for at in (0..longest).step_by(BLOCK) {
            let slice = |data: &[u8]| at.min(data.len())..(at + BLOCK).min(data.len());
            if laned_md5 {
                let mut lanes = Vec::with_capacity(jobs.len());
                for ((h, _), (blocks, _)) in jobs.iter_mut().zip(&deferred) {
                    let range = slice(blocks);
                    if let (Some(m), false) = (&mut h.md5, range.is_empty()) {
                        lanes.push(md5_lanes::Lane { state: m.state_mut(), blocks: &blocks[range] });
                    }
                }
                md5_lanes::compress_lanes(kernels.md5, &mut lanes);
            }
            if laned_sha256 {
                let mut lanes = Vec::with_capacity(jobs.len());
                for ((h, _), (_, blocks)) in jobs.iter_mut().zip(&deferred) {
                    let range = slice(blocks);
                    if let (Some(m), false) = (&mut h.sha256, range.is_empty()) {
                        lanes.push(sha256_lanes::Lane { state: m.state_mut(), blocks: &blocks[range] });
                    }
                }
                sha256_lanes::compress_lanes(kernels.sha256, &mut lanes);
            }
            for (h, data) in jobs.iter_mut() {
                let range = slice(data);
                if !range.is_empty() {
                    h.update_block(&crcs, &data[range], laned_md5, laned_sha256);
                }
            }
        }
    }

    /// Every algorithm but those whose lanes already took this block.
    fn update_block(&mut self, k: &CrcKernels, block: &[u8], laned_md5: bool, laned_sha256: bool) {
        if let (Some(h), false) = (&mut self.md5, laned_md5) {
            h.update(block);
        }
        if let (Some(h), false) = (&mut self.sha256, laned_sha256) {
            h.update(block);
        }
        if let Some(h) = &mut self.sha1 {
            h.update(block);
        }
        if let Some(s) = &mut self.crc32 {
            *s = crc32::update_with(k.crc32, *s, block);
        }
        if let Some(s) = &mut self.crc32c {
            *s = crc32c::update_with(k.crc32c, *s, block);
        }
        if let Some(s) = &mut self.crc64nvme {
            *s = crc64nvme::update_with(k.crc64nvme, *s, block);
        }
    }

    pub fn finish(self) -> Digests {
        Digests {
            md5: self.md5.map(|h| h.finalize()),
            sha256: self.sha256.map(|h| h.finalize()),
            sha1: self.sha1.map(|h| h.finalize().into()),
            crc32: self.crc32.map(|s| !s),
            crc32c: self.crc32c.map(|s| !s),
            crc64nvme: self.crc64nvme.map(|s| !s),
        }
    }
}

/// The multi-lane kernels of `FusedHasher::update_many`.
#[derive(Clone, Copy, Debug)]
pub struct LaneKernels {
    pub md5: md5_lanes::Kernel,
    pub sha256: sha256_lanes::Kernel,
}

impl LaneKernels {
    pub fn detect() -> Self {
        LaneKernels { md5: md5_lanes::detect(), sha256: sha256_lanes::detect() }
    }
}

struct CrcKernels {
    crc32: crc32::Kernel,
    crc32c: crc32c::Kernel,
    crc64nvme: crc64nvme::Kernel,
}

impl CrcKernels {
    fn detect() -> Self {
        CrcKernels { crc32: crc32::detect(), crc32c: crc32c::detect(), crc64nvme: crc64nvme::detect() }
    }
}

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(data);
    h.finalize()
}

/// HMAC-SHA256 (RFC 2104) under `key` of the concatenation of `parts`: SigV4's per-request
/// signature, without the allocation of a Node `Hmac` object.
pub fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        let mut h = Sha256::new();
        h.update(key);
        block[..32].copy_from_slice(&h.finalize());
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let mut inner = Sha256::new();
    inner.update(&pad(0x36));
    for part in parts {
        inner.update(part);
    }
    let mut outer = Sha256::new();
    outer.update(&pad(0x5c));
    outer.update(&inner.finalize());
    outer.finalize()
}

/// CRC32C of `data` continuing from `seed`, the CRC32C of the bytes before it (0 for none).
pub fn crc32c_continue(seed: u32, data: &[u8]) -> u32 {
    !crc32c::update_with(crc32c::detect(), !seed, data)
}

/// For the start-up self-test: hashes a fixed set of streams of unequal lengths both with
/// `update_many` (the lane kernels detected on this CPU) and stream by stream, and describes the
/// first stream whose digests differ.
pub fn check_lanes() -> Option<String> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let data: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    // 20 streams: a 16-lane group and a short one, SHA-256 in enough of them for its lanes.
    let masks = [MD5, MD5 | SHA256, ALL, SHA256];
    let input = |i: usize| &data[i * 7..i * 7 + 20_000 + i * 3001];
    let mut laned: Vec<FusedHasher> = (0..20).map(|i| FusedHasher::new(masks[i % masks.len()])).collect();
    let single = laned.clone();
    let mut jobs: Vec<(&mut FusedHasher, &[u8])> = laned.iter_mut().enumerate().map(|(i, h)| (h, input(i))).collect();
    FusedHasher::update_many(&mut jobs);
    for (i, (laned, mut single)) in laned.into_iter().zip(single).enumerate() {
        single.update(input(i));
        let (got, want) = (laned.finish(), single.finish());
        if got != want {
            return Some(format!("stream {i} of {} bytes: {got:?} by lanes, {want:?} alone", input(i).len()));
        }
    }
    None
}

/// Which SIMD path each algorithm takes on this CPU, for start-up logs.
pub fn simd_paths() -> [(&'static str, &'static str); 6] {
    #[cfg(target_arch = "x86_64")]
    let sha_ni = is_x86_feature_detected!("sha") && is_x86_feature_detected!("sse4.1");
    #[cfg(not(target_arch = "x86_64"))]
    let sha_ni = false;
    [
        ("md5", md5_lanes::detect().name()),
        (
            "sha256",
            match (sha_ni, sha256_lanes::detect()) {
                (true, sha256_lanes::Kernel::Avx512x16) => "sha-ni+avx512x16",
                (true, _) => "sha-ni",
                (false, sha256_lanes::Kernel::Avx512x16) => "portable+avx512x16",
                (false, _) => "portable",
            },
        ),
        ("sha1", if sha_ni { "sha-ni" } else { "portable" }),
        ("crc32", crc32::detect().name()),
        ("crc32c", crc32c::detect().name()),
        ("crc64nvme", crc64nvme::detect().name()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_values() {
        let mut h = FusedHasher::new(ALL);
        h.update(b"1234");
        h.update(b"56789");
        let d = h.finish();
        assert_eq!(d.crc32, Some(0xCBF4_3926));
        assert_eq!(d.crc32c, Some(0xE306_9283));
        assert_eq!(d.crc64nvme, Some(0xAE8B_1486_0A79_9888));
        assert_eq!(d.md5.unwrap()[..4], [0x25, 0xf9, 0xe7, 0x94]);
        assert_eq!(crc32c_continue(crc32c_continue(0, b"1234"), b"56789"), 0xE306_9283);
    }

    #[test]
    fn lanes_self_test_passes() {
        assert_eq!(check_lanes(), None);
    }

    #[test]
    fn mask_selects_algorithms() {
        let d = FusedHasher::new(MD5 | CRC64NVME).finish();
        assert!(d.md5.is_some() && d.crc64nvme.is_some());
        assert!(d.sha256.is_none() && d.sha1.is_none() && d.crc32.is_none() && d.crc32c.is_none());
    }

    /// Streams of awkward lengths, each with a partial block already buffered, hashed by
    /// `update_many_with` on every available pair of kernels, must give what `update` gives,
    /// and MD5 and SHA-256 what the md-5 and sha2 crates give.
    #[test]
    fn update_many_matches_update_per_stream() {
        use lanes::testing::Rng;
        use md5_lanes::tests::available_kernels;
        let mut rng = Rng(0x5eed);
        let masks = [MD5, MD5 | SHA256, MD5 | CRC32C, MD5 | SHA256 | CRC64NVME, ALL, CRC32 | SHA1, SHA256];
        let lengths = [0, 1, 55, 56, 57, 63, 64, 65, 127, 128, 129, 4095, 32 * 1024 + 1, 100_003];
        let sha256_kernels = [sha256_lanes::Kernel::Avx512x16, sha256_lanes::Kernel::Single];
        let pairs = available_kernels().into_iter().flat_map(|md5| {
            sha256_kernels.into_iter().filter(|k| k.available()).map(move |sha256| LaneKernels { md5, sha256 })
        });
        for kernel in pairs {
            for streams in [1, 2, 3, 8, 16, 17, 33] {
                let inputs: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = (0..streams)
                    .map(|_| {
                        let (h, a, b) = (rng.below(64), rng.below(lengths.len()), rng.below(lengths.len()));
                        (rng.bytes(h), rng.bytes(lengths[a]), rng.bytes(lengths[b]))
                    })
                    .collect();
                let mut ours: Vec<FusedHasher> =
                    (0..streams).map(|i| FusedHasher::new(masks[i % masks.len()])).collect();
                let mut want = ours.clone();
                for (h, (head, _, _)) in ours.iter_mut().zip(&inputs) {
                    h.update(head);
                }
                for step in 0..2 {
                    let mut jobs: Vec<(&mut FusedHasher, &[u8])> = ours
                        .iter_mut()
                        .zip(&inputs)
                        .map(|(h, (_, a, b))| (h, if step == 0 { &a[..] } else { &b[..] }))
                        .collect();
                    FusedHasher::update_many_with(kernel, &mut jobs);
                }
                for (i, (h, (head, a, b))) in want.iter_mut().zip(&inputs).enumerate() {
                    h.update(head);
                    h.update(a);
                    h.update(b);
                    let got = ours[i].clone().finish();
                    let expected = h.clone().finish();
                    assert_eq!(
                        got,
                        expected,
                        "{kernel:?}, {streams} streams, stream {i}: {} + {} + {} bytes",
                        head.len(),
                        a.len(),
                        b.len()
                    );
                    let whole = [&head[..], a, b].concat();
                    if let Some(md5) = got.md5 {
                        assert_eq!(md5, <[u8; 16]>::from(<::md5::Md5 as ::md5::Digest>::digest(&whole)));
                    }
                    if let Some(sha256) = got.sha256 {
                        assert_eq!(sha256, <[u8; 32]>::from(<sha2::Sha256 as sha2::Digest>::digest(&whole)));
                    }
                }
            }
        }
    }
}
