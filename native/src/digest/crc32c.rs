//! CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, init and xorout all ones).
//! x86-64 with SSE4.2 + PCLMULQDQ: three interleaved `crc32` instruction streams (the
//! instruction has a 3-cycle latency and 1-cycle throughput) recombined with one carry-less
//! multiply per round. SSE4.2 alone: one stream. Otherwise: slicing-by-8 tables.
//!
//! Functions here work on the *internal* state (before the final inversion): `update_with(k, !0, data)`
//! then `!state` is the CRC of `data`.

use super::tables::{make_tables32, slice8_32};

const POLY: u32 = 0x82F6_3B78;
static TABLES: [[u32; 256]; 8] = make_tables32(POLY);

pub fn update_portable(crc: u32, data: &[u8]) -> u32 {
    slice8_32(&TABLES, crc, data)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kernel {
    Sse42ThreeWay,
    Sse42,
    Portable,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Sse42ThreeWay => "sse4.2+pclmulqdq-3way",
            Kernel::Sse42 => "sse4.2",
            Kernel::Portable => "slicing-by-8",
        }
    }

    /// Whether this CPU can run the kernel (the features its `x86` function is built for).
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse42ThreeWay => is_x86_feature_detected!("sse4.2") && is_x86_feature_detected!("pclmulqdq"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse42 => is_x86_feature_detected!("sse4.2"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Sse42ThreeWay | Kernel::Sse42 => false,
            Kernel::Portable => true,
        }
    }
}

pub fn detect() -> Kernel {
    [Kernel::Sse42ThreeWay, Kernel::Sse42].into_iter().find(|k| k.available()).unwrap_or(Kernel::Portable)
}

pub fn update_with(kernel: Kernel, crc: u32, data: &[u8]) -> u32 {
    match kernel {
        // A kernel this CPU lacks (only `detect()` should give one) falls back to the tables.
        // SAFETY: `kernel.available()` found sse4.2 and pclmulqdq, the features update_3way is
        // compiled for.
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse42ThreeWay if kernel.available() => unsafe { x86::update_3way(crc, data) },
        // SAFETY: `kernel.available()` found sse4.2, the feature update_1way is compiled for.
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse42 if kernel.available() => unsafe { x86::update_1way(crc, data) },
        _ => update_portable(crc, data),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::tables::xpow32;
    use super::POLY;
    use std::arch::x86_64::*;

    /// Lane lengths of one 3-way round: long rounds for bulk, short ones for the tail.
    const LONG: usize = 8192;
    const SHORT: usize = 256;

    // Shifting a state s over n zero bytes is s * x^(8n) mod P; the clmul of two reflected
    // 32-bit values carries an extra factor x and the crc32 instruction multiplies by x^32,
    // hence the constant x^(8n - 33).
    const K_LONG_1: u64 = xpow32(POLY, 8 * LONG as u32 - 33) as u64;
    const K_LONG_2: u64 = xpow32(POLY, 16 * LONG as u32 - 33) as u64;
    const K_SHORT_1: u64 = xpow32(POLY, 8 * SHORT as u32 - 33) as u64;
    const K_SHORT_2: u64 = xpow32(POLY, 16 * SHORT as u32 - 33) as u64;

    #[target_feature(enable = "sse4.2")]
    pub fn update_1way(crc: u32, data: &[u8]) -> u32 {
        let mut c = crc as u64;
        let mut words = data.chunks_exact(8);
        for w in &mut words {
            c = _mm_crc32_u64(c, u64::from_le_bytes(w.try_into().unwrap()));
        }
        let mut c = c as u32;
        for &b in words.remainder() {
            c = _mm_crc32_u8(c, b);
        }
        c
    }

    /// # Safety
    /// `block` is exactly `3 * L` bytes, and `L` a multiple of 8.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    unsafe fn round<const L: usize>(crc: u32, block: &[u8], k1: u64, k2: u64) -> u32 {
        debug_assert!(block.len() == 3 * L);
        let p = block.as_ptr();
        let (mut a, mut b, mut c) = (crc as u64, 0u64, 0u64);
        let mut i = 0;
        while i < L {
            // SAFETY: i + 8 <= L (L is a multiple of 8), so the three unaligned 8-byte reads at
            // i, L + i and 2L + i end within the 3L bytes of `block` (the contract).
            let (x, y, z) = unsafe {
                (
                    (p.add(i) as *const u64).read_unaligned(),
                    (p.add(L + i) as *const u64).read_unaligned(),
                    (p.add(2 * L + i) as *const u64).read_unaligned(),
                )
            };
            a = _mm_crc32_u64(a, x);
            b = _mm_crc32_u64(b, y);
            c = _mm_crc32_u64(c, z);
            i += 8;
        }
        let ma = _mm_clmulepi64_si128(_mm_cvtsi64_si128(a as i64), _mm_cvtsi64_si128(k2 as i64), 0x00);
        let mb = _mm_clmulepi64_si128(_mm_cvtsi64_si128(b as i64), _mm_cvtsi64_si128(k1 as i64), 0x00);
        let folded = _mm_cvtsi128_si64(_mm_xor_si128(ma, mb)) as u64;
        (_mm_crc32_u64(0, folded) ^ c) as u32
    }

    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub fn update_3way(mut crc: u32, mut data: &[u8]) -> u32 {
        while data.len() >= 3 * LONG {
            // SAFETY: the block is exactly 3 * LONG bytes, and LONG a multiple of 8.
            crc = unsafe { round::<LONG>(crc, &data[..3 * LONG], K_LONG_1, K_LONG_2) };
            data = &data[3 * LONG..];
        }
        while data.len() >= 3 * SHORT {
            // SAFETY: the block is exactly 3 * SHORT bytes, and SHORT a multiple of 8.
            crc = unsafe { round::<SHORT>(crc, &data[..3 * SHORT], K_SHORT_1, K_SHORT_2) };
            data = &data[3 * SHORT..];
        }
        update_1way(crc, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crc(kernel: Kernel, data: &[u8]) -> u32 {
        !update_with(kernel, !0, data)
    }

    #[test]
    fn check_value() {
        for k in [Kernel::Portable, detect()] {
            assert_eq!(crc(k, b"123456789"), 0xE306_9283);
        }
    }

    #[test]
    fn kernels_agree() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in [0, 1, 7, 8, 9, 255, 767, 768, 769, 24_575, 24_576, 24_577, 100_003, 200_000] {
            for off in [0, 1, 3] {
                let d = &data[off.min(len)..len];
                assert_eq!(crc(detect(), d), crc(Kernel::Portable, d), "len {len} off {off}");
            }
        }
    }
}
