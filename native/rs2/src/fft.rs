//! Additive FFT/IFFT in the Lin–Chung–Han novel basis over arrays of shards (walrus.md §5.5).
//!
//! `data` holds consecutive shards of `len` bytes; the transforms act on shards `0..m` at the
//! evaluation-point offset `offset` (a multiple of m). A group of d butterflies sharing one skew
//! factor touches two contiguous runs of d shards, so each group is one engine call. `skew[p]`
//! is skew factor p, prepared (`rs::RsCode` holds the table).

use crate::engine::{Engine, Multiplier};

fn halves(data: &mut [u8], len: usize, start: usize, d: usize) -> (&mut [u8], &mut [u8]) {
    let (x, y) = data[start * len..(start + 2 * d) * len].split_at_mut(d * len);
    (x, y)
}

/// Novel-basis coefficients → values at points `offset..offset+m`. Only outputs `0..needed` are
/// guaranteed; butterfly halves that feed only later outputs are skipped.
pub fn fft(eng: &Engine, skew: &[Multiplier], data: &mut [u8], len: usize, m: usize, offset: usize, needed: usize) {
    let mut d = m / 2;
    while d >= 1 {
        let mut r = 0;
        while r < m && r < needed {
            let factor = &skew[offset + r + d - 1];
            let (x, y) = halves(data, len, r, d);
            if r + d < needed {
                eng.fft_butterfly(x, y, factor);
            } else {
                eng.mul_add(x, y, factor);
            }
            r += 2 * d;
        }
        d /= 2;
    }
}

/// Values at points `offset..offset+m` → novel-basis coefficients. Shards `nonzero..m` must be
/// zero on input; groups lying entirely in that zero tail stay zero and are skipped.
pub fn ifft(eng: &Engine, skew: &[Multiplier], data: &mut [u8], len: usize, m: usize, offset: usize, nonzero: usize) {
    let mut d = 1;
    while d < m {
        let mut r = 0;
        while r < m && r < nonzero {
            let factor = &skew[offset + r + d - 1];
            let (x, y) = halves(data, len, r, d);
            eng.ifft_butterfly(x, y, factor);
            r += 2 * d;
        }
        d *= 2;
    }
}

/// Formal derivative in the novel basis over shards `0..count` (count a power of two).
pub fn formal_derivative(data: &mut [u8], len: usize, count: usize) {
    for i in 1..count {
        let w = 1 << i.trailing_zeros();
        let (lower, upper) = data[(i - w) * len..(i + w) * len].split_at_mut(w * len);
        crate::engine::xor(lower, upper);
    }
}
