//! Multi-buffer MD5: the 64-byte blocks of several independent streams compressed together, one
//! stream per 32-bit SIMD lane (AVX-512: 16 lanes, AVX2: 8), as MinIO's md5-simd does. MD5 is a
//! serial chain of 64 dependent steps per block, so one stream leaves most of a core idle; a
//! vector step costs about the same latency as a scalar one and advances every lane at once.
//!
//! Each lane keeps its own state, input and block count. A lane with fewer blocks than the
//! longest one drops out once it is done: it reads a zero block from then on and a mask keeps
//! its state from changing. The partial-block buffering stays in [`Md5`](super::md5::Md5): the
//! lanes only ever see whole blocks (see `Md5::update_deferred`).

use super::md5;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kernel {
    Avx512x16,
    Avx2x8,
    Scalar,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Avx512x16 => "avx512x16",
            Kernel::Avx2x8 => "avx2x8",
            Kernel::Scalar => "scalar",
        }
    }

    pub fn lanes(self) -> usize {
        match self {
            Kernel::Avx512x16 => 16,
            Kernel::Avx2x8 => 8,
            Kernel::Scalar => 1,
        }
    }

    /// Whether this CPU can run the kernel.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Kernel::Avx512x16 => is_x86_feature_detected!("avx512f"),
                Kernel::Avx2x8 => is_x86_feature_detected!("avx2"),
                Kernel::Scalar => true,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Kernel::Scalar
        }
    }
}

pub fn detect() -> Kernel {
    [Kernel::Avx512x16, Kernel::Avx2x8].into_iter().find(|k| k.available()).unwrap_or(Kernel::Scalar)
}

/// A stream's MD5 state and whole blocks.
pub type Lane<'a> = super::lanes::Lane<'a, 4>;

/// Compresses every lane's blocks into its state, `kernel.lanes()` lanes per SIMD pass; a pass
/// left with one lane that has blocks goes through the scalar compress.
///
/// Panics if a lane's input is not a whole number of blocks, or if `kernel` is not available.
pub fn compress_lanes(kernel: Kernel, lanes: &mut [Lane<'_>]) {
    super::lanes::check_whole_blocks(lanes);
    assert!(kernel.available(), "MD5 kernel {} is not available on this CPU", kernel.name());
    for group in lanes.chunks_mut(kernel.lanes()) {
        if group.iter().filter(|l| !l.blocks.is_empty()).count() < 2 {
            scalar(group);
            continue;
        }
        match kernel {
            // SAFETY: `available()` checked the CPU features each kernel is compiled for, and
            // `chunks_mut` gives each at most as many lanes as it has.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512x16 => unsafe { x86::compress_x16(group) },
            // SAFETY: as above, with AVX2 and at most 8 lanes.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2x8 => unsafe { x86::compress_x8(group) },
            _ => scalar(group),
        }
    }
}

fn scalar(lanes: &mut [Lane<'_>]) {
    for lane in lanes {
        md5::compress_blocks(lane.state, lane.blocks);
    }
}

/// The 64 MD5 steps in order: `$step!(function, a, b, c, d, message word, step, rotation)`
/// computes `a = b + ((a + f(b, c, d) + m[word] + K[step]) <<< rotation)`.
#[rustfmt::skip]
macro_rules! md5_steps {
    ($step:ident, $a:ident, $b:ident, $c:ident, $d:ident) => {
        $step!(F, $a, $b, $c, $d, 0, 0, 7); $step!(F, $d, $a, $b, $c, 1, 1, 12);
        $step!(F, $c, $d, $a, $b, 2, 2, 17); $step!(F, $b, $c, $d, $a, 3, 3, 22);
        $step!(F, $a, $b, $c, $d, 4, 4, 7); $step!(F, $d, $a, $b, $c, 5, 5, 12);
        $step!(F, $c, $d, $a, $b, 6, 6, 17); $step!(F, $b, $c, $d, $a, 7, 7, 22);
        $step!(F, $a, $b, $c, $d, 8, 8, 7); $step!(F, $d, $a, $b, $c, 9, 9, 12);
        $step!(F, $c, $d, $a, $b, 10, 10, 17); $step!(F, $b, $c, $d, $a, 11, 11, 22);
        $step!(F, $a, $b, $c, $d, 12, 12, 7); $step!(F, $d, $a, $b, $c, 13, 13, 12);
        $step!(F, $c, $d, $a, $b, 14, 14, 17); $step!(F, $b, $c, $d, $a, 15, 15, 22);
        $step!(G, $a, $b, $c, $d, 1, 16, 5); $step!(G, $d, $a, $b, $c, 6, 17, 9);
        $step!(G, $c, $d, $a, $b, 11, 18, 14); $step!(G, $b, $c, $d, $a, 0, 19, 20);
        $step!(G, $a, $b, $c, $d, 5, 20, 5); $step!(G, $d, $a, $b, $c, 10, 21, 9);
        $step!(G, $c, $d, $a, $b, 15, 22, 14); $step!(G, $b, $c, $d, $a, 4, 23, 20);
        $step!(G, $a, $b, $c, $d, 9, 24, 5); $step!(G, $d, $a, $b, $c, 14, 25, 9);
        $step!(G, $c, $d, $a, $b, 3, 26, 14); $step!(G, $b, $c, $d, $a, 8, 27, 20);
        $step!(G, $a, $b, $c, $d, 13, 28, 5); $step!(G, $d, $a, $b, $c, 2, 29, 9);
        $step!(G, $c, $d, $a, $b, 7, 30, 14); $step!(G, $b, $c, $d, $a, 12, 31, 20);
        $step!(H, $a, $b, $c, $d, 5, 32, 4); $step!(H, $d, $a, $b, $c, 8, 33, 11);
        $step!(H, $c, $d, $a, $b, 11, 34, 16); $step!(H, $b, $c, $d, $a, 14, 35, 23);
        $step!(H, $a, $b, $c, $d, 1, 36, 4); $step!(H, $d, $a, $b, $c, 4, 37, 11);
        $step!(H, $c, $d, $a, $b, 7, 38, 16); $step!(H, $b, $c, $d, $a, 10, 39, 23);
        $step!(H, $a, $b, $c, $d, 13, 40, 4); $step!(H, $d, $a, $b, $c, 0, 41, 11);
        $step!(H, $c, $d, $a, $b, 3, 42, 16); $step!(H, $b, $c, $d, $a, 6, 43, 23);
        $step!(H, $a, $b, $c, $d, 9, 44, 4); $step!(H, $d, $a, $b, $c, 12, 45, 11);
        $step!(H, $c, $d, $a, $b, 15, 46, 16); $step!(H, $b, $c, $d, $a, 2, 47, 23);
        $step!(I, $a, $b, $c, $d, 0, 48, 6); $step!(I, $d, $a, $b, $c, 7, 49, 10);
        $step!(I, $c, $d, $a, $b, 14, 50, 15); $step!(I, $b, $c, $d, $a, 5, 51, 21);
        $step!(I, $a, $b, $c, $d, 12, 52, 6); $step!(I, $d, $a, $b, $c, 3, 53, 10);
        $step!(I, $c, $d, $a, $b, 10, 54, 15); $step!(I, $b, $c, $d, $a, 1, 55, 21);
        $step!(I, $a, $b, $c, $d, 8, 56, 6); $step!(I, $d, $a, $b, $c, 15, 57, 10);
        $step!(I, $c, $d, $a, $b, 6, 58, 15); $step!(I, $b, $c, $d, $a, 13, 59, 21);
        $step!(I, $a, $b, $c, $d, 4, 60, 6); $step!(I, $d, $a, $b, $c, 11, 61, 10);
        $step!(I, $c, $d, $a, $b, 2, 62, 15); $step!(I, $b, $c, $d, $a, 9, 63, 21);
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::lanes::x86::{transpose16, transpose8, Layout};
    use super::md5::K;
    use super::Lane;
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must support AVX-512F; at most 16 lanes, each input a whole number of blocks.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn compress_x16(lanes: &mut [Lane<'_>]) {
        let mut s = Layout::<16, 4>::new(lanes, usize::MAX);
        // SAFETY: the unaligned load reads the 64 bytes of `k`.
        let load = |k: &[u32; 16]| unsafe { _mm512_loadu_si512(k.as_ptr().cast()) };
        let (mut sa, mut sb, mut sc, mut sd) =
            (load(&s.state[0]), load(&s.state[1]), load(&s.state[2]), load(&s.state[3]));
        for i in 0..s.rounds {
            let (ptrs, active) = s.block_ptrs(i);
            let mut rows = [_mm512_setzero_si512(); 16];
            for (row, p) in rows.iter_mut().zip(ptrs) {
                // SAFETY: `block_ptrs` gives each lane a whole 64-byte block, its own or ZERO.
                *row = unsafe { _mm512_loadu_si512(p.cast()) };
            }
            let w = transpose16(rows);
            let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
            // The boolean functions are one ternary-logic instruction each; imm8 is the truth table
            // over (b, c, d): F = b ? c : d, G = d ? b : c, H = b ^ c ^ d, I = c ^ (b | !d).
            macro_rules! f {
                (F, $b:expr, $c:expr, $d:expr) => {
                    _mm512_ternarylogic_epi32::<0xca>($b, $c, $d)
                };
                (G, $b:expr, $c:expr, $d:expr) => {
                    _mm512_ternarylogic_epi32::<0xe4>($b, $c, $d)
                };
                (H, $b:expr, $c:expr, $d:expr) => {
                    _mm512_ternarylogic_epi32::<0x96>($b, $c, $d)
                };
                (I, $b:expr, $c:expr, $d:expr) => {
                    _mm512_ternarylogic_epi32::<0x39>($b, $c, $d)
                };
            }
            macro_rules! step {
                ($f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:literal, $k:literal, $s:literal) => {
                    let t = _mm512_add_epi32($a, _mm512_add_epi32(w[$m], _mm512_set1_epi32(K[$k] as i32)));
                    $a = _mm512_add_epi32($b, _mm512_rol_epi32::<$s>(_mm512_add_epi32(t, f!($f, $b, $c, $d))));
                };
            }
            md5_steps!(step, a, b, c, d);
            let active = active as __mmask16;
            sa = _mm512_mask_add_epi32(sa, active, sa, a);
            sb = _mm512_mask_add_epi32(sb, active, sb, b);
            sc = _mm512_mask_add_epi32(sc, active, sc, c);
            sd = _mm512_mask_add_epi32(sd, active, sd, d);
        }
        for (k, v) in s.state.iter_mut().zip([sa, sb, sc, sd]) {
            // SAFETY: the unaligned store writes the 64 bytes of `k` (16 x u32).
            unsafe { _mm512_storeu_si512(k.as_mut_ptr().cast(), v) };
        }
        s.store(lanes);
    }

    /// # Safety
    /// The CPU must support AVX2; at most 8 lanes, each input a whole number of blocks.
    #[target_feature(enable = "avx2")]
    pub unsafe fn compress_x8(lanes: &mut [Lane<'_>]) {
        let mut s = Layout::<8, 4>::new(lanes, usize::MAX);
        // SAFETY: the unaligned load reads the 32 bytes of `k`.
        let load = |k: &[u32; 8]| unsafe { _mm256_loadu_si256(k.as_ptr().cast()) };
        let (mut sa, mut sb, mut sc, mut sd) =
            (load(&s.state[0]), load(&s.state[1]), load(&s.state[2]), load(&s.state[3]));
        let ones = _mm256_set1_epi32(-1);
        for i in 0..s.rounds {
            let (ptrs, active) = s.block_ptrs(i);
            let mut lo = [_mm256_setzero_si256(); 8];
            let mut hi = [_mm256_setzero_si256(); 8];
            for l in 0..8 {
                // SAFETY: `block_ptrs` gives each lane a whole 64-byte block (its own or ZERO), and
                // the two unaligned loads read its first and second 32 bytes.
                (lo[l], hi[l]) =
                    unsafe { (_mm256_loadu_si256(ptrs[l].cast()), _mm256_loadu_si256(ptrs[l].add(32).cast())) };
            }
            let (lo, hi) = (transpose8(lo), transpose8(hi));
            let w: [__m256i; 16] = std::array::from_fn(|j| if j < 8 { lo[j] } else { hi[j - 8] });
            let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
            // As the scalar code: G's two terms never share a bit, so `c & !d` joins the sum
            // before `b` is known, and `b & d` is added last.
            macro_rules! pre {
                (G, $a:expr, $b:expr, $c:expr, $d:expr) => {
                    _mm256_add_epi32($a, _mm256_andnot_si256($d, $c))
                };
                ($f:ident, $a:expr, $b:expr, $c:expr, $d:expr) => {
                    $a
                };
            }
            macro_rules! f {
                (F, $b:expr, $c:expr, $d:expr) => {
                    _mm256_xor_si256($d, _mm256_and_si256($b, _mm256_xor_si256($c, $d)))
                };
                (G, $b:expr, $c:expr, $d:expr) => {
                    _mm256_and_si256($b, $d)
                };
                (H, $b:expr, $c:expr, $d:expr) => {
                    _mm256_xor_si256($b, _mm256_xor_si256($c, $d))
                };
                (I, $b:expr, $c:expr, $d:expr) => {
                    _mm256_xor_si256($c, _mm256_or_si256($b, _mm256_xor_si256($d, ones)))
                };
            }
            macro_rules! step {
                ($f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:literal, $k:literal, $s:literal) => {
                    let t = _mm256_add_epi32($a, _mm256_add_epi32(w[$m], _mm256_set1_epi32(K[$k] as i32)));
                    let t = _mm256_add_epi32(pre!($f, t, $b, $c, $d), f!($f, $b, $c, $d));
                    let t = _mm256_or_si256(_mm256_slli_epi32::<$s>(t), _mm256_srli_epi32::<{ 32 - $s }>(t));
                    $a = _mm256_add_epi32($b, t);
                };
            }
            md5_steps!(step, a, b, c, d);
            // All ones in the lanes that had no block: they keep their state.
            let idle = _mm256_cmpeq_epi32(
                _mm256_and_si256(_mm256_set1_epi32(active as i32), _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128)),
                _mm256_setzero_si256(),
            );
            sa = _mm256_add_epi32(sa, _mm256_andnot_si256(idle, a));
            sb = _mm256_add_epi32(sb, _mm256_andnot_si256(idle, b));
            sc = _mm256_add_epi32(sc, _mm256_andnot_si256(idle, c));
            sd = _mm256_add_epi32(sd, _mm256_andnot_si256(idle, d));
        }
        for (k, v) in s.state.iter_mut().zip([sa, sb, sc, sd]) {
            // SAFETY: the unaligned store writes the 32 bytes of `k` (8 x u32).
            unsafe { _mm256_storeu_si256(k.as_mut_ptr().cast(), v) };
        }
        s.store(lanes);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::lanes::testing::{check_matches_one_by_one, print_throughput, Rng};
    use super::*;

    pub(crate) fn available_kernels() -> Vec<Kernel> {
        let all = [Kernel::Avx512x16, Kernel::Avx2x8, Kernel::Scalar];
        let found: Vec<Kernel> = all.into_iter().filter(|k| k.available()).collect();
        println!("MD5 kernels under test: {:?}", found);
        found
    }

    #[test]
    fn lanes_match_scalar_compress() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for kernel in available_kernels() {
            // several SIMD passes, a last pass that is not full, single lanes
            check_matches_one_by_one(
                &mut rng,
                400,
                &[0, 0, 1, 2, 3, 15, 16, 17, 64, 399],
                kernel,
                compress_lanes,
                md5::compress_blocks,
            );
        }
    }

    #[test]
    #[should_panic(expected = "whole 64-byte blocks")]
    fn rejects_partial_blocks() {
        let mut s = [0u32; 4];
        compress_lanes(Kernel::Scalar, &mut [Lane { state: &mut s, blocks: &[0; 65] }]);
    }

    #[test]
    #[ignore = "throughput: cargo test --release -p tusk-native md5_lanes -- --ignored --nocapture"]
    fn throughput_per_core() {
        for kernel in available_kernels() {
            print_throughput(kernel.name(), kernel, compress_lanes, 32 << 20, &[1, 2, 4, 8, 16], 7);
        }
    }
}
