//! One streaming pass over a body computing any subset of MD5, SHA-256, SHA-1, CRC32, CRC32C and
//! CRC64NVME. The input is walked in cache-sized blocks and every requested algorithm consumes a
//! block before the next is touched, so a large body is read from memory once.

mod clmul_fold;
mod fold_kernel;
mod md5;
pub mod crc32;
pub mod crc32c;
pub mod crc64nvme;
mod tables;

use self::md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256};

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
        let k32 = crc32::detect();
        let k32c = crc32c::detect();
        let k64 = crc64nvme::detect();
        for block in data.chunks(BLOCK) {
            if let Some(h) = &mut self.md5 {
                h.update(block);
            }
            if let Some(h) = &mut self.sha256 {
                h.update(block);
            }
            if let Some(h) = &mut self.sha1 {
                h.update(block);
            }
            if let Some(s) = &mut self.crc32 {
                *s = crc32::update_with(k32, *s, block);
            }
            if let Some(s) = &mut self.crc32c {
                *s = crc32c::update_with(k32c, *s, block);
            }
            if let Some(s) = &mut self.crc64nvme {
                *s = crc64nvme::update_with(k64, *s, block);
            }
        }
    }

    pub fn finish(self) -> Digests {
        Digests {
            md5: self.md5.map(|h| h.finalize()),
            sha256: self.sha256.map(|h| h.finalize().into()),
            sha1: self.sha1.map(|h| h.finalize().into()),
            crc32: self.crc32.map(|s| !s),
            crc32c: self.crc32c.map(|s| !s),
            crc64nvme: self.crc64nvme.map(|s| !s),
        }
    }
}

/// CRC32C of `data` continuing from `seed`, the CRC32C of the bytes before it (0 for none).
pub fn crc32c_continue(seed: u32, data: &[u8]) -> u32 {
    !crc32c::update_with(crc32c::detect(), !seed, data)
}

/// Which SIMD path each algorithm takes on this CPU, for start-up logs.
pub fn simd_paths() -> [(&'static str, &'static str); 6] {
    #[cfg(target_arch = "x86_64")]
    let sha_ni = is_x86_feature_detected!("sha") && is_x86_feature_detected!("sse4.1");
    #[cfg(not(target_arch = "x86_64"))]
    let sha_ni = false;
    [
        ("md5", "scalar"),
        ("sha256", if sha_ni { "sha-ni" } else { "portable" }),
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
    fn mask_selects_algorithms() {
        let d = FusedHasher::new(MD5 | CRC64NVME).finish();
        assert!(d.md5.is_some() && d.crc64nvme.is_some());
        assert!(d.sha256.is_none() && d.sha1.is_none() && d.crc32.is_none() && d.crc32c.is_none());
    }
}
