//! AVX-512 + GFNI engine: a constant multiply is GF(2)-linear, i.e. four 8×8 bit matrices
//! applied with `vgf2p8affineqb` to the low and high bytes of 32 elements (one 64-byte block).

use super::Op;
use std::arch::x86_64::*;

/// A block `[lo | hi]` times m is `A·[lo | hi] ^ B·[hi | lo]` with A = [ll | hh], B = [hl | lh].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn product(v: __m512i, a: __m512i, b: __m512i) -> __m512i {
    let swapped = _mm512_shuffle_i64x2::<0x4E>(v, v);
    _mm512_xor_si512(_mm512_gf2p8affine_epi64_epi8::<0>(v, a), _mm512_gf2p8affine_epi64_epi8::<0>(swapped, b))
}

#[target_feature(enable = "avx512f,avx512bw,gfni")]
pub(super) unsafe fn mul_in_place(x: &mut [u8], mats: &[u64; 4]) {
    let [ll, hh, hl, lh] = *mats;
    let a = _mm512_setr_epi64(ll as i64, ll as i64, ll as i64, ll as i64, hh as i64, hh as i64, hh as i64, hh as i64);
    let b = _mm512_setr_epi64(hl as i64, hl as i64, hl as i64, hl as i64, lh as i64, lh as i64, lh as i64, lh as i64);
    let p = x.as_mut_ptr() as *mut __m512i;
    for i in 0..x.len() / 64 {
        _mm512_storeu_si512(p.add(i), product(_mm512_loadu_si512(p.add(i)), a, b));
    }
}

#[target_feature(enable = "avx512f,avx512bw,gfni")]
pub(super) unsafe fn run(op: Op, x: &mut [u8], y: &mut [u8], mats: &[u64; 4]) {
    let [ll, hh, hl, lh] = *mats;
    let a = _mm512_setr_epi64(ll as i64, ll as i64, ll as i64, ll as i64, hh as i64, hh as i64, hh as i64, hh as i64);
    let b = _mm512_setr_epi64(hl as i64, hl as i64, hl as i64, hl as i64, lh as i64, lh as i64, lh as i64, lh as i64);
    let blocks = x.len() / 64;
    let xp = x.as_mut_ptr() as *mut __m512i;
    let yp = y.as_mut_ptr() as *mut __m512i;
    match op {
        Op::MulAdd => {
            for i in 0..blocks {
                let xv = _mm512_loadu_si512(xp.add(i));
                let yv = _mm512_loadu_si512(yp.add(i));
                _mm512_storeu_si512(xp.add(i), _mm512_xor_si512(xv, product(yv, a, b)));
            }
        }
        Op::Fft => {
            for i in 0..blocks {
                let xv = _mm512_loadu_si512(xp.add(i));
                let yv = _mm512_loadu_si512(yp.add(i));
                let xn = _mm512_xor_si512(xv, product(yv, a, b));
                _mm512_storeu_si512(xp.add(i), xn);
                _mm512_storeu_si512(yp.add(i), _mm512_xor_si512(yv, xn));
            }
        }
        Op::Ifft => {
            for i in 0..blocks {
                let xv = _mm512_loadu_si512(xp.add(i));
                let yn = _mm512_xor_si512(_mm512_loadu_si512(yp.add(i)), xv);
                _mm512_storeu_si512(yp.add(i), yn);
                _mm512_storeu_si512(xp.add(i), _mm512_xor_si512(xv, product(yn, a, b)));
            }
        }
    }
}
