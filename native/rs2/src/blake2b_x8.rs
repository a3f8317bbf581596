//! BLAKE2b-256 of eight equal-length messages at once, one message per 64-bit lane of AVX-512
//! vectors (RFC 7693, unkeyed, 32-byte digest).
//!
//! Why this exists beside Debian's `blake2b_simd`: at n = 1000 a blob needs ~3·10⁶ hashes of one
//! block each (walrus.md §7.6), and `blake2b_simd`'s `hash_many` tops out at 4 lanes (AVX2, with
//! rotations done by shuffles). With eight lanes and AVX-512's native 64-bit rotate the same
//! hashes cost about half. `blake2b_simd` stays the reference: `hash.rs` uses it for every
//! message this kernel does not take, and the tests below check the two agree.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

pub const LANES: usize = 8;
const BLOCK: usize = 128;

const IV: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/// True when this CPU can run [`hash8`].
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Hashes the eight messages `prefix ‖ input[base + i·stride ..][..len]` (i = 0..8) into
/// `out[i]`. The prefix byte is the Merkle domain tag (walrus.md §6): leaves and inner nodes are
/// hashed straight from where they lie, without copying each into a tagged record first.
///
/// # Safety
/// The CPU must have AVX-512F ([`available`]), and `input` must hold every byte the kernel
/// reads: `base + 7·stride + round_up(len, 8)` (the last word of each message is read whole and
/// its bytes past `len` masked off).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub unsafe fn hash8(prefix: u8, input: &[u8], base: usize, stride: usize, len: usize, out: &mut [[u8; 32]]) {
    debug_assert!(out.len() >= LANES);
    debug_assert!(base + 7 * stride + len.div_ceil(8) * 8 <= input.len());
    let ptr = input.as_ptr().add(base);
    let dwords = len.div_ceil(8);
    // Input words 8c..8c+8 of every lane: eight row loads (words past the input masked off, so
    // never read) turned into one vector per word. Cheaper than gathers on this CPU.
    let chunk = |c: usize| {
        let valid = dwords.saturating_sub(8 * c).min(8);
        let mask: __mmask8 = ((1u16 << valid) - 1) as u8;
        let mut rows = [_mm512_setzero_si512(); 8];
        for (lane, row) in rows.iter_mut().enumerate() {
            *row = _mm512_maskz_loadu_epi64(mask, ptr.add(lane * stride + 64 * c) as *const i64);
        }
        let mut words = transpose8(rows);
        // A partial last word, and it falls in this chunk: mask its bytes past `len` off.
        if !len.is_multiple_of(8) && (dwords - 1) / 8 == c {
            let keep = (1u64 << ((len % 8) * 8)) - 1;
            let last = (dwords - 1) % 8;
            words[last] = _mm512_and_si512(words[last], _mm512_set1_epi64(keep as i64));
        }
        words
    };

    let mut h = [_mm512_setzero_si512(); 8];
    for (i, hv) in h.iter_mut().enumerate() {
        *hv = _mm512_set1_epi64(IV[i] as i64);
    }
    // Parameter block: digest length 32, no key, fanout 1, depth 1.
    h[0] = _mm512_xor_si512(h[0], _mm512_set1_epi64(0x0101_0020));

    let msg_len = len + 1;
    let blocks = msg_len.div_ceil(BLOCK);
    let mut m = [_mm512_setzero_si512(); 16];
    // Message word k is input word k shifted up one byte, under the top byte of word k − 1
    // (or the prefix, for k = 0).
    let mut carry = _mm512_set1_epi64(prefix as i64);
    let mut words = [_mm512_setzero_si512(); 8];
    for b in 0..blocks {
        let start = b * BLOCK;
        for (w, mv) in m.iter_mut().enumerate() {
            let k = b * 16 + w;
            *mv = if k * 8 >= msg_len {
                _mm512_setzero_si512()
            } else {
                if k % 8 == 0 {
                    words = if k < dwords { chunk(k / 8) } else { [_mm512_setzero_si512(); 8] };
                }
                let d = words[k % 8];
                let mw = _mm512_or_si512(_mm512_slli_epi64::<8>(d), carry);
                carry = _mm512_srli_epi64::<56>(d);
                mw
            };
        }
        let last = b + 1 == blocks;
        let counter = if last { msg_len } else { start + BLOCK } as u64;
        compress(&mut h, &m, counter, last);
    }

    // Back to one row per lane; each row's first four words are its digest.
    let rows = transpose8(h);
    for (lane, row) in rows.iter().enumerate() {
        _mm256_storeu_si256(out[lane].as_mut_ptr() as *mut __m256i, _mm512_castsi512_si256(*row));
    }
}

/// Transposes an 8 × 8 matrix of 64-bit words held one row per vector.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose8(r: [__m512i; 8]) -> [__m512i; 8] {
    // Pairs of rows interleaved: t[2i] holds the even columns of rows 2i, 2i+1, t[2i+1] the odd.
    let t = [
        _mm512_unpacklo_epi64(r[0], r[1]),
        _mm512_unpackhi_epi64(r[0], r[1]),
        _mm512_unpacklo_epi64(r[2], r[3]),
        _mm512_unpackhi_epi64(r[2], r[3]),
        _mm512_unpacklo_epi64(r[4], r[5]),
        _mm512_unpackhi_epi64(r[4], r[5]),
        _mm512_unpacklo_epi64(r[6], r[7]),
        _mm512_unpackhi_epi64(r[6], r[7]),
    ];
    // 128-bit blocks regrouped: u[0] = columns 0 and 4 of rows 0–3, u[2] = columns 2 and 6, …
    let u = [
        _mm512_shuffle_i64x2::<0x88>(t[0], t[2]),
        _mm512_shuffle_i64x2::<0x88>(t[1], t[3]),
        _mm512_shuffle_i64x2::<0xDD>(t[0], t[2]),
        _mm512_shuffle_i64x2::<0xDD>(t[1], t[3]),
        _mm512_shuffle_i64x2::<0x88>(t[4], t[6]),
        _mm512_shuffle_i64x2::<0x88>(t[5], t[7]),
        _mm512_shuffle_i64x2::<0xDD>(t[4], t[6]),
        _mm512_shuffle_i64x2::<0xDD>(t[5], t[7]),
    ];
    [
        _mm512_shuffle_i64x2::<0x88>(u[0], u[4]),
        _mm512_shuffle_i64x2::<0x88>(u[1], u[5]),
        _mm512_shuffle_i64x2::<0x88>(u[2], u[6]),
        _mm512_shuffle_i64x2::<0x88>(u[3], u[7]),
        _mm512_shuffle_i64x2::<0xDD>(u[0], u[4]),
        _mm512_shuffle_i64x2::<0xDD>(u[1], u[5]),
        _mm512_shuffle_i64x2::<0xDD>(u[2], u[6]),
        _mm512_shuffle_i64x2::<0xDD>(u[3], u[7]),
    ]
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn compress(h: &mut [__m512i; 8], m: &[__m512i; 16], counter: u64, last: bool) {
    let mut v = [_mm512_setzero_si512(); 16];
    v[..8].copy_from_slice(h);
    for i in 0..4 {
        v[8 + i] = _mm512_set1_epi64(IV[i] as i64);
    }
    v[12] = _mm512_set1_epi64((IV[4] ^ counter) as i64);
    v[13] = _mm512_set1_epi64(IV[5] as i64);
    v[14] = _mm512_set1_epi64((if last { !IV[6] } else { IV[6] }) as i64);
    v[15] = _mm512_set1_epi64(IV[7] as i64);
    // Twelve rounds spelled out so every message index is a constant (no table lookups).
    round::<0>(&mut v, m);
    round::<1>(&mut v, m);
    round::<2>(&mut v, m);
    round::<3>(&mut v, m);
    round::<4>(&mut v, m);
    round::<5>(&mut v, m);
    round::<6>(&mut v, m);
    round::<7>(&mut v, m);
    round::<8>(&mut v, m);
    round::<9>(&mut v, m);
    round::<0>(&mut v, m);
    round::<1>(&mut v, m);
    for i in 0..8 {
        h[i] = _mm512_ternarylogic_epi64::<0x96>(h[i], v[i], v[i + 8]);
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn round<const R: usize>(v: &mut [__m512i; 16], m: &[__m512i; 16]) {
    let s = const { SIGMA[R] };
    g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn g(v: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize, x: __m512i, y: __m512i) {
    v[a] = _mm512_add_epi64(_mm512_add_epi64(v[a], v[b]), x);
    // Rotating by 32 is a swap of 32-bit halves: a shuffle, which runs beside the rotates.
    v[d] = _mm512_shuffle_epi32::<0xB1>(_mm512_xor_si512(v[d], v[a]));
    v[c] = _mm512_add_epi64(v[c], v[d]);
    v[b] = _mm512_ror_epi64::<24>(_mm512_xor_si512(v[b], v[c]));
    v[a] = _mm512_add_epi64(_mm512_add_epi64(v[a], v[b]), y);
    v[d] = _mm512_ror_epi64::<16>(_mm512_xor_si512(v[d], v[a]));
    v[c] = _mm512_add_epi64(v[c], v[d]);
    v[b] = _mm512_ror_epi64::<63>(_mm512_xor_si512(v[b], v[c]));
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    fn reference(prefix: u8, msg: &[u8]) -> [u8; 32] {
        let mut st = blake2b_simd::Params::new().hash_length(32).to_state();
        st.update(&[prefix]);
        st.update(msg);
        st.finalize().as_bytes().try_into().unwrap()
    }

    #[test]
    fn agrees_with_blake2b_simd_at_every_length_and_stride() {
        if !available() {
            eprintln!("no AVX-512F: kernel not tested on this CPU");
            return;
        }
        let data: Vec<u8> = (0..8 * 700 + 64).map(|i| (i * 131 + 7) as u8).collect();
        for len in (0..=300usize).chain([382, 383, 384, 639, 640]) {
            for stride in [len, len + 1, len + 13] {
                let base = 3;
                if base + 7 * stride + len.div_ceil(8) * 8 > data.len() {
                    continue;
                }
                for prefix in [0u8, 1, 0xff] {
                    let mut out = [[0u8; 32]; 8];
                    unsafe { hash8(prefix, &data, base, stride, len, &mut out) };
                    for (i, got) in out.iter().enumerate() {
                        let msg = &data[base + i * stride..][..len];
                        assert_eq!(*got, reference(prefix, msg), "len {len} stride {stride} lane {i}");
                    }
                }
            }
        }
    }
}
