//! Carry-less multiply folding for reflected CRCs of up to 64 bits (the Intel "fast CRC
//! computation using PCLMULQDQ" scheme): eight 128-bit lanes advance 128 bytes per step, then fold
//! onto one lane. The caller finishes by running its table CRC over the 16 folded bytes from a
//! zero state, then over the unfolded tail.
//!
//! Representation: a 64-bit reflected value has x^0 in bit 63; a 32-bit CRC's remainder is
//! embedded in the top half. The clmul of two such values is the product times x, so the
//! constant for moving a 64-bit half forward by d bits is x^(d-1) mod P.
#![cfg(target_arch = "x86_64")]

use super::tables::{xpow32, xpow64};
use std::arch::x86_64::*;

/// Inputs shorter than this go to the tables: the fold's set-up and tail would dominate.
pub const MIN_LEN: usize = 256;

/// (constant for the high-degree half, constant for the low-degree half) of one fold distance.
pub type Pair = (u64, u64);

pub struct FoldConstants {
    pub by_128: Pair,
    /// Folds lane i of eight onto the last one: distance (7 - i) * 16 bytes.
    pub to_last: [Pair; 7],
    pub by_16: Pair,
}

/// Constants for a reflected 64-bit polynomial (evaluate in a `const` item: xpow loops).
pub const fn constants64(poly: u64) -> FoldConstants {
    const fn by(poly: u64, bytes: u32) -> Pair {
        (xpow64(poly, 8 * bytes + 63), xpow64(poly, 8 * bytes - 1))
    }
    FoldConstants {
        by_128: by(poly, 128),
        to_last: [by(poly, 112), by(poly, 96), by(poly, 80), by(poly, 64), by(poly, 48), by(poly, 32), by(poly, 16)],
        by_16: by(poly, 16),
    }
}

/// Constants for a reflected 32-bit polynomial, its remainders embedded in the top 32 bits.
pub const fn constants32(poly: u32) -> FoldConstants {
    const fn by(poly: u32, bytes: u32) -> Pair {
        ((xpow32(poly, 8 * bytes + 63) as u64) << 32, (xpow32(poly, 8 * bytes - 1) as u64) << 32)
    }
    FoldConstants {
        by_128: by(poly, 128),
        to_last: [by(poly, 112), by(poly, 96), by(poly, 80), by(poly, 64), by(poly, 48), by(poly, 32), by(poly, 16)],
        by_16: by(poly, 16),
    }
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn pair(k: Pair) -> __m128i {
    _mm_set_epi64x(k.1 as i64, k.0 as i64)
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn fold(lane: __m128i, k: __m128i) -> __m128i {
    _mm_xor_si128(_mm_clmulepi64_si128(lane, k, 0x00), _mm_clmulepi64_si128(lane, k, 0x11))
}

/// # Safety
/// `p` is valid for reading 16 bytes (no alignment needed).
#[inline]
unsafe fn load(p: *const u8) -> __m128i {
    // SAFETY: the caller's contract; the unaligned load reads exactly 16 bytes.
    unsafe { _mm_loadu_si128(p as *const __m128i) }
}

/// Folds the longest multiple-of-16 prefix of `data` (at least 128 bytes) with `state` XORed
/// into its first bytes. Returns 16 bytes congruent to that prefix and the prefix length.
///
/// # Safety
/// The CPU must support PCLMULQDQ and SSE4.1.
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub unsafe fn fold_prefix(state: u64, data: &[u8], k: &FoldConstants) -> ([u8; 16], usize) {
    assert!(data.len() >= 128);
    let p = data.as_ptr();
    let mut x = [_mm_setzero_si128(); 8];
    for (i, lane) in x.iter_mut().enumerate() {
        // SAFETY: bytes 16i..16i + 16 with i < 8 lie in the first 128 bytes of `data` (asserted).
        *lane = unsafe { load(p.add(16 * i)) };
    }
    x[0] = _mm_xor_si128(x[0], _mm_set_epi64x(0, state as i64));

    let k128 = pair(k.by_128);
    let mut off = 128;
    while off + 128 <= data.len() {
        for (i, lane) in x.iter_mut().enumerate() {
            // SAFETY: off + 16i + 16 <= off + 128 <= data.len() (the loop condition).
            *lane = _mm_xor_si128(fold(*lane, k128), unsafe { load(p.add(off + 16 * i)) });
        }
        off += 128;
    }

    let mut acc = x[7];
    for (lane, kp) in x.iter().zip(k.to_last) {
        acc = _mm_xor_si128(acc, fold(*lane, pair(kp)));
    }
    let k16 = pair(k.by_16);
    while off + 16 <= data.len() {
        // SAFETY: off + 16 <= data.len() (the loop condition).
        acc = _mm_xor_si128(fold(acc, k16), unsafe { load(p.add(off)) });
        off += 16;
    }
    let mut bytes = [0u8; 16];
    // SAFETY: the unaligned store writes exactly the 16 bytes of `bytes`.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr() as *mut __m128i, acc) };
    (bytes, off)
}
