//! AVX2 engine: `pshufb` lookups of the products of each 4-bit nibble of an element.

use super::Op;
use std::arch::x86_64::*;

/// For each nibble position t (0..4) of the input element, the low and high bytes of
/// `(v << 4t) ⊗ m` for v = 0..16, as `pshufb` tables.
#[target_feature(enable = "avx2")]
unsafe fn nibble_tables(img: &[u16; 16]) -> [__m256i; 8] {
    let mut out = [_mm256_setzero_si256(); 8];
    for t in 0..4 {
        let mut lo = [0u8; 16];
        let mut hi = [0u8; 16];
        for v in 1..16usize {
            let bit = v.trailing_zeros() as usize;
            let p = (lo[v & (v - 1)] as u16 | (hi[v & (v - 1)] as u16) << 8) ^ img[4 * t + bit];
            lo[v] = p as u8;
            hi[v] = (p >> 8) as u8;
        }
        out[2 * t] = _mm256_broadcastsi128_si256(_mm_loadu_si128(lo.as_ptr() as *const __m128i));
        out[2 * t + 1] = _mm256_broadcastsi128_si256(_mm_loadu_si128(hi.as_ptr() as *const __m128i));
    }
    out
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn product(lo: __m256i, hi: __m256i, tb: &[__m256i; 8]) -> (__m256i, __m256i) {
    let mask = _mm256_set1_epi8(0x0f);
    let n0 = _mm256_and_si256(lo, mask);
    let n1 = _mm256_and_si256(_mm256_srli_epi16(lo, 4), mask);
    let n2 = _mm256_and_si256(hi, mask);
    let n3 = _mm256_and_si256(_mm256_srli_epi16(hi, 4), mask);
    let plo = _mm256_xor_si256(
        _mm256_xor_si256(_mm256_shuffle_epi8(tb[0], n0), _mm256_shuffle_epi8(tb[2], n1)),
        _mm256_xor_si256(_mm256_shuffle_epi8(tb[4], n2), _mm256_shuffle_epi8(tb[6], n3)),
    );
    let phi = _mm256_xor_si256(
        _mm256_xor_si256(_mm256_shuffle_epi8(tb[1], n0), _mm256_shuffle_epi8(tb[3], n1)),
        _mm256_xor_si256(_mm256_shuffle_epi8(tb[5], n2), _mm256_shuffle_epi8(tb[7], n3)),
    );
    (plo, phi)
}

#[target_feature(enable = "avx2")]
pub(super) unsafe fn mul_in_place(x: &mut [u8], img: &[u16; 16]) {
    let tb = nibble_tables(img);
    for block in x.chunks_exact_mut(64) {
        let (l, h) = (block.as_mut_ptr() as *mut __m256i, block.as_mut_ptr().add(32) as *mut __m256i);
        let (p_lo, p_hi) = product(_mm256_loadu_si256(l), _mm256_loadu_si256(h), &tb);
        _mm256_storeu_si256(l, p_lo);
        _mm256_storeu_si256(h, p_hi);
    }
}

#[target_feature(enable = "avx2")]
pub(super) unsafe fn run(op: Op, x: &mut [u8], y: &mut [u8], img: &[u16; 16]) {
    let tb = nibble_tables(img);
    let blocks = x.len() / 64;
    let xp = x.as_mut_ptr();
    let yp = y.as_mut_ptr();
    for b in 0..blocks {
        let xl = xp.add(64 * b) as *mut __m256i;
        let xh = xp.add(64 * b + 32) as *mut __m256i;
        let yl = yp.add(64 * b) as *mut __m256i;
        let yh = yp.add(64 * b + 32) as *mut __m256i;
        let mut x_lo = _mm256_loadu_si256(xl);
        let mut x_hi = _mm256_loadu_si256(xh);
        let mut y_lo = _mm256_loadu_si256(yl);
        let mut y_hi = _mm256_loadu_si256(yh);
        if op == Op::Ifft {
            y_lo = _mm256_xor_si256(y_lo, x_lo);
            y_hi = _mm256_xor_si256(y_hi, x_hi);
        }
        let (p_lo, p_hi) = product(y_lo, y_hi, &tb);
        x_lo = _mm256_xor_si256(x_lo, p_lo);
        x_hi = _mm256_xor_si256(x_hi, p_hi);
        _mm256_storeu_si256(xl, x_lo);
        _mm256_storeu_si256(xh, x_hi);
        match op {
            Op::Fft => {
                _mm256_storeu_si256(yl, _mm256_xor_si256(y_lo, x_lo));
                _mm256_storeu_si256(yh, _mm256_xor_si256(y_hi, x_hi));
            }
            Op::Ifft => {
                _mm256_storeu_si256(yl, y_lo);
                _mm256_storeu_si256(yh, y_hi);
            }
            Op::MulAdd => {}
        }
    }
}
