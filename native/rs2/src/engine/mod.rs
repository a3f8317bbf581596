//! Shard arithmetic: multiply-add by a constant and the FFT/IFFT butterflies, on whole regions of
//! 64-byte blocks (32 elements: low bytes in `block[0..32]`, high bytes in `block[32..64]`,
//! walrus.md §5.2). Three engines with identical results: AVX-512 + GFNI (a GF(2^16) constant
//! multiply is GF(2)-linear, so it is four 8×8 bit matrices), AVX2 nibble tables, and portable
//! byte tables. The engine is picked once at run time.

use crate::gf::{tables, MODULUS};
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    Portable,
    Avx2,
    Avx512Gfni,
}

impl EngineKind {
    /// The fastest engine this CPU supports (`TUSK_RS2_ENGINE=portable|avx2|avx512` narrows it).
    pub fn detect() -> EngineKind {
        static KIND: OnceLock<EngineKind> = OnceLock::new();
        *KIND.get_or_init(|| {
            let best = best_supported();
            match std::env::var("TUSK_RS2_ENGINE").as_deref() {
                Ok("portable") => EngineKind::Portable,
                Ok("avx2") if best != EngineKind::Portable => EngineKind::Avx2,
                _ => best,
            }
        })
    }

    pub fn is_supported(self) -> bool {
        match self {
            EngineKind::Portable => true,
            EngineKind::Avx2 => best_supported() != EngineKind::Portable,
            EngineKind::Avx512Gfni => best_supported() == EngineKind::Avx512Gfni,
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn best_supported() -> EngineKind {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("gfni") {
        EngineKind::Avx512Gfni
    } else if is_x86_feature_detected!("avx2") {
        EngineKind::Avx2
    } else {
        EngineKind::Portable
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn best_supported() -> EngineKind {
    EngineKind::Portable
}

/// A constant factor prepared for every engine: the basis images (portable, AVX2) and the four
/// GFNI bit matrices. Preparing costs a few hundred instructions, so FFT skew factors are
/// prepared once per code (see `rs::RsCode`).
#[derive(Clone, Copy, Debug)]
pub struct Multiplier {
    /// The factor's log; `MODULUS` marks a zero factor in butterflies.
    pub log: u16,
    img: [u16; 16],
    /// `[ll, hh, hl, lh]`: low/high input byte → low/high output byte.
    gfni: [u64; 4],
}

impl Multiplier {
    pub fn new(log: u16) -> Multiplier {
        let img = tables().basis_images(log);
        let m = |in_hi, out_hi| gfni_matrix(&img, in_hi, out_hi);
        Multiplier { log, img, gfni: [m(false, false), m(true, true), m(true, false), m(false, true)] }
    }

    pub fn is_zero(&self) -> bool {
        self.log == MODULUS
    }
}

/// 8×8 bit-matrix transpose of a u64 whose byte j is row j.
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// The `vgf2p8affineqb` matrix mapping one input byte of an element to one output byte of its
/// product: byte 7−i holds, as bit j, bit i of the output byte for input bit j.
fn gfni_matrix(img: &[u16; 16], in_hi: bool, out_hi: bool) -> u64 {
    let (in_off, out_off) = (if in_hi { 8 } else { 0 }, if out_hi { 8 } else { 0 });
    let mut rows = 0u64;
    for j in 0..8 {
        rows |= ((img[in_off + j] >> out_off) as u8 as u64) << (8 * j);
    }
    transpose8(rows).swap_bytes()
}

#[derive(Clone, Copy)]
pub struct Engine {
    kind: EngineKind,
}

/// What a butterfly does besides its multiply-add.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `x ^= y ⊗ m`
    MulAdd,
    /// `x ^= y ⊗ m; y ^= x`
    Fft,
    /// `y ^= x; x ^= y ⊗ m`
    Ifft,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineKind::detect())
    }
}

impl Engine {
    pub fn new(kind: EngineKind) -> Engine {
        assert!(kind.is_supported(), "engine {kind:?} is not supported on this CPU");
        Engine { kind }
    }

    /// `x ^= y ⊗ m`; a zero factor is a no-op.
    pub fn mul_add(&self, x: &mut [u8], y: &[u8], m: &Multiplier) {
        if !m.is_zero() {
            // SAFETY: `y` is only read in MulAdd mode.
            let y = unsafe { std::slice::from_raw_parts_mut(y.as_ptr() as *mut u8, y.len()) };
            self.run(Op::MulAdd, x, y, m);
        }
    }

    /// FFT butterfly over regions: `x ^= y ⊗ m` (skipped for a zero factor), then `y ^= x`.
    pub fn fft_butterfly(&self, x: &mut [u8], y: &mut [u8], m: &Multiplier) {
        if m.is_zero() {
            xor(y, x);
        } else {
            self.run(Op::Fft, x, y, m);
        }
    }

    /// IFFT butterfly over regions: `y ^= x`, then `x ^= y ⊗ m` (skipped for a zero factor).
    pub fn ifft_butterfly(&self, x: &mut [u8], y: &mut [u8], m: &Multiplier) {
        if m.is_zero() {
            xor(y, x);
        } else {
            self.run(Op::Ifft, x, y, m);
        }
    }

    /// `x = x ⊗ g^log_m` where `log_m` is a true logarithm (here `MODULUS` multiplies by one).
    pub fn mul(&self, x: &mut [u8], log_m: u16) {
        debug_assert_eq!(x.len() % 64, 0);
        let m = Multiplier::new(log_m);
        match self.kind {
            EngineKind::Portable => portable::mul_in_place(x, &m.img),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the kind was checked against the CPU's features in `Engine::new`.
            EngineKind::Avx2 => unsafe { avx2::mul_in_place(x, &m.img) },
            #[cfg(target_arch = "x86_64")]
            EngineKind::Avx512Gfni => unsafe { gfni::mul_in_place(x, &m.gfni) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!(),
        }
    }

    fn run(&self, op: Op, x: &mut [u8], y: &mut [u8], m: &Multiplier) {
        debug_assert_eq!(x.len(), y.len());
        debug_assert_eq!(x.len() % 64, 0);
        match self.kind {
            EngineKind::Portable => portable::run(op, x, y, &m.img),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the kind was checked against the CPU's features in `Engine::new`.
            EngineKind::Avx2 => unsafe { avx2::run(op, x, y, &m.img) },
            #[cfg(target_arch = "x86_64")]
            EngineKind::Avx512Gfni => unsafe { gfni::run(op, x, y, &m.gfni) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!(),
        }
    }
}

/// `x ^= y` (the compiler vectorises this loop).
pub fn xor(x: &mut [u8], y: &[u8]) {
    debug_assert_eq!(x.len(), y.len());
    for (a, b) in x.chunks_exact_mut(8).zip(y.chunks_exact(8)) {
        let v = u64::from_ne_bytes(a.try_into().unwrap()) ^ u64::from_ne_bytes(b.try_into().unwrap());
        a.copy_from_slice(&v.to_ne_bytes());
    }
}

mod portable;

#[cfg(target_arch = "x86_64")]
mod avx2;

#[cfg(target_arch = "x86_64")]
mod gfni;

#[cfg(test)]
mod tests {
    use super::*;

    fn pseudo_random(len: usize, seed: u64) -> Vec<u8> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (s >> 33) as u8
            })
            .collect()
    }

    /// Every SIMD engine agrees with element-wise table multiplication.
    #[test]
    fn engines_match_scalar_multiplication() {
        let t = tables();
        for kind in [EngineKind::Portable, EngineKind::Avx2, EngineKind::Avx512Gfni] {
            if !kind.is_supported() {
                continue;
            }
            let eng = Engine::new(kind);
            for (seed, log_m) in [(1u64, 0u16), (2, 1), (3, 21845), (4, 65534), (5, 12345)] {
                let mul = Multiplier::new(log_m);
                let x0 = pseudo_random(256, seed);
                let y0 = pseudo_random(256, seed + 100);
                let expect_prod: Vec<u16> = (0..128)
                    .map(|e| {
                        let (b, i) = (e / 32, e % 32);
                        let v = y0[64 * b + i] as u16 | (y0[64 * b + 32 + i] as u16) << 8;
                        t.mul(v, log_m)
                    })
                    .collect();
                let mut x = x0.clone();
                eng.mul_add(&mut x, &y0, &mul);
                for (e, &prod) in expect_prod.iter().enumerate() {
                    let (b, i) = (e / 32, e % 32);
                    let got = x[64 * b + i] as u16 | (x[64 * b + 32 + i] as u16) << 8;
                    let orig = x0[64 * b + i] as u16 | (x0[64 * b + 32 + i] as u16) << 8;
                    assert_eq!(got, orig ^ prod, "{kind:?} log {log_m} elem {e}");
                }
                let (mut fx, mut fy) = (x0.clone(), y0.clone());
                eng.fft_butterfly(&mut fx, &mut fy, &mul);
                let mut want_y = y0.clone();
                xor(&mut want_y, &x);
                assert_eq!((&fx, &fy), (&x, &want_y), "{kind:?} fft");
                let (mut ix, mut iy) = (fx.clone(), fy.clone());
                eng.ifft_butterfly(&mut ix, &mut iy, &mul);
                assert_eq!((&ix, &iy), (&x0, &y0), "{kind:?} ifft inverts fft");
                let mut m = y0.clone();
                eng.mul(&mut m, log_m);
                let mut want = vec![0u8; y0.len()];
                eng.mul_add(&mut want, &y0, &mul);
                assert_eq!(m, want, "{kind:?} mul");
            }
        }
    }
}
