//! What the multi-buffer kernels (md5_lanes.rs, sha256_lanes.rs) share: a lane is one stream's
//! chaining state and the whole 64-byte blocks to compress into it; on x86-64, the lanes' states
//! in vector layout and the transposes that turn one block per lane into one vector per word.

/// One stream's share of a multi-lane pass: its chaining state (`W` words) and the whole blocks
/// to compress into it, in order.
pub struct Lane<'a, const W: usize> {
    pub state: &'a mut [u32; W],
    pub blocks: &'a [u8],
}

impl<const W: usize> Lane<'_, W> {
    pub fn block_count(&self) -> usize {
        self.blocks.len() / 64
    }
}

/// Panics unless every lane's input is a whole number of blocks (the kernels would drop the rest).
pub fn check_whole_blocks<const W: usize>(lanes: &[Lane<'_, W>]) {
    assert!(lanes.iter().all(|l| l.blocks.len() % 64 == 0), "lane input must be whole 64-byte blocks");
}

/// What the kernels' tests share (md5_lanes.rs, sha256_lanes.rs).
#[cfg(test)]
pub(crate) mod testing {
    use super::Lane;
    use std::fmt::Debug;

    /// xorshift64*: reproducible test inputs.
    pub(crate) struct Rng(pub u64);
    impl Rng {
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        pub fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    /// One multi-lane pass (`compress_lanes` with `kernel`) against compressing each stream on its
    /// own (`compress_blocks`), for 1 to 40 lanes from random states, each lane of a block count
    /// drawn from `counts` (at most `data_blocks`) at a random place in random data.
    pub(crate) fn check_matches_one_by_one<const W: usize, K: Copy + Debug>(
        rng: &mut Rng,
        data_blocks: usize,
        counts: &[usize],
        kernel: K,
        compress_lanes: fn(K, &mut [Lane<'_, W>]),
        compress_blocks: fn(&mut [u32; W], &[u8]),
    ) {
        let data = rng.bytes(data_blocks * 64);
        for n in 1..=40 {
            let mut states: Vec<[u32; W]> = (0..n).map(|_| std::array::from_fn(|_| rng.next() as u32)).collect();
            let inputs: Vec<&[u8]> = (0..n)
                .map(|_| {
                    let blocks = counts[rng.below(counts.len())];
                    let start = rng.below(data_blocks - blocks + 1) * 64;
                    &data[start..start + blocks * 64]
                })
                .collect();
            let mut want = states.clone();
            for (s, input) in want.iter_mut().zip(&inputs) {
                compress_blocks(s, input);
            }
            let mut lanes: Vec<Lane<'_, W>> =
                states.iter_mut().zip(&inputs).map(|(state, blocks)| Lane { state, blocks }).collect();
            compress_lanes(kernel, &mut lanes);
            assert_eq!(
                states,
                want,
                "{kernel:?} with {n} lanes of {:?} blocks",
                inputs.iter().map(|i| i.len() / 64).collect::<Vec<_>>()
            );
        }
    }

    /// Prints the aggregate MiB/s of `kernel` over `streams` lanes of `per_lane` bytes each, fed
    /// 32 KiB per call as FusedHasher::update_many feeds the lanes.
    pub(crate) fn print_throughput<const W: usize, K: Copy>(
        name: &str,
        kernel: K,
        compress_lanes: fn(K, &mut [Lane<'_, W>]),
        per_lane: usize,
        streams: &[usize],
        seed: u64,
    ) {
        let data = Rng(seed).bytes(streams.iter().max().unwrap() * per_lane);
        for &n in streams {
            let mut states = vec![[0u32; W]; n];
            let t = std::time::Instant::now();
            for at in (0..per_lane).step_by(32 << 10) {
                let mut lanes: Vec<Lane<'_, W>> = states
                    .iter_mut()
                    .enumerate()
                    .map(|(l, state)| Lane { state, blocks: &data[l * per_lane + at..l * per_lane + at + (32 << 10)] })
                    .collect();
                compress_lanes(kernel, &mut lanes);
            }
            let secs = t.elapsed().as_secs_f64();
            println!(
                "{name:>9} {n:>2} streams: {:7.0} MiB/s aggregate",
                (n * per_lane) as f64 / secs / (1 << 20) as f64
            );
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub mod x86 {
    use super::Lane;
    use std::arch::x86_64::*;

    /// What an inactive lane reads: any readable block would do, its result is discarded.
    static ZERO: [u8; 64] = [0; 64];

    /// `N` lanes in the layout the kernels want: `state[k][lane]` is word `k` of a lane's state;
    /// lanes past the ones given have no blocks.
    pub struct Layout<const N: usize, const W: usize> {
        pub state: [[u32; N]; W],
        base: [*const u8; N],
        blocks: [usize; N],
        /// Blocks of the longest lane: the number of vector rounds.
        pub rounds: usize,
    }

    impl<const N: usize, const W: usize> Layout<N, W> {
        /// The lanes' states, and their first `limit` blocks at most.
        pub fn new(lanes: &[Lane<'_, W>], limit: usize) -> Self {
            assert!(lanes.len() <= N);
            let mut s = Layout { state: [[0; N]; W], base: [ZERO.as_ptr(); N], blocks: [0; N], rounds: 0 };
            for (l, lane) in lanes.iter().enumerate() {
                for k in 0..W {
                    s.state[k][l] = lane.state[k];
                }
                s.base[l] = lane.blocks.as_ptr();
                s.blocks[l] = lane.block_count().min(limit);
                s.rounds = s.rounds.max(s.blocks[l]);
            }
            s
        }

        /// Block `i` of every lane (ZERO for lanes that have run out) and the mask of the lanes
        /// that have one.
        pub fn block_ptrs(&self, i: usize) -> ([*const u8; N], u32) {
            let mut ptrs = [ZERO.as_ptr(); N];
            let mut active = 0u32;
            for (l, ptr) in ptrs.iter_mut().enumerate() {
                if i < self.blocks[l] {
                    active |= 1 << l;
                    // SAFETY: block `i` lies inside the lane's input, which has at least
                    // `blocks[l]` blocks.
                    *ptr = unsafe { self.base[l].add(64 * i) };
                }
            }
            (ptrs, active)
        }

        pub fn store(&self, lanes: &mut [Lane<'_, W>]) {
            for (l, lane) in lanes.iter_mut().enumerate() {
                for k in 0..W {
                    lane.state[k] = self.state[k][l];
                }
            }
        }
    }

    /// Swaps bit `d` of the row index with bit `d` of the column index, for rows `i` and `i + d`:
    /// the off-diagonal `d`-wide blocks of each pair trade places. Doing it for every bit of the
    /// index transposes the matrix.
    macro_rules! swap_rows {
        ($r:ident, $d:expr, |$x:ident, $y:ident| ($lo:expr, $hi:expr)) => {
            for i in 0..$r.len() {
                if i & $d == 0 {
                    let ($x, $y) = ($r[i], $r[i + $d]);
                    $r[i] = $lo;
                    $r[i + $d] = $hi;
                }
            }
        };
    }

    /// 16x16 transpose of 32-bit words: row `l` in (lane `l`'s block), row `j` out (word `j` of
    /// every lane).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub fn transpose16(mut r: [__m512i; 16]) -> [__m512i; 16] {
        const EVEN4: [i32; 16] = [0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27];
        const ODD4: [i32; 16] = [4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31];
        // SAFETY: each unaligned load reads the 64 bytes of a 16 x i32 constant.
        let (even4, odd4) =
            unsafe { (_mm512_loadu_si512(EVEN4.as_ptr().cast()), _mm512_loadu_si512(ODD4.as_ptr().cast())) };
        swap_rows!(r, 8, |x, y| (
            _mm512_shuffle_i32x4::<0b01_00_01_00>(x, y),
            _mm512_shuffle_i32x4::<0b11_10_11_10>(x, y)
        ));
        swap_rows!(r, 4, |x, y| (_mm512_permutex2var_epi32(x, even4, y), _mm512_permutex2var_epi32(x, odd4, y)));
        swap_rows!(r, 2, |x, y| (_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y)));
        swap_rows!(r, 1, |x, y| (
            _mm512_mask_blend_epi32(0xaaaa, x, _mm512_slli_epi64::<32>(y)),
            _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64::<32>(x), y)
        ));
        r
    }

    /// 8x8 transpose of 32-bit words (see [`transpose16`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn transpose8(mut r: [__m256i; 8]) -> [__m256i; 8] {
        swap_rows!(r, 4, |x, y| (_mm256_permute2x128_si256::<0x20>(x, y), _mm256_permute2x128_si256::<0x31>(x, y)));
        swap_rows!(r, 2, |x, y| (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)));
        swap_rows!(r, 1, |x, y| (
            _mm256_blend_epi32::<0b1010_1010>(x, _mm256_slli_epi64::<32>(y)),
            _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(x), y)
        ));
        r
    }
}
