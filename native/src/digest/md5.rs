//! MD5 (RFC 1321), the S3 ETag and Content-MD5. Written out here rather than taken from the
//! md-5 crate to shorten each step's dependency chain on `b` (the previous step's result):
//! everything not involving `b` is summed first, and G uses `+` instead of `|` (its two terms
//! never share a set bit), which drops one instruction from the chain. 64 steps of ~4 cycles
//! bound MD5 at about 4.5 cycles/byte; the md-5 crate is kept as the test reference.

use super::block_stream::BlockStream;

pub(super) const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501, 0x698098d8,
    0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87,
    0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039,
    0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
    0xeb86d391,
];

const INIT: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/// Hides `v` from the optimizer so it cannot re-associate the step's additions and push the
/// constant back onto the critical path (it otherwise computes `f(b) + (a + m) + k`).
#[inline(always)]
fn opaque(mut v: u32) -> u32 {
    // SAFETY: the template is an assembler comment: no instruction runs, and the options say so
    // (pure, no memory, no stack, flags kept); the register only carries `v` through unchanged.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::asm!("/* {0:e} */", inout(reg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}

#[inline(always)]
fn step_f(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let pre = opaque(a.wrapping_add(mk));
    (pre.wrapping_add(d ^ (b & (c ^ d)))).rotate_left(s).wrapping_add(b)
}

#[inline(always)]
fn step_g(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let pre = opaque(a.wrapping_add(mk).wrapping_add(c & !d));
    (pre.wrapping_add(b & d)).rotate_left(s).wrapping_add(b)
}

#[inline(always)]
fn step_h(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let pre = opaque(a.wrapping_add(mk));
    (pre.wrapping_add(b ^ (c ^ d))).rotate_left(s).wrapping_add(b)
}

#[inline(always)]
fn step_i(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let pre = opaque(a.wrapping_add(mk));
    (pre.wrapping_add(c ^ (b | !d))).rotate_left(s).wrapping_add(b)
}

fn compress(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut m = [0u32; 16];
    for (w, chunk) in m.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes(chunk.try_into().unwrap());
    }
    let [mut a, mut b, mut c, mut d] = *state;
    macro_rules! round {
        ($step:ident, $first:expr, $stride:expr, $s:expr, $k0:expr) => {
            let mut i = 0;
            while i < 16 {
                let g = |j: usize| ($first + $stride * j) % 16;
                a = $step(a, b, c, d, m[g(i)].wrapping_add(K[$k0 + i]), $s[0]);
                d = $step(d, a, b, c, m[g(i + 1)].wrapping_add(K[$k0 + i + 1]), $s[1]);
                c = $step(c, d, a, b, m[g(i + 2)].wrapping_add(K[$k0 + i + 2]), $s[2]);
                b = $step(b, c, d, a, m[g(i + 3)].wrapping_add(K[$k0 + i + 3]), $s[3]);
                i += 4;
            }
        };
    }
    round!(step_f, 0, 1, [7, 12, 17, 22], 0);
    round!(step_g, 1, 5, [5, 9, 14, 20], 16);
    round!(step_h, 5, 3, [4, 11, 16, 23], 32);
    round!(step_i, 0, 7, [6, 10, 15, 21], 48);
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

/// Compresses whole blocks (`blocks.len()` a multiple of 64) into `state`.
pub(super) fn compress_blocks(state: &mut [u32; 4], blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        compress(state, block.try_into().unwrap());
    }
}

#[derive(Clone)]
pub struct Md5(BlockStream<4>);

impl Default for Md5 {
    fn default() -> Self {
        Self::new()
    }
}

impl Md5 {
    pub fn new() -> Self {
        Md5(BlockStream::new(INIT))
    }

    pub fn update(&mut self, data: &[u8]) {
        let blocks = self.0.update_deferred(data, compress_blocks);
        compress_blocks(&mut self.0.state, blocks);
    }

    /// `update` except for the whole blocks of `data`, which the caller must compress into
    /// [`Md5::state_mut`] (see [`BlockStream::update_deferred`]).
    pub fn update_deferred<'a>(&mut self, data: &'a [u8]) -> &'a [u8] {
        self.0.update_deferred(data, compress_blocks)
    }

    pub fn state_mut(&mut self) -> &mut [u32; 4] {
        &mut self.0.state
    }

    pub fn finalize(mut self) -> [u8; 16] {
        self.0.finish(u64::to_le_bytes, compress_blocks);
        let mut out = [0u8; 16];
        for (o, s) in out.chunks_exact_mut(4).zip(self.0.state) {
            o.copy_from_slice(&s.to_le_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Md5;
    use md5::Digest;

    fn ours(chunks: &[&[u8]]) -> [u8; 16] {
        let mut h = Md5::new();
        for c in chunks {
            h.update(c);
        }
        h.finalize()
    }

    #[test]
    fn rfc1321_vectors() {
        assert_eq!(hex(&ours(&[b""])), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&ours(&[b"abc"])), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(&ours(&[b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"])),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    #[test]
    fn matches_md5_crate_across_lengths_and_splits() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8).collect();
        for len in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 5000] {
            let d = &data[..len];
            let want: [u8; 16] = md5::Md5::digest(d).into();
            assert_eq!(ours(&[d]), want, "len {len}");
            for split in [1, 7, 63, 64, 65] {
                let s = split.min(len);
                assert_eq!(ours(&[&d[..s], &d[s..]]), want, "len {len} split {split}");
            }
        }
    }

    #[test]
    #[ignore = "throughput comparison: cargo test --release -p tusk-native -- --ignored --nocapture"]
    fn throughput_vs_md5_crate() {
        let data = vec![0x5au8; 64 << 20];
        for _ in 0..2 {
            let t = std::time::Instant::now();
            let a = ours(&[&data]);
            let ours_s = t.elapsed().as_secs_f64();
            let t = std::time::Instant::now();
            let b: [u8; 16] = md5::Md5::digest(&data).into();
            let crate_s = t.elapsed().as_secs_f64();
            assert_eq!(a, b);
            let gbs = |s: f64| data.len() as f64 / s / 1e9;
            println!("md5 ours {:.3} GB/s, md-5 crate {:.3} GB/s", gbs(ours_s), gbs(crate_s));
        }
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}
