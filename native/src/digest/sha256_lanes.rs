//! Multi-buffer SHA-256: the blocks of up to 16 streams compressed together with AVX-512, one
//! stream per 32-bit lane, the words of each block transposed into vectors as md5_lanes.rs does.
//!
//! Unlike MD5, SHA-256 has a fast single-stream path (SHA-NI), and a 16-lane pass costs the
//! same however many of its lanes have data. Measured on a 2-core Xeon with AVX-512 and SHA-NI
//! (`cargo test --release -p tusk-native sha256_lanes -- --ignored --nocapture`): SHA-NI
//! ~1100 MiB/s per stream; 16 lanes ~3100 MiB/s in aggregate, 8 lanes ~1640, 7 ~1460, so the
//! kernel alone breaks even near 6 lanes. Through `FusedHasher::update_many` with MD5 alongside
//! (bench/md5-lanes.mjs --mask md5+sha256), jobs of 7 to 8 lanes came out even with SHA-NI and
//! jobs of 15 to 16 used 1.7 times less CPU. The vector pass runs only while at least
//! [`MIN_LANES`] lanes have blocks; what the longer lanes have left after that goes through the
//! single-stream function.

use super::lanes;
use super::sha256;

/// Fewest lanes with blocks for a 16-lane pass (above the break-even with SHA-NI, see above).
pub const MIN_LANES: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kernel {
    /// 16 lanes with AVX-512 while at least MIN_LANES have blocks; single-stream otherwise.
    Avx512x16,
    /// Every stream by the single-stream function (the sha2 crate: SHA-NI or portable).
    Single,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Avx512x16 => "avx512x16",
            Kernel::Single => "single",
        }
    }

    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Kernel::Avx512x16 => is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"),
                Kernel::Single => true,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Kernel::Single
        }
    }
}

pub fn detect() -> Kernel {
    if Kernel::Avx512x16.available() {
        Kernel::Avx512x16
    } else {
        Kernel::Single
    }
}

/// A stream's SHA-256 state and whole blocks.
pub type Lane<'a> = lanes::Lane<'a, 8>;

/// Compresses every lane's blocks into its state, 16 lanes per vector pass while at least
/// `MIN_LANES` of them have blocks left, the rest stream by stream.
///
/// Panics if a lane's input is not a whole number of blocks, or if `kernel` is not available.
pub fn compress_lanes(kernel: Kernel, lanes: &mut [Lane<'_>]) {
    lanes::check_whole_blocks(lanes);
    assert!(kernel.available(), "SHA-256 kernel {} is not available on this CPU", kernel.name());
    for group in lanes.chunks_mut(16) {
        let mut counts: Vec<usize> = group.iter().map(Lane::block_count).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let shared = match kernel {
            Kernel::Avx512x16 if counts.len() >= MIN_LANES => counts[MIN_LANES - 1],
            _ => 0,
        };
        #[cfg(target_arch = "x86_64")]
        if shared > 0 {
            // SAFETY: `available()` checked AVX-512F and BW; `chunks_mut` gives at most 16 lanes.
            unsafe { x86::compress_x16(group, shared) };
        }
        for lane in group.iter_mut() {
            let done = lane.block_count().min(shared);
            sha256::compress_blocks(lane.state, &lane.blocks[done * 64..]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::lanes::x86::{transpose16, Layout};
    use super::Lane;
    use std::arch::x86_64::*;

    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];

    /// Compresses the first `limit` blocks (at most) of every lane.
    ///
    /// # Safety
    /// The CPU must support AVX-512F and AVX-512BW; at most 16 lanes, each input a whole number
    /// of blocks.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn compress_x16(lanes: &mut [Lane<'_>], limit: usize) {
        let mut s = Layout::<16, 8>::new(lanes, limit);
        // SHA-256 reads its words big-endian.
        let bswap = _mm512_broadcast_i32x4(_mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
        let mut v = [_mm512_setzero_si512(); 8];
        for (v, k) in v.iter_mut().zip(&s.state) {
            // SAFETY: the unaligned load reads the 64 bytes of `k` (16 x u32).
            *v = unsafe { _mm512_loadu_si512(k.as_ptr().cast()) };
        }
        for i in 0..s.rounds {
            let (ptrs, active) = s.block_ptrs(i);
            let mut rows = [_mm512_setzero_si512(); 16];
            for (row, p) in rows.iter_mut().zip(ptrs) {
                // SAFETY: `block_ptrs` gives each lane a whole 64-byte block, its own or ZERO.
                *row = _mm512_shuffle_epi8(unsafe { _mm512_loadu_si512(p.cast()) }, bswap);
            }
            let mut w = transpose16(rows);
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = v;
            // Ternary-logic truth tables over (x, y, z): 0x96 = x ^ y ^ z, 0xca = x ? y : z
            // (Ch), 0xe8 = majority (Maj).
            for t in 0..64 {
                if t >= 16 {
                    let (w2, w15) = (w[(t - 2) % 16], w[(t - 15) % 16]);
                    let s0 = _mm512_ternarylogic_epi32::<0x96>(
                        _mm512_ror_epi32::<7>(w15),
                        _mm512_ror_epi32::<18>(w15),
                        _mm512_srli_epi32::<3>(w15),
                    );
                    let s1 = _mm512_ternarylogic_epi32::<0x96>(
                        _mm512_ror_epi32::<17>(w2),
                        _mm512_ror_epi32::<19>(w2),
                        _mm512_srli_epi32::<10>(w2),
                    );
                    w[t % 16] =
                        _mm512_add_epi32(_mm512_add_epi32(w[t % 16], s0), _mm512_add_epi32(w[(t - 7) % 16], s1));
                }
                let sigma1 = _mm512_ternarylogic_epi32::<0x96>(
                    _mm512_ror_epi32::<6>(e),
                    _mm512_ror_epi32::<11>(e),
                    _mm512_ror_epi32::<25>(e),
                );
                let ch = _mm512_ternarylogic_epi32::<0xca>(e, f, g);
                let hkw = _mm512_add_epi32(_mm512_add_epi32(h, _mm512_set1_epi32(K[t] as i32)), w[t % 16]);
                let t1 = _mm512_add_epi32(hkw, _mm512_add_epi32(sigma1, ch));
                let sigma0 = _mm512_ternarylogic_epi32::<0x96>(
                    _mm512_ror_epi32::<2>(a),
                    _mm512_ror_epi32::<13>(a),
                    _mm512_ror_epi32::<22>(a),
                );
                let maj = _mm512_ternarylogic_epi32::<0xe8>(a, b, c);
                (h, g, f, e) = (g, f, e, _mm512_add_epi32(d, t1));
                (d, c, b, a) = (c, b, a, _mm512_add_epi32(t1, _mm512_add_epi32(sigma0, maj)));
            }
            let active = active as __mmask16;
            for (v, x) in v.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                *v = _mm512_mask_add_epi32(*v, active, *v, x);
            }
        }
        for (k, v) in s.state.iter_mut().zip(v) {
            // SAFETY: the unaligned store writes the 64 bytes of `k` (16 x u32).
            unsafe { _mm512_storeu_si512(k.as_mut_ptr().cast(), v) };
        }
        s.store(lanes);
    }
}

#[cfg(test)]
mod tests {
    use super::super::lanes::testing::{check_matches_one_by_one, print_throughput, Rng};
    use super::*;

    fn kernels() -> Vec<Kernel> {
        let found: Vec<Kernel> = [Kernel::Avx512x16, Kernel::Single].into_iter().filter(|k| k.available()).collect();
        println!("SHA-256 kernels under test: {found:?}");
        found
    }

    #[test]
    fn lanes_match_single_stream_compress() {
        let mut rng = Rng(0x5a5a_1234);
        for kernel in kernels() {
            // mostly equal lengths (the vector pass), some short and some long tails
            check_matches_one_by_one(
                &mut rng,
                300,
                &[0, 1, 3, 16, 16, 16, 16, 16, 17, 299],
                kernel,
                compress_lanes,
                sha256::compress_blocks,
            );
        }
    }

    #[test]
    #[ignore = "throughput: cargo test --release -p tusk-native sha256_lanes -- --ignored --nocapture"]
    fn throughput_per_core() {
        for kernel in kernels() {
            print_throughput(kernel.name(), kernel, compress_lanes, 16 << 20, &[1, 4, 6, 7, 8, 16], 9);
        }
    }
}
