//! Portable engine: per-constant tables of the products of every low and every high byte.

use super::Op;

/// Products of every low byte and every high byte: `x ⊗ m = lo[x & 255] ^ hi[x >> 8]`.
fn byte_tables(img: &[u16; 16]) -> ([u16; 256], [u16; 256]) {
    let mut lo = [0u16; 256];
    let mut hi = [0u16; 256];
    for v in 1..256usize {
        let bit = v.trailing_zeros() as usize;
        lo[v] = lo[v & (v - 1)] ^ img[bit];
        hi[v] = hi[v & (v - 1)] ^ img[bit + 8];
    }
    (lo, hi)
}

#[inline]
fn product(block: &[u8], e: usize, lo: &[u16; 256], hi: &[u16; 256]) -> u16 {
    lo[block[e] as usize] ^ hi[block[32 + e] as usize]
}

pub(super) fn run(op: Op, x: &mut [u8], y: &mut [u8], img: &[u16; 16]) {
    let (lo, hi) = byte_tables(img);
    for (xb, yb) in x.chunks_exact_mut(64).zip(y.chunks_exact_mut(64)) {
        if op == Op::Ifft {
            super::xor(yb, xb);
        }
        for e in 0..32 {
            let p = product(yb, e, &lo, &hi);
            xb[e] ^= p as u8;
            xb[32 + e] ^= (p >> 8) as u8;
        }
        if op == Op::Fft {
            super::xor(yb, xb);
        }
    }
}

pub(super) fn mul_in_place(x: &mut [u8], img: &[u16; 16]) {
    let (lo, hi) = byte_tables(img);
    for xb in x.chunks_exact_mut(64) {
        for e in 0..32 {
            let p = product(xb, e, &lo, &hi);
            xb[e] = p as u8;
            xb[32 + e] = (p >> 8) as u8;
        }
    }
}
